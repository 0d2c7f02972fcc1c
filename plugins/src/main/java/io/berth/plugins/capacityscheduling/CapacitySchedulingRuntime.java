package io.berth.plugins.capacityscheduling;

import io.berth.framework.Handle;
import io.berth.plugins.coscheduling.PodGroup;
import io.berth.plugins.coscheduling.PodGroupLister;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Wires a {@link CapacityScheduling} to the cluster: its handler on the scheduler's pod informer, informers of
 * ElasticQuotas and PodGroups over the handle's client, and a daemon timer that runs the {@link UsedStatusWriter}
 * every {@code statusUpdatePeriodSeconds} (once everything is listed and this instance has run a scheduling cycle,
 * so a standby replica does not write) and activates the held pods once everything is listed. Without a client
 * (a configuration only validated) there are no informers and the plugin never writes. The first plugin started
 * over a client is the one {@link CapacityScheduling#live} finds. Stateless; what it starts lives as long as the
 * process.
 */
final class CapacitySchedulingRuntime {
  static final ResourceDefinitionContext QUOTAS =
      CustomResourceInformer.context(ElasticQuota.KIND, ElasticQuota.PLURAL);
  static final ResourceDefinitionContext POD_GROUPS = CustomResourceInformer.context(PodGroup.KIND, "podgroups");

  private CapacitySchedulingRuntime() {}

  static CapacityScheduling start(CapacitySchedulingArgs args, Handle handle) {
    Optional<KubernetesClient> client;
    try {
      client = Optional.of(handle.client());
    } catch (IllegalStateException noClient) {
      client = Optional.empty();
    }
    QuotaBook book = new QuotaBook();
    PodGroupLister groups = client.<PodGroupLister>map(c -> new PodGroupReader(new CustomResourceInformer(c,
        POD_GROUPS, new ResourceEventHandler<>() {
          @Override
          public void onAdd(GenericKubernetesResource obj) {}

          @Override
          public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {}

          @Override
          public void onDelete(GenericKubernetesResource obj, boolean deletedFinalStateUnknown) {}
        }))).orElse(PodGroupLister.EMPTY);
    CapacityScheduling plugin = new CapacityScheduling(args, handle, book, groups, handle.lister(Pod.class));
    BooleanSupplier podsSynced = handle.addEventHandler(Pod.class, plugin.podHandler());
    if (client.isEmpty()) {
      return plugin;
    }
    KubernetesClient c = client.get();
    CapacityScheduling.registerLive(c, plugin);
    CustomResourceInformer quotas = new CustomResourceInformer(c, QUOTAS, new ResourceEventHandler<>() {
      @Override
      public void onAdd(GenericKubernetesResource obj) {
        plugin.quotaChanged(obj);
      }

      @Override
      public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
        plugin.quotaChanged(newObj);
      }

      @Override
      public void onDelete(GenericKubernetesResource obj, boolean deletedFinalStateUnknown) {
        plugin.quotaDeleted(obj);
      }
    });
    BooleanSupplier synced = () -> quotas.hasSynced() && podsSynced.getAsBoolean();
    plugin.setSynced(synced);
    UsedStatusWriter writer = new UsedStatusWriter(book, (quota, used) -> c.genericKubernetesResources(QUOTAS)
        .inNamespace(quota.namespace()).withName(quota.name()).subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), c.getKubernetesSerialization().asJson(Map.of("status",
            Map.of("used", used)))), handle.pluginMetrics(), () -> synced.getAsBoolean() && plugin.scheduling());
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "capacityscheduling-status");
      t.setDaemon(true);
      return t;
    });
    AtomicBoolean activated = new AtomicBoolean();
    timer.scheduleWithFixedDelay(() -> {
      if (synced.getAsBoolean() && activated.compareAndSet(false, true)) {
        plugin.activateRejected();
      }
      writer.run();
    }, 0, args.statusUpdatePeriodSeconds(), TimeUnit.SECONDS);
    return plugin;
  }

  /** PodGroups as Coscheduling parses them, from this plugin's own informer; read-only. */
  private record PodGroupReader(CustomResourceInformer informer) implements PodGroupLister {
    @Override
    public Optional<PodGroup> get(String namespace, String name) {
      return informer.get(namespace, name).map(PodGroup::from);
    }
  }
}
