package io.berth.embedded.server;

/**
 * One change in the store, as history keeps it and watchers receive it. Immutable.
 *
 * @param type ADDED, MODIFIED or DELETED
 * @param object the object after the change (for DELETED, the last state with the deletion's resourceVersion)
 * @param previous the object before the change, null for ADDED; watchers with selectors need it to turn a change
 *     that leaves or enters their selection into DELETED or ADDED
 */
public record WatchEvent(Type type, StoredObject object, StoredObject previous) {

  /** Watch event types as the API server names them. */
  public enum Type { ADDED, MODIFIED, DELETED }

  public long resourceVersion() {
    return object.resourceVersion();
  }
}
