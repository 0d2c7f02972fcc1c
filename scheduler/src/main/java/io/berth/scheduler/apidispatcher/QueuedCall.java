package io.berth.scheduler.apidispatcher;

import io.berth.framework.ApiCacher.Outcome;
import java.util.concurrent.CompletableFuture;

/**
 * An {@link ApiCall} as the {@link CallQueue} holds it: its completion, the sequence number that
 * tells it from a newer call for the same object, and whether a dispatcher thread runs it. The
 * fields other than the call and its completion are guarded by the queue's lock.
 */
final class QueuedCall {
  final ApiCall call;
  final CompletableFuture<Outcome> completion = new CompletableFuture<>();
  // guarded by the CallQueue's lock: popped and not yet finalized
  boolean running;

  QueuedCall(ApiCall call) {
    this.call = call;
  }

  void complete(Outcome outcome) {
    completion.complete(outcome);
  }

  void fail(Throwable cause) {
    completion.completeExceptionally(cause);
  }
}
