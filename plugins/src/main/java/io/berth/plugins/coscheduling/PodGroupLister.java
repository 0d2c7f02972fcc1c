package io.berth.plugins.coscheduling;

import java.util.Optional;

/**
 * Read access to the cached PodGroups. {@link #get} is empty when the PodGroup does not exist and throws
 * {@link IllegalArgumentException} naming the PodGroup and field when it exists but is malformed, so that only its
 * own pods are held. {@link #get(String, String)} reads scheduler-plugins' PodGroups; {@link #get(GroupRef)} either
 * API (by default it knows only scheduler-plugins'; {@link GroupResolver} knows both). Implementations are
 * thread-safe and never block (QueueSort and PreEnqueue call them under the scheduling queue's lock).
 */
public interface PodGroupLister {

  /** A lister that knows no PodGroups (configuration validation without a cluster). */
  PodGroupLister EMPTY = (namespace, name) -> Optional.empty();

  /** The scheduler-plugins PodGroup {@code namespace/name}. */
  Optional<PodGroup> get(String namespace, String name);

  /** The group {@code ref} names, in its API. */
  default Optional<PodGroup> get(GroupRef ref) {
    return ref.api() == GroupRef.Api.SCHEDULER_PLUGINS ? get(ref.namespace(), ref.name()) : Optional.empty();
  }
}
