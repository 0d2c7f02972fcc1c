package io.berth.controller;

import io.berth.component.DaemonSettings;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What the controller manager runs: the shared daemon settings, the enabled controllers and each one's number of
 * workers ({@code --concurrent-<name>-syncs}). Immutable.
 *
 * @param daemon port, client, leader election
 * @param controllers the enabled controllers, by registry name
 * @param concurrentSyncs workers per controller name; controllers without an entry get
 *     {@link #DEFAULT_CONCURRENT_SYNCS}
 */
public record ControllerManagerSettings(DaemonSettings daemon, SortedSet<String> controllers,
    Map<String, Integer> concurrentSyncs) {

  /** kube-controller-manager's default for every {@code --concurrent-*-syncs} flag. */
  public static final int DEFAULT_CONCURRENT_SYNCS = 5;

  public ControllerManagerSettings {
    Objects.requireNonNull(daemon, "daemon");
    controllers = Collections.unmodifiableSortedSet(new TreeSet<>(controllers));
    concurrentSyncs = Map.copyOf(concurrentSyncs);
  }

  /** The number of workers of controller {@code name}. */
  public int workers(String name) {
    return concurrentSyncs.getOrDefault(name, DEFAULT_CONCURRENT_SYNCS);
  }
}
