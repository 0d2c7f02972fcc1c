package io.berth.framework;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * The scheduler's asynchronous pod writes, as upstream's {@code APICacher} (feature gate
 * {@code SchedulerAsyncAPICalls}): each method queues one API call in the scheduler's API
 * dispatcher and returns at once with the call's completion. The dispatcher runs calls for
 * different pods in parallel on its own threads and the calls for one pod one at a time, in the
 * order they were added; a call that a later call for the same pod makes unnecessary completes
 * {@link Outcome#OVERWRITTEN} (a binding supersedes a pending status patch, a newer patch absorbs
 * an older one), and a call with nothing to write, or less relevant than one already queued,
 * {@link Outcome#SKIPPED}. Present through {@link Handle#apiCacher()} only with the gate on.
 * Implementations are thread-safe; callers are the scheduling thread, binding threads and
 * preemption's workers. A completion is never completed by the caller and runs no callbacks of
 * the dispatcher's: callers only wait on it ({@link #waitOnFinish}) or look at it.
 */
public interface ApiCacher {
  /** How a queued call ended when it did not fail. */
  enum Outcome {
    /** The call ran (it may still have found nothing to send, or the pod gone). */
    EXECUTED,
    /** Not run: nothing to write, or a more relevant call for the pod was already queued. */
    SKIPPED,
    /** Not run: a later call for the same pod replaced it (and carries what it had to write). */
    OVERWRITTEN
  }

  /**
   * Queues a patch of the pod's status: {@code condition} merged by its type, and the nomination
   * set or cleared when {@code nominating} is {@link NominatingInfo.Mode#OVERRIDE}. {@code pod}
   * is the version the caller knows (the informer's); the patch is skipped when that version, or a
   * newer one the informer delivers before the call runs, already shows it.
   */
  CompletionStage<Outcome> patchPodStatus(Pod pod, Optional<PodCondition> condition,
      NominatingInfo nominating);

  /**
   * Queues the binding of {@code pod} to {@code nodeName}; {@code binding} is the API request itself
   * (a Bind plugin's), run on a dispatcher thread, and a non-success status fails the call.
   */
  CompletionStage<Outcome> bindPod(Pod pod, String nodeName, Supplier<Status> binding);

  /**
   * Blocks until {@code call} ends: success when it ran, was skipped or was overwritten (upstream's
   * expected lifecycle outcomes), the failing call's status (or an error status naming the cause)
   * otherwise. An interrupt ends the wait with an error status and keeps the interrupt flag.
   */
  default Status waitOnFinish(CompletionStage<Outcome> call) {
    try {
      call.toCompletableFuture().get();
      return Status.SUCCESS;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Status.error("interrupted while waiting for an API call");
    } catch (ExecutionException | CompletionException | CancellationException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      return cause instanceof StatusException s ? s.status() : Status.asError(cause);
    }
  }
}
