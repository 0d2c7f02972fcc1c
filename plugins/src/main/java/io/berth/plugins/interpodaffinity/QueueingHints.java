package io.berth.plugins.interpodaffinity;

import io.berth.framework.AffinityTerm;
import io.berth.framework.ObjectLister;
import io.berth.framework.PodInfo;
import io.berth.framework.QueueingHint;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * InterPodAffinity's queueing hints, as upstream v1.32's {@code isSchedulableAfterPodChange} and
 * {@code isSchedulableAfterNodeChange}. The target pod's terms are compiled unmerged and matched
 * without namespace labels, as upstream does. Unexpected objects or an unparsable target pod give
 * QUEUE (upstream's answer to an error). Immutable and thread-safe.
 *
 * <p>One addition to v1.32: deleting an assigned pod whose required anti-affinity matched the
 * target pod also gives QUEUE (the target may have been rejected by that pod's anti-affinity), as
 * later upstream releases do; v1.32 only looked at the target's own anti-affinity there.
 */
final class QueueingHints {
  private static final Logger LOG = LoggerFactory.getLogger(QueueingHints.class);

  private final ObjectLister<Namespace> namespaceLister;

  QueueingHints(ObjectLister<Namespace> namespaceLister) {
    this.namespaceLister = namespaceLister;
  }

  /**
   * An assigned pod was added (may satisfy affinity), had its labels updated (may now satisfy
   * affinity or stop matching anti-affinity) or was deleted (may stop violating anti-affinity).
   * Unassigned pods never help.
   */
  QueueingHint afterPodChange(Pod pod, Object oldObj, Object newObj) {
    if ((oldObj != null && !(oldObj instanceof Pod)) || (newObj != null && !(newObj instanceof Pod))
        || (oldObj == null && newObj == null)) {
      LOG.debug("unexpected objects for a pod event: {}, {}", oldObj, newObj);
      return QueueingHint.QUEUE;
    }
    Pod original = (Pod) oldObj;
    Pod modified = (Pod) newObj;
    if ((modified != null && unassigned(modified)) || (original != null && unassigned(original))) {
      return QueueingHint.QUEUE_SKIP;
    }
    PodInfo target = PodInfo.of(pod);
    if (target.parseError().isPresent()) {
      return QueueingHint.QUEUE;
    }
    List<AffinityTerm> terms = target.requiredAffinityTerms();
    List<AffinityTerm> antiTerms = target.requiredAntiAffinityTerms();
    if (modified != null && original != null) {
      if (!AffinityTerms.podMatchesAll(terms, original)
          && AffinityTerms.podMatchesAll(terms, modified)) {
        return QueueingHint.QUEUE;
      }
      if (AffinityTerms.podMatchesAll(antiTerms, original)
          && !AffinityTerms.podMatchesAll(antiTerms, modified)) {
        return QueueingHint.QUEUE;
      }
      return QueueingHint.QUEUE_SKIP;
    }
    if (modified != null) {
      return AffinityTerms.podMatchesAll(terms, modified) ? QueueingHint.QUEUE
          : QueueingHint.QUEUE_SKIP;
    }
    if (AffinityTerms.podMatchesAll(antiTerms, original)) {
      return QueueingHint.QUEUE;
    }
    return deletedPodRejectedTarget(pod, original) ? QueueingHint.QUEUE : QueueingHint.QUEUE_SKIP;
  }

  /** Whether one of the deleted pod's required anti-affinity terms matches the target pod. */
  private boolean deletedPodRejectedTarget(Pod target, Pod deleted) {
    PodInfo deletedInfo = PodInfo.of(deleted);
    if (deletedInfo.requiredAntiAffinityTerms().isEmpty()) {
      return false;
    }
    String namespace = AffinityTerms.namespace(target);
    Map<String, String> namespaceLabels = AffinityTerms.namespaceLabels(namespace, namespaceLister);
    Map<String, String> labels = AffinityTerms.labels(target);
    for (AffinityTerm term : deletedInfo.requiredAntiAffinityTerms()) {
      if (term.matches(namespace, labels, namespaceLabels)) {
        return true;
      }
    }
    return false;
  }

  /** A node was added or relabelled: it matters when it has a topology key of the pod's terms. */
  QueueingHint afterNodeChange(Pod pod, Object oldObj, Object newObj) {
    if (!(newObj instanceof Node node) || (oldObj != null && !(oldObj instanceof Node))) {
      LOG.debug("unexpected objects for a node event: {}, {}", oldObj, newObj);
      return QueueingHint.QUEUE;
    }
    PodInfo target = PodInfo.of(pod);
    if (target.parseError().isPresent()) {
      return QueueingHint.QUEUE;
    }
    Map<String, String> labels = AffinityTerms.labels(node);
    for (AffinityTerm term : target.requiredAffinityTerms()) {
      if (labels.containsKey(term.topologyKey())) {
        return QueueingHint.QUEUE;
      }
    }
    for (AffinityTerm term : target.requiredAntiAffinityTerms()) {
      if (labels.containsKey(term.topologyKey())) {
        return QueueingHint.QUEUE;
      }
    }
    return QueueingHint.QUEUE_SKIP;
  }

  private static boolean unassigned(Pod pod) {
    return pod.getSpec() == null || pod.getSpec().getNodeName() == null
        || pod.getSpec().getNodeName().isEmpty();
  }
}
