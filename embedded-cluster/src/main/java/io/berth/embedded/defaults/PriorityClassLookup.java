package io.berth.embedded.defaults;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The PriorityClasses visible to the priority admission step of a pod create. The embedded API server
 * implements it over its store (kube-apiserver uses a PriorityClass lister); implementations must be
 * safe to call from the request thread. The static factories return immutable, thread-safe lookups.
 */
public interface PriorityClassLookup {

  /** The class named {@code name}, if it exists. */
  Optional<PriorityClassInfo> byName(String name);

  /**
   * The class pods without {@code priorityClassName} get. When several are marked
   * {@code globalDefault} (a race upstream tolerates), the one with the lowest value wins.
   */
  Optional<PriorityClassInfo> globalDefault();

  /** A lookup over no classes at all: unnamed pods get priority 0. */
  static PriorityClassLookup none() {
    return of(List.of());
  }

  /** A lookup over a fixed set of classes (copied). */
  static PriorityClassLookup of(Collection<PriorityClassInfo> classes) {
    Map<String, PriorityClassInfo> byName = classes.stream()
        .collect(Collectors.toUnmodifiableMap(PriorityClassInfo::name, Function.identity(), (a, b) -> b));
    Optional<PriorityClassInfo> globalDefault = byName.values().stream()
        .filter(PriorityClassInfo::globalDefault)
        .min(Comparator.comparingInt(PriorityClassInfo::value));
    return new PriorityClassLookup() {
      @Override
      public Optional<PriorityClassInfo> byName(String name) {
        return Optional.ofNullable(byName.get(name));
      }

      @Override
      public Optional<PriorityClassInfo> globalDefault() {
        return globalDefault;
      }
    };
  }

  /** The two classes kube-apiserver bootstraps, {@code system-cluster-critical} and {@code system-node-critical}. */
  static PriorityClassLookup systemClasses() {
    return of(List.of(PriorityClassInfo.SYSTEM_CLUSTER_CRITICAL, PriorityClassInfo.SYSTEM_NODE_CRITICAL));
  }
}
