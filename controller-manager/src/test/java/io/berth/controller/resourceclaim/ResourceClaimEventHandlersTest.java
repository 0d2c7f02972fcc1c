package io.berth.controller.resourceclaim;

import static io.berth.controller.resourceclaim.ResourceClaimFixtures.generatedClaim;
import static io.berth.controller.resourceclaim.ResourceClaimFixtures.onNode;
import static io.berth.controller.resourceclaim.ResourceClaimFixtures.podWithTemplate;
import static io.berth.controller.resourceclaim.ResourceClaimFixtures.withPhase;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.informer.Cache;
import io.berth.informer.Indexer;
import io.berth.informer.Lister;
import io.berth.informer.ThreadSafeStore;
import io.berth.workqueue.WorkQueue;
import io.berth.workqueue.WorkQueues;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which pod and claim events queue which keys. */
class ResourceClaimEventHandlersTest {

  private final ThreadSafeStore<Pod> podStore = new ThreadSafeStore<>(Map.of(
      Indexer.NAMESPACE_INDEX, Cache::metaNamespaceIndex,
      ResourceClaimEventHandlers.POD_RESOURCE_CLAIM_INDEX, ResourceClaimEventHandlers::podClaimKeys));
  private final ThreadSafeStore<ResourceClaim> claimStore = ThreadSafeStore.withNamespaceIndex();
  private final WorkQueue<String> queue = WorkQueues.newQueue();
  private final DeletedPods deleted = new DeletedPods(10);
  private final ResourceClaimEventHandlers handlers = new ResourceClaimEventHandlers(queue,
      new Lister<>(claimStore), podStore, deleted, new CreatedClaims());

  private List<String> drain() throws InterruptedException {
    List<String> keys = new ArrayList<>();
    while (queue.len() > 0) {
      Optional<String> key = queue.get();
      key.ifPresent(k -> {
        keys.add(k);
        queue.done(k);
      });
    }
    return keys;
  }

  @Test
  void aPodWhoseClaimIsNotCreatedYetIsQueuedAndOneWithoutClaimsIsNot() throws Exception {
    handlers.podHandler().onAdd(podWithTemplate("train", "t"), false);
    handlers.podHandler().onAdd(new PodBuilder().withNewMetadata().withName("plain").withNamespace("default")
        .withUid("u").endMetadata().withNewSpec().endSpec().build(), false);
    assertThat(drain()).containsExactly("pod:default/train");
  }

  @Test
  void aDeletedPodQueuesItsClaimsAndIsRememberedAsDeleted() throws Exception {
    Pod pod = onNode(podWithTemplate("train", "t", new PodResourceClaimStatus("gpus", "c1")), "n1");
    claimStore.add(generatedClaim("c1", pod, true, pod));
    handlers.podHandler().onDelete(pod, false);
    assertThat(drain()).containsExactly("claim:default/c1");
    assertThat(deleted.contains("uid-train")).isTrue();
  }

  @Test
  void aFinishedPodQueuesItsClaimsButNeedsNoWorkItself() throws Exception {
    Pod pod = withPhase(onNode(podWithTemplate("train", "t", new PodResourceClaimStatus("gpus", "c1")), "n1"),
        "Succeeded");
    claimStore.add(generatedClaim("c1", pod, true, pod));
    handlers.podHandler().onUpdate(pod, pod);
    assertThat(drain()).containsExactly("claim:default/c1");
  }

  @Test
  void aScheduledPodWhoseAllocatedClaimDoesNotListItNeedsWork() {
    Pod pod = onNode(podWithTemplate("train", "t", new PodResourceClaimStatus("gpus", "c1")), "n1");
    claimStore.add(generatedClaim("c1", pod, true));
    assertThat(handlers.needsWork(pod)).isTrue();
    claimStore.update(generatedClaim("c1", pod, true, pod));
    assertThat(handlers.needsWork(pod)).isFalse();
  }

  @Test
  void aClaimChangeQueuesTheClaimAndRechecksThePodsUsingIt() throws Exception {
    Pod pod = podWithTemplate("train", "t", new PodResourceClaimStatus("gpus", "c1"));
    podStore.add(pod);
    ResourceClaim claim = generatedClaim("c1", pod, false);
    handlers.claimHandler().onDelete(claim, false);
    // The claim is gone but the pod names it through its status: the pod must get it re-created.
    assertThat(drain()).containsExactly("pod:default/train");
    claimStore.add(claim);
    handlers.claimHandler().onAdd(claim, false);
    assertThat(drain()).containsExactly("claim:default/c1");
  }
}
