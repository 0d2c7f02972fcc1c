package io.berth.plugins.coscheduling;

import java.util.Optional;

/**
 * Read access to the cached PodGroups. {@link #get} is empty when the PodGroup does not exist and throws
 * {@link IllegalArgumentException} naming the PodGroup and field when it exists but is malformed, so that only its
 * own pods are held. Implementations are thread-safe and never block (QueueSort and PreEnqueue call them under the
 * scheduling queue's lock).
 */
public interface PodGroupLister {

  /** A lister that knows no PodGroups (configuration validation without a cluster). */
  PodGroupLister EMPTY = (namespace, name) -> Optional.empty();

  Optional<PodGroup> get(String namespace, String name);
}
