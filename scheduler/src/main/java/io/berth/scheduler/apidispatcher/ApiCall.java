package io.berth.scheduler.apidispatcher;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * One API call the {@link ApiDispatcher} runs for one object (upstream's {@code fwk.APICall}):
 * its type (whose relevance decides which of two calls for the same object wins), the object's
 * identity, the request itself, and how it folds an older call of its own type into itself, syncs
 * with a newer version of the object and tells that it has nothing to write. The dispatcher calls
 * {@link #execute()} on one of its threads and the other methods under its queue's lock, possibly
 * while {@link #execute()} runs: implementations guard their own state.
 */
public interface ApiCall {
  /** The call's type, a key of the dispatcher's relevances ({@link ApiCalls#RELEVANCES}). */
  String type();

  /** The object's identity: its uid (namespace/name when it has none). */
  String uid();

  /** Sends the request; a thrown exception fails the call. */
  void execute();

  /**
   * Takes over what {@code older}, a pending call of the same type for the same object that this
   * call replaces, still had to write and this call does not override.
   */
  void mergeFrom(ApiCall older);

  /**
   * Refreshes what the call knows of the object from {@code current} (a newer version the informer
   * delivered) unless it already runs, and returns {@code current} as it will be once the call has
   * run ({@code current} itself when that changes nothing).
   */
  Pod sync(Pod current);

  /** Whether running the call would change nothing on the object as the call knows it. */
  boolean isNoOp();

  /**
   * Another call for the object runs while this one waits behind it: what this call knows of the
   * object may be overtaken by that call's write, so it must not skip its request as a no-op.
   */
  default void afterRunningCall() { }
}
