package io.berth.plugins.volumebinding;

import static io.berth.plugins.volumebinding.VolumeFixtures.HOSTNAME;
import static io.berth.plugins.volumebinding.VolumeFixtures.node;
import static io.berth.plugins.volumebinding.VolumeFixtures.podWithClaims;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.ObjectLister;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * VolumeBinding's whole cycle against the embedded API server, where no PV controller runs:
 * PreBind itself must leave the volume and the claim bound to each other.
 */
class VolumeBindingPreBindIT {
  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();
  private static final NodeInfo NODE_A = NodeInfo.of(node("node-a"));

  @BeforeAll
  static void classes() {
    KubernetesClient c = CLUSTER.client();
    c.resource(VolumeFixtures.storageClass("local-it", "WaitForFirstConsumer",
        "kubernetes.io/no-provisioner")).create();
    c.resource(VolumeFixtures.storageClass("csi-it", "WaitForFirstConsumer", "example.com/csi"))
        .create();
  }

  /** Creates an available local volume on node-a, as an admin and the PV controller would. */
  private static PersistentVolume availableVolume(String name) {
    KubernetesClient c = CLUSTER.client();
    PersistentVolume created = c.persistentVolumes().resource(VolumeFixtures.pv(name, "local-it")
        .capacity("5Gi").accessModes("ReadWriteOnce").nodeAffinity(HOSTNAME, "node-a").build())
        .create();
    return c.persistentVolumes().resource(new PersistentVolumeBuilder(created).editOrNewStatus()
        .withPhase("Available").endStatus().build()).updateStatus();
  }

  private static PersistentVolumeClaim claim(String name, String className) {
    return CLUSTER.client().persistentVolumeClaims().inNamespace("default").resource(
        new PersistentVolumeClaimBuilder().withNewMetadata().withName(name).endMetadata()
            .withNewSpec().withStorageClassName(className).withAccessModes("ReadWriteOnce")
            .withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources()
            .endSpec().build()).create();
  }

  private static CycleState reserved(VolumeBinding plugin, Pod pod) {
    CycleState state = new CycleState();
    assertThat(plugin.preFilter(state, pod, List.of(NODE_A)).status()).isEqualTo(Status.SUCCESS);
    assertThat(plugin.filter(state, pod, NODE_A)).isEqualTo(Status.SUCCESS);
    assertThat(plugin.reserve(state, pod, "node-a")).isEqualTo(Status.SUCCESS);
    return state;
  }

  @Test
  void preBindBindsTheVolumeAndTheClaimToEachOther() {
    KubernetesClient c = CLUSTER.client();
    availableVolume("pv-bind");
    PersistentVolumeClaim pvc = claim("pvc-bind", "local-it");
    VolumeBinding plugin = VolumeBinding.create(Map.of("bindTimeoutSeconds", 30),
        new ClientHandle(c), Pacer.SYSTEM);
    Pod pod = podWithClaims("pod-bind", "pvc-bind");
    CycleState state = reserved(plugin, pod);

    assertThat(plugin.preBind(state, pod, "node-a")).isEqualTo(Status.SUCCESS);

    PersistentVolume pv = c.persistentVolumes().withName("pv-bind").get();
    assertThat(pv.getSpec().getClaimRef().getName()).isEqualTo("pvc-bind");
    assertThat(pv.getSpec().getClaimRef().getNamespace()).isEqualTo("default");
    assertThat(pv.getSpec().getClaimRef().getUid()).isEqualTo(pvc.getMetadata().getUid());
    assertThat(pv.getMetadata().getAnnotations())
        .containsEntry(VolumeHelpers.ANN_BOUND_BY_CONTROLLER, "yes");
    assertThat(pv.getStatus().getPhase()).isEqualTo("Bound");
    PersistentVolumeClaim bound = c.persistentVolumeClaims().inNamespace("default")
        .withName("pvc-bind").get();
    assertThat(bound.getSpec().getVolumeName()).isEqualTo("pv-bind");
    assertThat(bound.getMetadata().getAnnotations())
        .containsEntry(VolumeHelpers.ANN_BIND_COMPLETED, "yes")
        .containsEntry(VolumeHelpers.ANN_BOUND_BY_CONTROLLER, "yes");
    assertThat(bound.getStatus().getPhase()).isEqualTo("Bound");
    assertThat(bound.getStatus().getCapacity().get("storage")).isEqualTo(new Quantity("5Gi"));

    // the next cycle sees the claim bound and the volume taken
    Pod again = podWithClaims("pod-again", "pvc-bind");
    CycleState next = reserved(plugin, again);
    assertThat(plugin.preBind(next, again, "node-a")).isEqualTo(Status.SUCCESS);
    claim("pvc-other", "local-it");
    CycleState other = new CycleState();
    Pod otherPod = podWithClaims("pod-other", "pvc-other");
    plugin.preFilter(other, otherPod, List.of(NODE_A));
    assertThat(plugin.filter(other, otherPod, NODE_A))
        .isEqualTo(Status.unresolvable(VolumeBinding.ERR_REASON_BIND_CONFLICT));
  }

  @Test
  void preBindFailsWhenTheVolumeChangedAfterReserve() {
    KubernetesClient c = CLUSTER.client();
    availableVolume("pv-stale");
    claim("pvc-stale", "local-it");
    VolumeBinding plugin = VolumeBinding.create(Map.of(), new ClientHandle(c), Pacer.SYSTEM);
    Pod pod = podWithClaims("pod-stale", "pvc-stale");
    CycleState state = reserved(plugin, pod);
    PersistentVolume current = c.persistentVolumes().withName("pv-stale").get();
    c.persistentVolumes().resource(new PersistentVolumeBuilder(current).editMetadata()
        .addToLabels("touched", "yes").endMetadata().build()).update();

    Status s = plugin.preBind(state, pod, "node-a");
    plugin.unreserve(state, pod, "node-a");

    assertThat(s.code()).isEqualTo(Code.ERROR);
    assertThat(c.persistentVolumes().withName("pv-stale").get().getSpec().getClaimRef()).isNull();
    assertThat(c.persistentVolumeClaims().inNamespace("default").withName("pvc-stale").get()
        .getSpec().getVolumeName()).isNull();
    // the volume is free again for the retry
    CycleState retry = reserved(plugin, pod);
    assertThat(plugin.preBind(retry, pod, "node-a")).isEqualTo(Status.SUCCESS);
  }

  @Test
  void preBindOnlyAnnotatesClaimsToProvision() {
    KubernetesClient c = CLUSTER.client();
    claim("pvc-provision", "csi-it");
    VolumeBinding plugin = VolumeBinding.create(Map.of(), new ClientHandle(c), Pacer.SYSTEM);
    Pod pod = podWithClaims("pod-provision", "pvc-provision");
    CycleState state = reserved(plugin, pod);

    assertThat(plugin.preBind(state, pod, "node-a")).isEqualTo(Status.SUCCESS);

    PersistentVolumeClaim pvc = c.persistentVolumeClaims().inNamespace("default")
        .withName("pvc-provision").get();
    assertThat(pvc.getMetadata().getAnnotations())
        .containsEntry(VolumeHelpers.ANN_SELECTED_NODE, "node-a");
    assertThat(pvc.getSpec().getVolumeName()).isNull();
  }

  @Test
  void preBindTimesOutWhileTheClaimNeverShowsBound() {
    KubernetesClient c = CLUSTER.client();
    availableVolume("pv-lag");
    PersistentVolumeClaim unbound = claim("pvc-lag", "local-it");
    // an informer that never catches up: the claim always looks as it did before binding
    ObjectLister<PersistentVolumeClaim> live =
        ClientHandle.clientLister(c, PersistentVolumeClaim.class);
    ObjectLister<PersistentVolumeClaim> stale = new ObjectLister<>() {
      @Override
      public List<PersistentVolumeClaim> list() {
        return live.list();
      }

      @Override
      public List<PersistentVolumeClaim> list(String namespace) {
        return live.list(namespace);
      }

      @Override
      public Optional<PersistentVolumeClaim> get(String namespace, String name) {
        return name.equals("pvc-lag") ? Optional.of(unbound) : live.get(namespace, name);
      }
    };
    ClientHandle lagging = new ClientHandle(c, Map.of(PersistentVolumeClaim.class, stale));
    AtomicLong now = new AtomicLong();
    AtomicLong sleeps = new AtomicLong();
    Pacer manual = new Pacer() {
      @Override
      public long nanoTime() {
        return now.get();
      }

      @Override
      public void sleep(Duration d) {
        sleeps.incrementAndGet();
        now.addAndGet(d.toNanos());
      }
    };
    VolumeBinding plugin = VolumeBinding.create(Map.of("bindTimeoutSeconds", 2), lagging, manual);
    Pod pod = podWithClaims("pod-lag", "pvc-lag");
    CycleState state = reserved(plugin, pod);

    Status s = plugin.preBind(state, pod, "node-a");

    assertThat(s).isEqualTo(Status.error("binding volumes: timed out waiting for the condition"));
    assertThat(sleeps.get()).isEqualTo(Duration.ofSeconds(2).dividedBy(
        BindingWriter.POLL_INTERVAL));
  }
}
