package io.berth.framework;

/**
 * Where a PostFilter plugin wants the pod nominated: {@code mode} OVERRIDE sets
 * {@code nominatedNodeName} (empty clears it), NOOP leaves it. Immutable.
 */
public record NominatingInfo(String nominatedNodeName, Mode mode) {
  public static final NominatingInfo NOOP = new NominatingInfo("", Mode.NOOP);

  /** Whether to change the pod's nomination. */
  public enum Mode { NOOP, OVERRIDE }

  public static NominatingInfo override(String nodeName) {
    return new NominatingInfo(nodeName, Mode.OVERRIDE);
  }
}
