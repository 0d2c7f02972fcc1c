package io.berth.plugins.coscheduling;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * What QueueSort reads of a pod on every comparison, derived once per pod object instead: the group it names
 * ({@link GroupRef#of(Pod)}) and its {@code namespace/name}; and, once its PodGroup has been looked up, that PodGroup
 * object and its {@code namespace/name}, reused while the lister keeps handing out the very same object (the informer's
 * parse cache does, per resourceVersion; a changed PodGroup is a new object, so its key is derived again). The queue's
 * heap compares a pod with a dozen others per push and pop, so this saves a label lookup, a ref and four string
 * concatenations per comparison; the PodGroup itself is still looked up every time, so a change to it (or its
 * deletion) orders the pod accordingly at once, exactly as before.
 *
 * <p>Sound because a pod the scheduler sees is never mutated: any change is a new object (see
 * {@link io.berth.framework.PodInfo}). Keyed by the pod's identity in a small direct-mapped table, like
 * {@code PodInfo.of}'s: a collision evicts, a miss costs deriving the key again, so the table bounds memory whatever
 * the queue holds. Thread-safe without locks: racy on purpose, entries are immutable with final fields, so a reader
 * sees a whole entry (its own pod's, checked by identity) or another pod's, which it ignores.
 */
final class SortKeys {
  /** Table size: a power of two, larger than the comparisons' working set of one heap operation. */
  static final int SIZE = 1024;

  /**
   * One pod's derived sort fields. Immutable.
   *
   * @param pod the pod object the entry was derived from (compared by identity)
   * @param ref the group the pod names, or null for none
   * @param podKey {@code namespace/name} of the pod, as the tiebreak compares it
   * @param group the PodGroup last resolved for {@code ref} (compared by identity), or null
   * @param groupKey {@code group.key()}, or null when {@code group} is
   */
  record Key(Pod pod, GroupRef ref, String podKey, PodGroup group, String groupKey) {

    /** This entry with {@code resolved} as its PodGroup and that group's key. */
    Key resolved(PodGroup resolved) {
      return new Key(pod, ref, podKey, resolved, resolved.key());
    }
  }

  private final Key[] table = new Key[SIZE];

  /** The entry of {@code pod}, derived when the table holds none for this very object. */
  Key of(Pod pod) {
    int slot = slot(pod);
    Key k = table[slot];
    if (k != null && k.pod() == pod) {
      return k;
    }
    k = new Key(pod, GroupRef.of(pod).orElse(null),
        pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName(), null, null);
    table[slot] = k;
    return k;
  }

  /**
   * {@code group.key()} for {@code k}'s pod: the remembered one when {@code group} is the object {@code k} was
   * resolved to, else derived and remembered.
   */
  String groupKey(Key k, PodGroup group) {
    if (k.group() == group) {
      return k.groupKey();
    }
    Key resolved = k.resolved(group);
    int slot = slot(k.pod());
    if (table[slot] == k) {
      table[slot] = resolved;
    }
    return resolved.groupKey();
  }

  private static int slot(Pod pod) {
    return System.identityHashCode(pod) & (SIZE - 1);
  }
}
