package io.berth.scheduler.apidispatcher;

import io.berth.framework.ApiCacher;
import io.berth.framework.NominatingInfo;
import io.berth.framework.PodApi;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The scheduler's {@link ApiCacher} (upstream's {@code APICache}): status patches sent through
 * {@code api} and bindings, each queued as one call in the {@link ApiDispatcher}. Upstream
 * applies nothing to its caches in advance either. Thread-safe (stateless apart from the
 * dispatcher and the PodApi, both thread-safe).
 */
public final class ApiCache implements ApiCacher {
  private final ApiDispatcher dispatcher;
  private final PodApi api;

  public ApiCache(ApiDispatcher dispatcher, PodApi api) {
    this.dispatcher = dispatcher;
    this.api = api;
  }

  @Override
  public CompletionStage<Outcome> patchPodStatus(Pod pod, Optional<PodCondition> condition,
      NominatingInfo nominating) {
    return dispatcher.add(new PodStatusPatchCall(api, pod, condition, nominating));
  }

  @Override
  public CompletionStage<Outcome> bindPod(Pod pod, String nodeName, Supplier<Status> binding) {
    return dispatcher.add(new PodBindingCall(pod, nodeName, binding));
  }
}
