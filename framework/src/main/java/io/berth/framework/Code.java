package io.berth.framework;

/**
 * The outcome codes a plugin may return, as kube-scheduler's framework defines them. Immutable.
 *
 * <p>{@link #UNSCHEDULABLE} means the pod does not fit now but may after something changes (and
 * preemption may help); {@link #UNSCHEDULABLE_AND_UNRESOLVABLE} means preemption cannot help;
 * {@link #WAIT} is only for Permit; {@link #SKIP} from PreFilter or PreScore skips that plugin's
 * Filter or Score, and from Bind passes to the next binder; {@link #PENDING} means the pod waits
 * for something outside the scheduler and is retried only on an event a plugin cares about.
 */
public enum Code {
  SUCCESS("Success"),
  ERROR("Error"),
  UNSCHEDULABLE("Unschedulable"),
  UNSCHEDULABLE_AND_UNRESOLVABLE("UnschedulableAndUnresolvable"),
  WAIT("Wait"),
  SKIP("Skip"),
  PENDING("Pending");

  private final String displayName;

  Code(String displayName) {
    this.displayName = displayName;
  }

  /** The upstream spelling ("UnschedulableAndUnresolvable"). */
  public String displayName() {
    return displayName;
  }
}
