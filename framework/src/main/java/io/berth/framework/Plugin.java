package io.berth.framework;

/**
 * A scheduler plugin. A plugin implements one or more extension-point interfaces; the runtime
 * calls it from the scheduling thread, from Filter/Score worker threads (Filter and Score must be
 * thread-safe) and from binding threads (PreBind, Bind, PostBind, Unreserve).
 */
public interface Plugin {
  /** The name the plugin is registered and configured under ("NodeResourcesFit"). */
  String name();
}
