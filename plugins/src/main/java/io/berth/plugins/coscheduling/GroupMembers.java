package io.berth.plugins.coscheduling;

import io.berth.framework.Handle;
import io.berth.framework.ObjectIndex;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;

/**
 * The pods of each group, from an index over the scheduler's pod informer ({@link Handle#index}) filed under
 * {@code namespace/name} of the group the pod names in either API ({@link GroupRef#of(Pod)}), so that member
 * counting, PreFilter, Permit and activation look at the group's own pods instead of every pod of the namespace.
 * A pod's group never changes for the Workload API (the spec field is immutable); a relabelled scheduler-plugins pod
 * is re-filed by the informer on its update. Thread-safe: the index is the informer's, read under its lock.
 */
final class GroupMembers {
  /** The name of the index on the pod informer. */
  static final String INDEX = "coscheduling.berth.io/pod-group";

  private final ObjectIndex<Pod> index;

  GroupMembers(ObjectIndex<Pod> index) {
    this.index = index;
  }

  /** Asks {@code handle} for the index; call it from the plugin factory, before the informers start. */
  static GroupMembers of(Handle handle) {
    return new GroupMembers(handle.index(Pod.class, INDEX, GroupMembers::keys));
  }

  /** The index function: a pod is filed under {@code namespace/name} of its group, if it names one. */
  static List<String> keys(Pod pod) {
    return GroupRef.of(pod).map(r -> List.of(r.key())).orElse(List.of());
  }

  /** The pods naming a group {@code namespace/name} in either API (callers filter by API where it matters). */
  List<Pod> named(String namespace, String name) {
    return index.get(namespace + "/" + name);
  }

  /** The pods of {@code group} in its own API. */
  List<Pod> of(GroupRef group) {
    List<Pod> out = new ArrayList<>();
    for (Pod p : named(group.namespace(), group.name())) {
      if (GroupRef.of(p).map(group::equals).orElse(false)) {
        out.add(p);
      }
    }
    return out;
  }
}
