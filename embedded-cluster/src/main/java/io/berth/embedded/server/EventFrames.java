package io.berth.embedded.server;

/**
 * The default (JSON) wire forms of one stored object as watch events, ADDED, MODIFIED or DELETED, each built the
 * first time a watcher needs it, so a change seen by many watchers is encoded once.
 *
 * <p>Not thread-safe: confined to the thread delivering one event to every watcher.
 */
final class EventFrames {

  private final StoredObject object;
  private WatchFrame added;
  private WatchFrame modified;
  private WatchFrame deleted;

  EventFrames(StoredObject object) {
    this.object = object;
  }

  /** The frame of {@code eventType} (ADDED, MODIFIED or DELETED) for this object. */
  WatchFrame frame(String eventType) {
    return switch (eventType) {
      case "ADDED" -> added != null ? added : (added = WatchFrame.of(eventType, object.json()));
      case "MODIFIED" -> modified != null ? modified : (modified = WatchFrame.of(eventType, object.json()));
      case "DELETED" -> deleted != null ? deleted : (deleted = WatchFrame.of(eventType, object.json()));
      default -> WatchFrame.of(eventType, object.json());
    };
  }
}
