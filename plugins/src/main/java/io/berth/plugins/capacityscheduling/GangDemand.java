package io.berth.plugins.capacityscheduling;

import io.berth.framework.ObjectLister;
import io.berth.plugins.coscheduling.PodGroup;
import io.berth.plugins.coscheduling.PodGroupLister;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A gang's demand on its quota: a pod labelled {@value PodGroup#LABEL} whose PodGroup exists is checked together
 * with the members it must be placed with — {@code minMember}, less the members already charged to the quota
 * (bound or reserved), less itself: the requests of that many uncharged members (by name) are added to its own. A
 * pod without a group, with a missing or malformed PodGroup (Coscheduling holds those), or whose group has enough
 * members placed, asks only for itself. Reads the PodGroups and pods read-only. Thread-safe (its listers are).
 */
final class GangDemand {
  private final PodGroupLister groups;
  private final ObjectLister<Pod> pods;
  private final QuotaBook book;

  GangDemand(PodGroupLister groups, ObjectLister<Pod> pods, QuotaBook book) {
    this.groups = groups;
    this.pods = pods;
    this.book = book;
  }

  /** {@code own} (the pod's requests) plus those of the members it must be placed with. */
  Map<String, Long> of(Pod pod, Map<String, Long> own) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    String name = labels == null ? null : labels.get(PodGroup.LABEL);
    if (name == null || name.isEmpty()) {
      return own;
    }
    String ns = pod.getMetadata().getNamespace();
    Optional<PodGroup> group;
    try {
      group = groups.get(ns, name);
    } catch (IllegalArgumentException malformed) {
      return own;
    }
    if (group.isEmpty()) {
      return own;
    }
    List<Pod> waiting = new ArrayList<>();
    int charged = 0;
    for (Pod p : pods.list(ns)) {
      Map<String, String> l = p.getMetadata().getLabels();
      if (l == null || !name.equals(l.get(PodGroup.LABEL)) || p.getMetadata().getDeletionTimestamp() != null
          || p.getMetadata().getUid().equals(pod.getMetadata().getUid())) {
        continue;
      }
      if (book.isCharged(ns, p.getMetadata().getUid())) {
        charged++;
      } else if (!QuotaPods.terminal(p)) {
        waiting.add(p);
      }
    }
    int missing = group.get().minMember() - charged - 1;
    if (missing <= 0 || waiting.isEmpty()) {
      return own;
    }
    waiting.sort(Comparator.comparing(p -> p.getMetadata().getName()));
    Map<String, Long> out = new HashMap<>(own);
    for (Pod p : waiting.subList(0, Math.min(missing, waiting.size()))) {
      Amounts.addInto(out, Amounts.requestsOf(p), 1);
    }
    return out;
  }
}
