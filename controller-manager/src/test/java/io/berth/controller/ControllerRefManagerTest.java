package io.berth.controller;

import static io.berth.controller.PodFixture.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.controller.ControllerRefManager.Decision;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ControllerRefManagerTest {

  private static final ReplicaSet OWNER = replicaSet("web", "rs-uid", false);
  private static final ReplicaSet OTHER = replicaSet("other", "other-uid", false);
  private static final Selector APP_WEB = Selector.fromSet(Map.of("app", "web"));

  private record Patch(String namespace, String name, String body) {
  }

  private final List<Patch> patches = new ArrayList<>();

  private static ReplicaSet replicaSet(String name, String uid, boolean deleting) {
    return new ReplicaSetBuilder().withNewMetadata().withName(name).withNamespace("default").withUid(uid)
        .withDeletionTimestamp(deleting ? "2025-01-01T00:00:00Z" : null).endMetadata().build();
  }

  private static KubernetesClientException apiError(int code) {
    Status status = new StatusBuilder().withCode(code).withMessage("error " + code).build();
    return new KubernetesClientException(status);
  }

  private ControllerRefManager<Pod> manager(ReplicaSet owner, ControllerRefManager.CanAdopt canAdopt) {
    return new ControllerRefManager<>(owner, GroupVersionKind.REPLICA_SET, APP_WEB,
        (ns, name, body) -> patches.add(new Patch(ns, name, body)), canAdopt);
  }

  @Test
  void theClaimDecisionFollowsOwnershipMatchAndDeletion() {
    ReplicaSet deletingOwner = replicaSet("web", "rs-uid", true);
    Pod ours = pod("ours").controlledBy(OWNER, GroupVersionKind.REPLICA_SET).build();
    Pod theirs = pod("theirs").controlledBy(OTHER, GroupVersionKind.REPLICA_SET).build();
    Pod orphan = pod("orphan").build();
    Pod terminatingOrphan = pod("t").deleting().build();
    Pod otherNamespaceOrphan = pod("ns").namespace("elsewhere").build();

    assertThat(ControllerRefManager.decide(OWNER, ours, true)).isEqualTo(Decision.OWNED);
    assertThat(ControllerRefManager.decide(deletingOwner, ours, true)).isEqualTo(Decision.OWNED);
    assertThat(ControllerRefManager.decide(OWNER, ours, false)).isEqualTo(Decision.RELEASE);
    assertThat(ControllerRefManager.decide(deletingOwner, ours, false)).isEqualTo(Decision.IGNORE);
    assertThat(ControllerRefManager.decide(OWNER, theirs, true)).isEqualTo(Decision.IGNORE);
    assertThat(ControllerRefManager.decide(OWNER, orphan, true)).isEqualTo(Decision.ADOPT);
    assertThat(ControllerRefManager.decide(OWNER, orphan, false)).isEqualTo(Decision.IGNORE);
    assertThat(ControllerRefManager.decide(deletingOwner, orphan, true)).isEqualTo(Decision.IGNORE);
    assertThat(ControllerRefManager.decide(OWNER, terminatingOrphan, true)).isEqualTo(Decision.IGNORE);
    assertThat(ControllerRefManager.decide(OWNER, otherNamespaceOrphan, true)).isEqualTo(Decision.IGNORE);
  }

  @Test
  void claimingAdoptsMatchingOrphansAndReleasesOwnedPodsThatStoppedMatching() throws Exception {
    Pod ours = pod("ours").controlledBy(OWNER, GroupVersionKind.REPLICA_SET).build();
    Pod strayed = pod("strayed").label("app", "db").controlledBy(OWNER, GroupVersionKind.REPLICA_SET).build();
    Pod orphan = pod("orphan").uid("orphan-uid").build();
    Pod theirs = pod("theirs").controlledBy(OTHER, GroupVersionKind.REPLICA_SET).build();
    Pod unrelated = pod("unrelated").label("app", "db").build();

    List<Pod> claimed = manager(OWNER, () -> { }).claim(List.of(ours, strayed, orphan, theirs, unrelated)).orThrow();

    assertThat(claimed).containsExactly(ours, orphan);
    assertThat(patches).extracting(Patch::name).containsExactly("strayed", "orphan");
    Map<String, Object> release = Serialization.unmarshal(patches.get(0).body(), Map.class);
    assertThat(release).isEqualTo(Map.of("metadata", Map.of(
        "ownerReferences", List.of(Map.of("$patch", "delete", "uid", "rs-uid")),
        "uid", "uid-strayed")));
    Map<String, Object> adopt = Serialization.unmarshal(patches.get(1).body(), Map.class);
    assertThat(adopt).isEqualTo(Map.of("metadata", Map.of(
        "ownerReferences", List.of(Map.of("apiVersion", "apps/v1", "kind", "ReplicaSet", "name", "web",
            "uid", "rs-uid", "controller", true, "blockOwnerDeletion", true)),
        "uid", "orphan-uid")));
  }

  @Test
  void theAdoptionCheckRunsOnceAndItsRefusalFailsEveryAdoption() {
    AtomicInteger checks = new AtomicInteger();
    ControllerRefManager<Pod> manager = manager(OWNER, () -> {
      checks.incrementAndGet();
      throw new IllegalStateException("default/web has just been deleted at 2025-01-01T00:00:00Z");
    });
    ControllerRefManager.Claimed<Pod> result = manager.claim(List.of(pod("a").build(), pod("b").build()));
    assertThat(checks.get()).isEqualTo(1);
    assertThat(result.objects()).isEmpty();
    assertThat(result.errors()).hasSize(2);
    assertThat(patches).isEmpty();
    assertThatThrownBy(result::orThrow).isInstanceOf(ControllerRefManager.ClaimException.class)
        .hasMessageContaining("can't adopt Pod default/a (uid-a): default/web has just been deleted");
  }

  @Test
  void aVanishedPodIsNeitherClaimedNorAnError() throws Exception {
    ControllerRefManager<Pod> manager = new ControllerRefManager<>(OWNER, GroupVersionKind.REPLICA_SET, APP_WEB,
        (ns, name, body) -> {
          throw apiError(404);
        }, () -> { });
    Pod orphan = pod("orphan").build();
    Pod strayed = pod("strayed").label("app", "db").controlledBy(OWNER, GroupVersionKind.REPLICA_SET).build();
    assertThat(manager.claim(List.of(orphan, strayed)).orThrow()).isEmpty();
  }

  @Test
  void releaseIgnoresInvalidButReportsOtherErrors() {
    Pod strayed = pod("strayed").label("app", "db").controlledBy(OWNER, GroupVersionKind.REPLICA_SET).build();
    ControllerRefManager<Pod> invalid = new ControllerRefManager<>(OWNER, GroupVersionKind.REPLICA_SET, APP_WEB,
        (ns, name, body) -> {
          throw apiError(422);
        }, () -> { });
    assertThat(invalid.claim(List.of(strayed)).errors()).isEmpty();
    ControllerRefManager<Pod> failing = new ControllerRefManager<>(OWNER, GroupVersionKind.REPLICA_SET, APP_WEB,
        (ns, name, body) -> {
          throw apiError(500);
        }, () -> { });
    assertThat(failing.claim(List.of(strayed, pod("orphan").build())).errors()).hasSize(2);
  }

  @Test
  void theOwnerRecheckRefusesAGoneRecreatedOrDeletingOwner() throws Exception {
    ControllerRefManager.recheckOwner(() -> OWNER, OWNER).check();
    assertThatThrownBy(() -> ControllerRefManager.recheckOwner(() -> null, OWNER).check())
        .hasMessageContaining("can't recheck DeletionTimestamp").hasMessageContaining("not found");
    assertThatThrownBy(() -> ControllerRefManager.recheckOwner(() -> replicaSet("web", "new-uid", false), OWNER)
        .check()).hasMessageContaining("original ReplicaSet default/web is gone: got uid new-uid, wanted rs-uid");
    assertThatThrownBy(() -> ControllerRefManager.recheckOwner(() -> replicaSet("web", "rs-uid", true), OWNER)
        .check()).hasMessage("default/web has just been deleted at 2025-01-01T00:00:00Z");
    assertThatThrownBy(() -> ControllerRefManager.recheckOwner(() -> {
      throw apiError(503);
    }, OWNER).check()).hasMessage("can't recheck DeletionTimestamp: error 503");
  }
}
