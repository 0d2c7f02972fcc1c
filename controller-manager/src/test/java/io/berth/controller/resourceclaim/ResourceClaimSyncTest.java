package io.berth.controller.resourceclaim;

import static io.berth.controller.resourceclaim.ResourceClaimFixtures.NS;
import static io.berth.controller.resourceclaim.ResourceClaimFixtures.generatedClaim;
import static io.berth.controller.resourceclaim.ResourceClaimFixtures.onNode;
import static io.berth.controller.resourceclaim.ResourceClaimFixtures.podWithTemplate;
import static io.berth.controller.resourceclaim.ResourceClaimFixtures.template;
import static io.berth.controller.resourceclaim.ResourceClaimFixtures.withPhase;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.controller.RecordingEventRecorder;
import io.berth.informer.Cache;
import io.berth.informer.Indexer;
import io.berth.informer.Lister;
import io.berth.informer.ThreadSafeStore;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pod and claim syncs of the resource claim controller, on in-memory listers and a fake API. */
class ResourceClaimSyncTest {

  private final ThreadSafeStore<Pod> podStore = ThreadSafeStore.withNamespaceIndex();
  private final ThreadSafeStore<ResourceClaim> claimStore = new ThreadSafeStore<>(Map.of(
      Indexer.NAMESPACE_INDEX, Cache::metaNamespaceIndex,
      ResourceClaimEventHandlers.CLAIM_POD_OWNER_INDEX, ResourceClaimEventHandlers::claimOwnerUids));
  private final ThreadSafeStore<ResourceClaimTemplate> templateStore = ThreadSafeStore.withNamespaceIndex();
  private final FakeResourceClaimApi api = new FakeResourceClaimApi();
  private final RecordingEventRecorder recorder = new RecordingEventRecorder();
  private final DeletedPods deletedPods = new DeletedPods(10);
  private final CreatedClaims createdClaims = new CreatedClaims();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ResourceClaimSync sync = new ResourceClaimSync(new Lister<>(podStore), new Lister<>(claimStore),
      new Lister<>(templateStore),
      uid -> claimStore.byIndex(ResourceClaimEventHandlers.CLAIM_POD_OWNER_INDEX, uid), api, recorder, deletedPods,
      createdClaims, new ResourceClaimMetrics(registry));

  private double creates(String status) {
    return registry.get(ResourceClaimMetrics.CREATES).tag("status", status).tag("admin_access", "false").counter()
        .count();
  }

  @Test
  void createsTheClaimFromTheTemplateOwnedByThePodAndRecordsItInThePodStatus() {
    templateStore.add(template("two-gpus"));
    podStore.add(podWithTemplate("train", "two-gpus"));

    sync.sync("pod:default/train");

    assertThat(api.claims).hasSize(1);
    ResourceClaim claim = api.claims.values().iterator().next();
    assertThat(claim.getMetadata().getGenerateName()).isEqualTo("train-gpus-");
    assertThat(claim.getMetadata().getName()).startsWith("train-gpus-");
    assertThat(claim.getMetadata().getAnnotations()).containsEntry(PodClaims.POD_CLAIM_NAME_ANNOTATION, "gpus")
        .containsEntry("note", "t");
    assertThat(claim.getMetadata().getLabels()).containsEntry("team", "ml");
    assertThat(claim.getMetadata().getOwnerReferences()).singleElement().satisfies(ref -> {
      assertThat(ref.getKind()).isEqualTo("Pod");
      assertThat(ref.getApiVersion()).isEqualTo("v1");
      assertThat(ref.getUid()).isEqualTo("uid-train");
      assertThat(ref.getController()).isTrue();
      assertThat(ref.getBlockOwnerDeletion()).isTrue();
    });
    assertThat(claim.getSpec().getDevices().getRequests().get(0).getExactly().getCount()).isEqualTo(2L);
    assertThat(api.podStatuses.get("default/train")).singleElement().satisfies(s -> {
      assertThat(s.getName()).isEqualTo("gpus");
      assertThat(s.getResourceClaimName()).isEqualTo(claim.getMetadata().getName());
    });
    assertThat(creates("success")).isEqualTo(1.0);
  }

  @Test
  void aMissingTemplateIsAWarningOnThePodAndARetry() {
    podStore.add(podWithTemplate("train", "absent"));

    assertThatThrownBy(() -> sync.sync("pod:default/train")).hasMessageContaining(
        "pod default/train, PodResourceClaim gpus: resource claim template \"absent\"");
    assertThat(recorder.withReason("FailedResourceClaimCreation")).singleElement().satisfies(e -> {
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.objectName()).isEqualTo("train");
      assertThat(e.message()).startsWith("PodResourceClaim gpus: resource claim template \"absent\"");
    });
    assertThat(api.claims).isEmpty();
  }

  @Test
  void aFailedCreateIsCountedAsAFailure() {
    templateStore.add(template("two-gpus"));
    podStore.add(podWithTemplate("train", "two-gpus"));
    api.failCreates.set(1);

    assertThatThrownBy(() -> sync.sync("pod:default/train")).hasMessageContaining("create ResourceClaim train-gpus-");
    assertThat(creates("failure")).isEqualTo(1.0);
    assertThat(creates("success")).isZero();
  }

  @Test
  void aRetryAfterTheStatusWriteFailedReusesTheClaimItCreatedBeforeTheInformerHasIt() {
    templateStore.add(template("two-gpus"));
    podStore.add(podWithTemplate("train", "two-gpus"));
    api.failStatusWrites.set(1);

    assertThatThrownBy(() -> sync.sync("pod:default/train")).hasMessageContaining("the object has been modified");
    sync.sync("pod:default/train");

    assertThat(api.claims).hasSize(1);
    assertThat(api.podStatuses.get("default/train")).singleElement()
        .satisfies(s -> assertThat(s.getResourceClaimName()).isEqualTo(
            api.claims.values().iterator().next().getMetadata().getName()));
  }

  @Test
  void anOwnedAnnotatedClaimInTheInformerIsAdoptedIntoTheStatusInsteadOfCreatingAnother() {
    templateStore.add(template("two-gpus"));
    Pod pod = podWithTemplate("train", "two-gpus");
    podStore.add(pod);
    claimStore.add(generatedClaim("train-gpus-abcde", pod, false));

    sync.sync("pod:default/train");

    assertThat(api.calls).noneMatch(c -> c.startsWith("create"));
    assertThat(api.podStatuses.get("default/train")).singleElement()
        .satisfies(s -> assertThat(s.getResourceClaimName()).isEqualTo("train-gpus-abcde"));
  }

  @Test
  void aPodWhoseClaimExistsNeedsNoWrite() {
    templateStore.add(template("two-gpus"));
    Pod pod = podWithTemplate("train", "two-gpus", new PodResourceClaimStatus("gpus", "train-gpus-abcde"));
    podStore.add(pod);
    claimStore.add(generatedClaim("train-gpus-abcde", pod, false));

    sync.sync("pod:default/train");

    assertThat(api.calls).isEmpty();
  }

  @Test
  void aScheduledPodIsAddedToTheReservationsOfItsAllocatedClaim() {
    Pod pod = onNode(podWithTemplate("train", "two-gpus", new PodResourceClaimStatus("gpus", "c1")), "n1");
    podStore.add(pod);
    claimStore.add(generatedClaim("c1", pod, true));

    sync.sync("pod:default/train");

    assertThat(api.claims.get("default/c1").getStatus().getReservedFor()).singleElement()
        .satisfies(r -> assertThat(r.getUid()).isEqualTo("uid-train"));
  }

  @Test
  void reservationsOfDeletedReplacedAndFinishedPodsGoWhileLiveOnesStay() {
    Pod live = onNode(podWithTemplate("live", "t"), "n1");
    Pod finished = withPhase(onNode(podWithTemplate("finished", "t"), "n1"), "Succeeded");
    Pod deleted = onNode(podWithTemplate("deleted", "t"), "n1");
    Pod replaced = onNode(podWithTemplate("replaced", "t"), "n1");
    Pod unknown = onNode(podWithTemplate("unknown", "t"), "n1");
    podStore.add(live);
    podStore.add(finished);
    podStore.add(new PodBuilder(replaced).editMetadata().withUid("uid-replaced-2").endMetadata().build());
    deletedPods.add("uid-deleted");
    ResourceClaim shared = generatedClaim("shared", live, true, live, finished, deleted, replaced, unknown);
    claimStore.add(shared);

    sync.sync("claim:default/shared");

    ResourceClaim written = api.claims.get("default/shared");
    assertThat(written.getStatus().getReservedFor()).extracting(r -> r.getName()).containsExactly("live");
    assertThat(written.getStatus().getAllocation()).isNotNull();
    assertThat(api.calls).contains("getPod unknown").doesNotContain("getPod deleted", "getPod live");
    assertThat(written.getMetadata().getFinalizers()).contains(PodClaims.DELETE_PROTECTION_FINALIZER);
  }

  @Test
  void whenTheLastReservationGoesTheSchedulersAllocationIsClearedAndItsFinalizerRemoved() {
    Pod owner = onNode(podWithTemplate("train", "t"), "n1");
    deletedPods.add(owner.getMetadata().getUid());
    claimStore.add(generatedClaim("c1", owner, true, owner));

    sync.sync("claim:default/c1");

    ResourceClaim written = api.claims.get("default/c1");
    assertThat(written.getStatus().getReservedFor()).isEmpty();
    assertThat(written.getStatus().getAllocation()).isNull();
    assertThat(written.getMetadata().getFinalizers()).doesNotContain(PodClaims.DELETE_PROTECTION_FINALIZER);
    assertThat(api.calls).containsExactly("updateStatus c1", "update c1");
  }

  @Test
  void anAllocationWithoutTheSchedulersFinalizerIsKept() {
    Pod owner = onNode(podWithTemplate("train", "t"), "n1");
    deletedPods.add(owner.getMetadata().getUid());
    claimStore.add(generatedClaim("c1", owner, false, owner));

    sync.sync("claim:default/c1");

    assertThat(api.claims.get("default/c1").getStatus().getAllocation()).isNotNull();
    assertThat(api.calls).containsExactly("updateStatus c1");
  }

  @Test
  void aGeneratedClaimOfAFinishedPodIsDeletedButOneOfARunningPodIsNot() {
    Pod done = withPhase(onNode(podWithTemplate("done", "t"), "n1"), "Failed");
    Pod running = withPhase(onNode(podWithTemplate("running", "t"), "n1"), "Running");
    podStore.add(done);
    podStore.add(running);
    claimStore.add(generatedClaim("done-claim", done, false));
    claimStore.add(generatedClaim("running-claim", running, false, running));

    sync.sync("claim:default/done-claim");
    sync.sync("claim:default/running-claim");

    assertThat(api.calls).containsExactly("delete done-claim");
  }

  @Test
  void aTerminatingClaimWithoutConsumersLosesItsAllocationAndFinalizer() {
    Pod owner = onNode(podWithTemplate("train", "t"), "n1");
    ResourceClaim claim = generatedClaim("c1", owner, true);
    claim.getMetadata().setDeletionTimestamp("2026-01-01T00:00:00Z");
    claimStore.add(claim);

    sync.sync("claim:default/c1");

    assertThat(api.calls).containsExactly("updateStatus c1", "update c1");
    assertThat(api.claims.get("default/c1").getStatus().getAllocation()).isNull();
  }

  @Test
  void aDeletedPodOrAClaimThatIsGoneIsNothingToDo() {
    sync.sync("pod:" + NS + "/nobody");
    sync.sync("claim:" + NS + "/nothing");
    sync.sync("garbage");
    assertThat(api.calls).isEmpty();
  }
}
