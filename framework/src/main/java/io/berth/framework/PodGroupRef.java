package io.berth.framework;

import java.util.Objects;

/**
 * A pod group as the scheduler sees it: the group's namespace and name and how many of its pods
 * must be placed together ({@code minMember}, or {@code minCount} of the Workload API). Immutable.
 */
public record PodGroupRef(String namespace, String name, int minMember) {
  public PodGroupRef {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
  }

  /** {@code namespace/name}, as messages name the group. */
  public String key() {
    return namespace + "/" + name;
  }
}
