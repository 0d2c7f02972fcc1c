package io.berth.controller.replicaset;

import static io.berth.controller.replicaset.Workloads.create;
import static io.berth.controller.replicaset.Workloads.get;
import static io.berth.controller.replicaset.Workloads.orZero;
import static io.berth.controller.replicaset.Workloads.replicaSet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.controller.BatchGate;
import io.berth.controller.PodControl;
import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.embedded.kubelet.KubeletSettings;
import io.berth.embedded.server.ResourceTypes;
import io.berth.informer.ResourceEventHandler;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scaling to many pods: slow-start batches, the burst cap, and expectations keeping every pod created once, also
 * when creations fail and when the informer reports pods late. No binder: the pods stay Pending, which is enough.
 * Each test runs its own controller over its own namespace.
 */
class ReplicaSetScaleIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .kubelet(KubeletSettings.defaults().withStartupDelay(Duration.ZERO)
          .withTerminationDelay(Duration.ofMillis(100))));

  private static void namespace(String name) {
    CLUSTER.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata()
        .build()).create();
  }

  private static long podsInStore(String namespace) {
    return CLUSTER.cluster().store().list(ResourceTypes.PODS, namespace, o -> true).items().stream()
        .filter(o -> !o.terminating()).count();
  }

  private static long podCreatesLogged(String namespace) {
    return CLUSTER.cluster().requestLog().entries(r -> r.verb().equals("create") && r.resourcePath().equals("pods")
        && r.namespace().equals(namespace)).size();
  }

  private static int statusReplicas(String namespace, String name) {
    ReplicaSetStatus status = get(CLUSTER.client(), namespace, name).getStatus();
    return status == null ? 0 : orZero(status.getReplicas());
  }

  /** Slow start from 1, doubling, capped at {@code burst} per sync. */
  private static List<Integer> slowStartBatches(int total, int burst) {
    List<Integer> batches = new ArrayList<>();
    for (int left = total; left > 0; left -= Math.min(left, burst)) {
      int round = Math.min(left, burst);
      for (int size = 1; round > 0; size *= 2) {
        batches.add(Math.min(size, round));
        round -= Math.min(size, round);
      }
    }
    return batches;
  }

  /** Passes every creation through the gate first. */
  private static UnaryOperator<PodControl> gated(BatchGate gate) {
    return delegate -> new PodControl() {
      @Override
      public void createPods(String namespace, PodTemplateSpec template, HasMetadata owner, OwnerReference ref) {
        try {
          gate.arrive();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
        delegate.createPods(namespace, template, owner, ref);
      }

      @Override
      public void deletePod(String namespace, String podName, HasMetadata owner) {
        delegate.deletePod(namespace, podName, owner);
      }

      @Override
      public void patchPod(String namespace, String name, String patch) {
        delegate.patchPod(namespace, name, patch);
      }
    };
  }

  /** Delivers every pod notification {@code delay} late, in order. */
  private static UnaryOperator<ResourceEventHandler<Pod>> delayed(ScheduledExecutorService delayer, Duration delay) {
    long ms = delay.toMillis();
    return handler -> new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod pod, boolean initial) {
        delayer.schedule(() -> handler.onAdd(pod, initial), ms, TimeUnit.MILLISECONDS);
      }

      @Override
      public void onUpdate(Pod oldPod, Pod pod) {
        delayer.schedule(() -> handler.onUpdate(oldPod, pod), ms, TimeUnit.MILLISECONDS);
      }

      @Override
      public void onDelete(Pod pod, boolean unknown) {
        delayer.schedule(() -> handler.onDelete(pod, unknown), ms, TimeUnit.MILLISECONDS);
      }
    };
  }

  @Test
  void scalingToAThousandCreatesEveryPodOnceInGrowingBatchesOfAtMostFiveHundred() throws Exception {
    String ns = "thousand";
    namespace(ns);
    List<Integer> expected = slowStartBatches(1000, ReplicaSetController.BURST_REPLICAS);
    assertThat(expected).startsWith(1, 2, 4, 8, 16, 32, 64, 128, 245, 1, 2);
    BatchGate gate = new BatchGate(expected, Duration.ofSeconds(60));
    try (ControllerHarness harness = ControllerHarness.start(CLUSTER.cluster(), false, gated(gate),
        UnaryOperator.identity())) {
      create(CLUSTER.client(), replicaSet(ns, "big", 1000).build());
      await().atMost(120, TimeUnit.SECONDS).until(() -> statusReplicas(ns, "big") == 1000);
      assertThat(gate.violation()).isEmpty();
      assertThat(gate.observed()).isEqualTo(expected);
      await().atMost(30, TimeUnit.SECONDS).until(() -> harness.controller.expectations()
          .satisfiedExpectations(ns + "/big"));
      assertThat(podsInStore(ns)).isEqualTo(1000);
      assertThat(podCreatesLogged(ns)).isEqualTo(1000);
      assertThat(harness.controller.expectations().get(ns + "/big").orElseThrow().add()).isZero();
    }
  }

  @Test
  void failedCreationsAndLateInformerEventsNeverMakeAPodTwice() throws Exception {
    String ns = "late";
    namespace(ns);
    ScheduledExecutorService delayer = Executors.newSingleThreadScheduledExecutor();
    try (ControllerHarness harness = ControllerHarness.start(CLUSTER.cluster(), false, UnaryOperator.identity(),
        delayed(delayer, Duration.ofMillis(200)))) {
      CLUSTER.cluster().faults().failNext("create", "pods", 3, 500);
      create(CLUSTER.client(), replicaSet(ns, "web", 300).build());
      await().atMost(60, TimeUnit.SECONDS).until(() -> podsInStore(ns) == 300
          && harness.controller.expectations().satisfiedExpectations(ns + "/web"));
      await().atMost(30, TimeUnit.SECONDS).until(() -> statusReplicas(ns, "web") == 300
          && get(CLUSTER.client(), ns, "web").getStatus().getConditions().isEmpty());
      // each injected failure stopped its slow start after one call; then one full round succeeded
      assertThat(podCreatesLogged(ns)).isEqualTo(303);
      assertThat(podsInStore(ns)).isEqualTo(300);
    } finally {
      delayer.shutdownNow();
      CLUSTER.cluster().faults().clear();
    }
  }
}
