package io.berth.framework;

/**
 * Bit flags for what happened to an object, as kube-scheduler's {@code framework.ActionType}.
 * Registrations OR them together; an event matches when the bits intersect. Constants only.
 */
public final class ActionType {
  public static final long ADD = 1L;
  public static final long DELETE = 1L << 1;
  public static final long UPDATE_NODE_ALLOCATABLE = 1L << 2;
  public static final long UPDATE_NODE_LABEL = 1L << 3;
  public static final long UPDATE_NODE_TAINT = 1L << 4;
  public static final long UPDATE_NODE_CONDITION = 1L << 5;
  public static final long UPDATE_NODE_ANNOTATION = 1L << 6;
  public static final long UPDATE_POD_LABEL = 1L << 7;
  public static final long UPDATE_POD_SCALE_DOWN = 1L << 8;
  public static final long UPDATE_POD_TOLERATION = 1L << 9;
  public static final long UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1L << 10;
  public static final long UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1L << 11;
  /** Any other update of the object. */
  public static final long UPDATE_OTHER = 1L << 12;

  /** Any update: the union of the update bits. */
  public static final long UPDATE = UPDATE_NODE_ALLOCATABLE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT
      | UPDATE_NODE_CONDITION | UPDATE_NODE_ANNOTATION | UPDATE_POD_LABEL | UPDATE_POD_SCALE_DOWN
      | UPDATE_POD_TOLERATION | UPDATE_POD_SCHEDULING_GATES_ELIMINATED
      | UPDATE_POD_GENERATED_RESOURCE_CLAIM | UPDATE_OTHER;
  public static final long ALL = ADD | DELETE | UPDATE;

  private ActionType() {}

  /** A readable form ("Add|UpdateNodeLabel") for logs and metric labels. */
  public static String describe(long actions) {
    if (actions == ALL) {
      return "All";
    }
    if (actions == UPDATE) {
      return "Update";
    }
    StringBuilder out = new StringBuilder();
    String[] names = {"Add", "Delete", "UpdateNodeAllocatable", "UpdateNodeLabel", "UpdateNodeTaint",
        "UpdateNodeCondition", "UpdateNodeAnnotation", "UpdatePodLabel", "UpdatePodScaleDown",
        "UpdatePodToleration", "UpdatePodSchedulingGatesEliminated",
        "UpdatePodGeneratedResourceClaim", "Update"};
    for (int i = 0; i < names.length; i++) {
      if ((actions & (1L << i)) != 0) {
        if (out.length() > 0) {
          out.append('|');
        }
        out.append(names[i]);
      }
    }
    return out.toString();
  }
}
