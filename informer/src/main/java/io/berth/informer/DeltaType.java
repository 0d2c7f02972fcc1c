package io.berth.informer;

/** The kind of change a {@link Delta} records (client-go's {@code DeltaType}). */
public enum DeltaType {
  /** Watch ADDED. */
  ADDED,
  /** Watch MODIFIED. */
  UPDATED,
  /**
   * Watch DELETED, or a key missing from a relist (then the delta is a final-state-unknown
   * tombstone, see {@link Delta#finalStateUnknown()}).
   */
  DELETED,
  /** An object present in a (re)list; it may or may not have changed. */
  REPLACED,
  /** A periodic resync of an object already in the store. */
  SYNC
}
