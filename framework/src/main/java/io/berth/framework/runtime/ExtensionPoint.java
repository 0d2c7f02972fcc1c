package io.berth.framework.runtime;

/** The 12 extension points, with the field names KubeSchedulerConfiguration uses for them. */
public enum ExtensionPoint {
  PRE_ENQUEUE("preEnqueue"),
  QUEUE_SORT("queueSort"),
  PRE_FILTER("preFilter"),
  FILTER("filter"),
  POST_FILTER("postFilter"),
  PRE_SCORE("preScore"),
  SCORE("score"),
  RESERVE("reserve"),
  PERMIT("permit"),
  PRE_BIND("preBind"),
  BIND("bind"),
  POST_BIND("postBind");

  private final String configName;

  ExtensionPoint(String configName) {
    this.configName = configName;
  }

  /** The field name in {@code profiles[].plugins}. */
  public String configName() {
    return configName;
  }
}
