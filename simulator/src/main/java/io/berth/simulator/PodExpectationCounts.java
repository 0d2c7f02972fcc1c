package io.berth.simulator;

import io.berth.informer.ResourceEventHandler;
import io.berth.simulator.scenario.PodExpectation;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How many pods meet each of a scenario's pod expectations (in its namespace, with its labels, not terminating, in
 * its phase and bound or not as it asks), kept from the pod informer's events instead of filtering every cached pod
 * on each check. Each pod's key maps to the set of expectations it currently counts toward; an event replaces that
 * set, so a deletion takes away exactly what the pod's last seen state added, whatever the deleted object carries.
 * The counts follow the handler, so they may trail the lister by the events still in the handler's buffer, and they
 * are complete only once the handler's registration has synced.
 *
 * <p>Thread-safe: every field is guarded by {@code this}; the informer's handler thread writes, the scenario's
 * thread reads through {@link #count}.
 */
final class PodExpectationCounts implements ResourceEventHandler<Pod> {

  private final List<PodExpectation> expectations;
  // guarded by this: pod key -> bit i set when the pod meets expectation i; pods meeting none are absent
  private final Map<String, Long> metBy = new HashMap<>();
  // guarded by this
  private final long[] counts;

  /**
   * @throws IllegalArgumentException for more than 64 expectations
   */
  PodExpectationCounts(List<PodExpectation> expectations) {
    if (expectations.size() > Long.SIZE) {
      throw new IllegalArgumentException("at most " + Long.SIZE + " pod expectations, got " + expectations.size());
    }
    this.expectations = List.copyOf(expectations);
    this.counts = new long[expectations.size()];
  }

  /** Whether {@code pod} counts toward {@code e}: the filters {@code expect.pods} documents. */
  static boolean meets(PodExpectation e, Pod pod) {
    if (!e.namespace().equals(pod.getMetadata().getNamespace()) || pod.getMetadata().getDeletionTimestamp() != null) {
      return false;
    }
    Map<String, String> labels = pod.getMetadata().getLabels();
    for (Map.Entry<String, String> wanted : e.labels().entrySet()) {
      if (labels == null || !wanted.getValue().equals(labels.get(wanted.getKey()))) {
        return false;
      }
    }
    if (e.phase().isPresent() && (pod.getStatus() == null || !e.phase().get().equals(pod.getStatus().getPhase()))) {
      return false;
    }
    return e.scheduled().isEmpty() || e.scheduled().get() == (pod.getSpec().getNodeName() != null);
  }

  /** The number of pods meeting expectation {@code index} (in the order given at construction). */
  synchronized long count(int index) {
    return counts[index];
  }

  @Override
  public void onAdd(Pod obj, boolean isInInitialList) {
    put(obj);
  }

  @Override
  public void onUpdate(Pod oldObj, Pod newObj) {
    put(newObj);
  }

  @Override
  public void onDelete(Pod obj, boolean finalStateUnknown) {
    String key = key(obj);
    synchronized (this) {
      Long old = metBy.remove(key);
      if (old != null) {
        apply(old, -1);
      }
    }
  }

  private void put(Pod pod) {
    long now = 0;
    for (int i = 0; i < expectations.size(); i++) {
      if (meets(expectations.get(i), pod)) {
        now |= 1L << i;
      }
    }
    String key = key(pod);
    synchronized (this) {
      Long old = now == 0 ? metBy.remove(key) : metBy.put(key, now);
      if (old != null) {
        apply(old, -1);
      }
      apply(now, 1);
    }
  }

  /** Adds ({@code sign} 1) or takes away (-1) one pod from the expectations in {@code bits}; called holding this. */
  private void apply(long bits, int sign) {
    for (int i = 0; i < counts.length; i++) {
      if ((bits & (1L << i)) != 0) {
        counts[i] += sign;
      }
    }
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
