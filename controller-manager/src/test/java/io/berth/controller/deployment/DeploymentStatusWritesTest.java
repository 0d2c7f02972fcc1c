package io.berth.controller.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.controller.ControllerIndexes;
import io.berth.controller.RecordingEventRecorder;
import io.berth.controller.WallClock;
import io.berth.informer.Cache;
import io.berth.informer.Indexer;
import io.berth.informer.Lister;
import io.berth.informer.ThreadSafeStore;
import io.berth.workqueue.FakeClock;
import io.berth.workqueue.RateLimiters;
import io.berth.workqueue.RateLimitingQueue;
import io.berth.workqueue.WorkQueues;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A Deployment sync that runs before the informer has delivered the controller's own last status write writes over
 * that write, not over the informer's older copy: against a fake API server that refuses a stale resourceVersion
 * with 409, as kube-apiserver does.
 */
class DeploymentStatusWritesTest {

  private final FakeClock clock = new FakeClock();
  private final ThreadSafeStore<Deployment> deploymentStore = new ThreadSafeStore<>(Map.of(
      Indexer.NAMESPACE_INDEX, Cache::metaNamespaceIndex));
  private final ThreadSafeStore<ReplicaSet> rsStore = new ThreadSafeStore<>(Map.of(
      Indexer.NAMESPACE_INDEX, Cache::metaNamespaceIndex));
  private final ThreadSafeStore<Pod> podStore = new ThreadSafeStore<>(Map.of(
      Indexer.NAMESPACE_INDEX, Cache::metaNamespaceIndex,
      ControllerIndexes.POD_CONTROLLER_UID_INDEX, ControllerIndexes.byPodControllerUid()));
  private final VersionedApi api = new VersionedApi();
  private final RateLimitingQueue<String> queue = WorkQueues.newRateLimitingQueue("deployment",
      RateLimiters.<String>defaultControllerRateLimiter(clock), clock, io.berth.workqueue.MetricsProvider.NOOP);
  private final DeploymentSync sync = new DeploymentSync(new Lister<>(deploymentStore), new Lister<>(rsStore),
      podStore, api, (ns, name, patch) -> {
      }, new RecordingEventRecorder(), WallClock.anchored(clock, Fixtures.T0), queue);

  @AfterEach
  void stop() {
    queue.shutDown();
  }

  /** Deployments and ReplicaSets in a map; a status write must carry the stored resourceVersion. */
  private static final class VersionedApi implements DeploymentApi {
    final Map<String, Deployment> deployments = new java.util.concurrent.ConcurrentHashMap<>();
    final List<ReplicaSet> created = new CopyOnWriteArrayList<>();
    final List<String> statusWriteVersions = new CopyOnWriteArrayList<>();

    @Override
    public Optional<Deployment> get(String namespace, String name) {
      return Optional.ofNullable(deployments.get(namespace + "/" + name));
    }

    @Override
    public ReplicaSet createReplicaSet(ReplicaSet rs) {
      ReplicaSet stored = new ReplicaSetBuilder(rs).editMetadata().withUid("uid-" + rs.getMetadata().getName())
          .withResourceVersion("1").endMetadata().build();
      created.add(stored);
      return stored;
    }

    @Override
    public ReplicaSet updateReplicaSet(ReplicaSet rs) {
      return rs;
    }

    @Override
    public void deleteReplicaSet(ReplicaSet rs) {
    }

    @Override
    public synchronized Deployment updateStatus(Deployment d) {
      String key = d.getMetadata().getNamespace() + "/" + d.getMetadata().getName();
      Deployment stored = deployments.get(key);
      statusWriteVersions.add(d.getMetadata().getResourceVersion());
      if (!stored.getMetadata().getResourceVersion().equals(d.getMetadata().getResourceVersion())) {
        throw new KubernetesClientException("Operation cannot be fulfilled on deployments.apps \""
            + d.getMetadata().getName() + "\": the object has been modified", 409, null);
      }
      Deployment written = new DeploymentBuilder(d).editMetadata().withResourceVersion(
          String.valueOf(Long.parseLong(stored.getMetadata().getResourceVersion()) + 1)).endMetadata().build();
      deployments.put(key, written);
      return written;
    }
  }

  @Test
  void theSecondSyncWritesOverTheFirstSyncsStatusWriteAndMeetsNoConflict() throws Exception {
    Deployment d = new DeploymentBuilder(Fixtures.rolling(2, 1, 0)).editMetadata().withResourceVersion("1")
        .endMetadata().build();
    deploymentStore.add(d);
    api.deployments.put("default/foo", d);

    sync.sync("default/foo");
    assertThat(api.created).hasSize(1);
    assertThat(api.statusWriteVersions).isNotEmpty();
    String afterFirst = api.deployments.get("default/foo").getMetadata().getResourceVersion();
    assertThat(afterFirst).isNotEqualTo("1");

    // the informer shows the new ReplicaSet, now with two available replicas, but still the Deployment at version 1
    ReplicaSet created = api.created.get(0);
    rsStore.add(new ReplicaSetBuilder(created).withNewStatus().withReplicas(2).withReadyReplicas(2)
        .withAvailableReplicas(2).withFullyLabeledReplicas(2).withObservedGeneration(1L).endStatus().build());
    int writesBefore = api.statusWriteVersions.size();
    sync.sync("default/foo");

    List<String> second = new ArrayList<>(api.statusWriteVersions.subList(writesBefore,
        api.statusWriteVersions.size()));
    assertThat(second).as("the status of two available replicas is written").isNotEmpty()
        .as("over the version our own first sync wrote, never the informer's stale 1").doesNotContain("1");
    assertThat(api.deployments.get("default/foo").getStatus().getAvailableReplicas()).isEqualTo(2);
  }
}
