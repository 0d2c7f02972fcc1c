package io.berth.informer;

/**
 * An open watch, consumed by one thread (the reflector's). Events arrive in server order; the
 * stream ends with exactly one terminal event (ERROR or CLOSED), after which {@link #next} keeps
 * returning CLOSED. {@link #close} may be called from any thread, any number of times; it ends the
 * watch and makes a blocked {@link #next} return CLOSED promptly.
 */
public interface WatchStream<T> extends AutoCloseable {

  /** Blocks until the next event. */
  WatchEvent<T> next() throws InterruptedException;

  /** Whether the underlying watch is still open (no terminal event received yet). */
  boolean isOpen();

  /** Stops the watch; idempotent. */
  @Override
  void close();
}
