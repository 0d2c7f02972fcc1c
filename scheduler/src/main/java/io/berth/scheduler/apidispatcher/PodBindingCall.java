package io.berth.scheduler.apidispatcher;

import io.berth.framework.Status;
import io.berth.framework.StatusException;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.function.Supplier;

/**
 * A pod's binding, as upstream's {@code PodBindingCall}: the Bind plugin's request, run on a
 * dispatcher thread; a non-success status fails the call with a {@link StatusException} carrying
 * it. Never a no-op, merges nothing (a newer binding simply replaces it) and leaves synced pods as
 * they are. Immutable.
 */
final class PodBindingCall implements ApiCall {
  private final String uid;
  private final String nodeName;
  private final Supplier<Status> binding;

  PodBindingCall(Pod pod, String nodeName, Supplier<Status> binding) {
    this.uid = PodCalls.uidOf(pod);
    this.nodeName = nodeName;
    this.binding = binding;
  }

  @Override
  public String type() {
    return ApiCalls.POD_BINDING;
  }

  @Override
  public String uid() {
    return uid;
  }

  @Override
  public void execute() {
    Status s = binding.get();
    if (!s.isSuccess()) {
      throw new StatusException(s);
    }
  }

  @Override
  public void mergeFrom(ApiCall older) { }

  @Override
  public Pod sync(Pod current) {
    return current;
  }

  @Override
  public boolean isNoOp() {
    return false;
  }

  @Override
  public String toString() {
    return "binding of " + uid + " to " + nodeName;
  }
}
