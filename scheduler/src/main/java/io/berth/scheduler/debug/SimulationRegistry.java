package io.berth.scheduler.debug;

import io.berth.framework.PluginFactory;
import io.berth.framework.runtime.Registry;
import io.berth.plugins.capacityscheduling.CapacityScheduling;
import io.berth.plugins.coscheduling.Coscheduling;
import io.berth.plugins.coscheduling.GroupResolver;
import io.berth.plugins.coscheduling.PodGroupLister;
import io.berth.plugins.topologyplacement.TopologyPlacement;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The registry a {@link Simulation} call builds its profiles from: the scheduler's own, except that the plugins
 * which read cluster objects through informers of their own read the live daemon's instead, without starting
 * anything or registering a listener:
 * <ul>
 *   <li>{@value Coscheduling#NAME} and {@value TopologyPlacement#NAME} read the PodGroups of the daemon's shared
 *   {@link GroupResolver} ({@link GroupResolver#existing}); Coscheduling's group timers run on the call's own
 *   executor, shut down with the call;</li>
 *   <li>{@value CapacityScheduling#NAME} works on a copy of the live plugin's quota book
 *   ({@link CapacityScheduling#copyOf}), so a simulated Reserve charges only the copy.</li>
 * </ul>
 * When the daemon runs no such plugin (a request's configuration enables one the scheduler's does not), the plugin
 * is built without that state (no PodGroups; no ElasticQuotas, so every namespace is unbounded) and a note saying
 * so goes into the call's result. Without a client (an in-process embedding) the scheduler's registry is used as
 * it is. Immutable; {@link #forCall} is thread-safe, each call's registry and notes belong to that call.
 */
public final class SimulationRegistry {
  /** No live daemon: the scheduler's factories, unchanged. */
  static final SimulationRegistry NONE = new SimulationRegistry(null);

  private final KubernetesClient client;

  /** @param client the daemon's client, whose plugins' state simulations read (null: none) */
  public SimulationRegistry(KubernetesClient client) {
    this.client = client;
  }

  /**
   * {@code base} with the three factories above replaced (those {@code base} has), for one call whose timers are
   * {@code timers}; the notes of plugins built without live state are added to {@code notes} (by the thread that
   * builds the call's profiles).
   */
  Registry forCall(Registry base, ScheduledExecutorService timers, Collection<String> notes) {
    Objects.requireNonNull(base, "base");
    if (client == null) {
      return base;
    }
    Map<String, PluginFactory> overrides = Map.of(
        Coscheduling.NAME, (args, handle) -> Coscheduling.create(args, handle,
            groups(Coscheduling.NAME, notes), timers),
        TopologyPlacement.NAME, (args, handle) -> TopologyPlacement.create(args, handle,
            groups(TopologyPlacement.NAME, notes)),
        CapacityScheduling.NAME, (args, handle) -> {
          Optional<CapacityScheduling> live = CapacityScheduling.live(client);
          if (live.isPresent()) {
            return CapacityScheduling.copyOf(live.get(), args, handle);
          }
          note(notes, CapacityScheduling.NAME + ": the scheduler runs no " + CapacityScheduling.NAME
              + ", so no ElasticQuotas are known; every namespace is simulated as unbounded");
          return base.get(CapacityScheduling.NAME).orElseThrow().create(args, handle);
        });
    Registry out = new Registry();
    for (String name : base.names()) {
      PluginFactory factory = overrides.get(name);
      out.register(name, factory != null ? factory : base.get(name).orElseThrow());
    }
    return out;
  }

  private PodGroupLister groups(String plugin, Collection<String> notes) {
    Optional<GroupResolver> live = GroupResolver.existing(client);
    if (live.isPresent()) {
      return live.get();
    }
    note(notes, plugin + ": the scheduler watches no PodGroups (it runs neither " + Coscheduling.NAME + " nor "
        + TopologyPlacement.NAME + "), so every pod's PodGroup is simulated as missing");
    return PodGroupLister.EMPTY;
  }

  private static void note(Collection<String> notes, String note) {
    if (!notes.contains(note)) {
      notes.add(note);
    }
  }
}
