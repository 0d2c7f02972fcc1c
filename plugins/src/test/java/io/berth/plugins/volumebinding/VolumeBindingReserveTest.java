package io.berth.plugins.volumebinding;

import static io.berth.plugins.volumebinding.VolumeFixtures.HOSTNAME;
import static io.berth.plugins.volumebinding.VolumeFixtures.PROVISIONING_SC;
import static io.berth.plugins.volumebinding.VolumeFixtures.WAIT_SC;
import static io.berth.plugins.volumebinding.VolumeFixtures.node;
import static io.berth.plugins.volumebinding.VolumeFixtures.pod;
import static io.berth.plugins.volumebinding.VolumeFixtures.podWithClaims;
import static io.berth.plugins.volumebinding.VolumeFixtures.pv;
import static io.berth.plugins.volumebinding.VolumeFixtures.pvc;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Reserve, Unreserve and the PreBind paths that need no API server. */
class VolumeBindingReserveTest {
  private static final NodeInfo NODE_A = NodeInfo.of(node("node-a", "topology.kubernetes.io/zone",
      "zone-a"));
  private static final PersistentVolume PV_1 = pv("pv-1", "wait-sc").available().capacity("10Gi")
      .nodeAffinity(HOSTNAME, "node-a").build();
  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  private static VolumeBinding plugin(HasMetadata... objects) {
    TestHandle handle = new TestHandle().withObjects(WAIT_SC, PROVISIONING_SC)
        .withObjects(objects);
    return (VolumeBinding) VolumeBinding.create(Map.of(), handle);
  }

  /** PreFilter and Filter on node-a, returning the cycle state (or failing the test). */
  private static CycleState filtered(VolumeBinding plugin, Pod pod, Status wantFilter) {
    CycleState state = new CycleState();
    assertThat(plugin.preFilter(state, pod, List.of(NODE_A)).status().isSuccess()).isTrue();
    assertThat(plugin.filter(state, pod, NODE_A)).isEqualTo(wantFilter);
    return state;
  }

  private static PersistentVolumeClaim claim(String name) {
    return pvc(name, "wait-sc").request("1Gi").build();
  }

  @Test
  void reserveAssumesTheVolumeSoTheNextPodDoesNotFindIt() {
    VolumeBinding plugin = plugin(PV_1, claim("pvc-a"), claim("pvc-b"));
    Pod a = podWithClaims("pod-a", "pvc-a");
    CycleState stateA = filtered(plugin, a, Status.SUCCESS);

    assertThat(plugin.reserve(stateA, a, "node-a")).isEqualTo(Status.SUCCESS);

    PersistentVolume assumed = plugin.binder().pvCache().get("pv-1").orElseThrow();
    assertThat(assumed.getSpec().getClaimRef().getName()).isEqualTo("pvc-a");
    assertThat(assumed.getSpec().getClaimRef().getUid()).isEqualTo("uid-pvc-a");
    assertThat(assumed.getMetadata().getAnnotations())
        .containsEntry(VolumeHelpers.ANN_BOUND_BY_CONTROLLER, "yes");
    assertThat(PV_1.getSpec().getClaimRef()).as("lister objects stay untouched").isNull();
    filtered(plugin, podWithClaims("pod-b", "pvc-b"),
        Status.unresolvable(VolumeBinding.ERR_REASON_BIND_CONFLICT));
  }

  @Test
  void unreserveReleasesTheVolumeAndIsIdempotent() {
    VolumeBinding plugin = plugin(PV_1, claim("pvc-a"), claim("pvc-b"));
    Pod a = podWithClaims("pod-a", "pvc-a");
    CycleState stateA = filtered(plugin, a, Status.SUCCESS);
    plugin.reserve(stateA, a, "node-a");

    plugin.unreserve(stateA, a, "node-a");
    plugin.unreserve(stateA, a, "node-a");

    assertThat(plugin.binder().pvCache().get("pv-1").orElseThrow().getSpec().getClaimRef())
        .isNull();
    filtered(plugin, podWithClaims("pod-b", "pvc-b"), Status.SUCCESS);
  }

  @Test
  void aLoserUnreservingDoesNotReleaseTheWinnersVolume() {
    VolumeBinding plugin = plugin(PV_1, claim("pvc-a"), claim("pvc-b"), claim("pvc-c"));
    Pod a = podWithClaims("pod-a", "pvc-a");
    Pod b = podWithClaims("pod-b", "pvc-b");
    CycleState stateA = filtered(plugin, a, Status.SUCCESS);
    CycleState stateB = filtered(plugin, b, Status.SUCCESS);
    assertThat(plugin.reserve(stateA, a, "node-a")).isEqualTo(Status.SUCCESS);

    Status lost = plugin.reserve(stateB, b, "node-a");
    plugin.unreserve(stateB, b, "node-a");

    assertThat(lost.code()).isEqualTo(Code.ERROR);
    assertThat(lost.message()).contains("PersistentVolume \"pv-1\" is already assumed");
    assertThat(plugin.binder().pvCache().get("pv-1").orElseThrow().getSpec().getClaimRef()
        .getName()).isEqualTo("pvc-a");
    filtered(plugin, podWithClaims("pod-c", "pvc-c"),
        Status.unresolvable(VolumeBinding.ERR_REASON_BIND_CONFLICT));
  }

  @Test
  void twoThreadsReservingTheOnlyVolumeHaveExactlyOneWinner() throws Exception {
    for (int round = 0; round < 100; round++) {
      VolumeBinding plugin = plugin(PV_1, claim("pvc-a"), claim("pvc-b"));
      Pod a = podWithClaims("pod-a", "pvc-a");
      Pod b = podWithClaims("pod-b", "pvc-b");
      // both cycles saw the volume free before either reserved it
      CycleState stateA = filtered(plugin, a, Status.SUCCESS);
      CycleState stateB = filtered(plugin, b, Status.SUCCESS);
      CyclicBarrier barrier = new CyclicBarrier(2);
      Future<Status> ra = pool.submit(() -> {
        barrier.await();
        return plugin.reserve(stateA, a, "node-a");
      });
      Future<Status> rb = pool.submit(() -> {
        barrier.await();
        return plugin.reserve(stateB, b, "node-a");
      });
      Status sa = ra.get(10, TimeUnit.SECONDS);
      Status sb = rb.get(10, TimeUnit.SECONDS);

      List<Status> wins = new ArrayList<>();
      for (Status s : List.of(sa, sb)) {
        if (s.isSuccess()) {
          wins.add(s);
        } else {
          assertThat(s.code()).as("round %d", round).isEqualTo(Code.ERROR);
        }
      }
      assertThat(wins).as("round %d: %s / %s", round, sa, sb).hasSize(1);
      String winner = sa.isSuccess() ? "pvc-a" : "pvc-b";
      // the loser's Unreserve runs on another thread while the winner's volume stays taken
      Future<?> undo = pool.submit(() -> {
        if (sa.isSuccess()) {
          plugin.unreserve(stateB, b, "node-a");
        } else {
          plugin.unreserve(stateA, a, "node-a");
        }
      });
      undo.get(10, TimeUnit.SECONDS);
      assertThat(plugin.binder().pvCache().get("pv-1").orElseThrow().getSpec().getClaimRef()
          .getName()).isEqualTo(winner);
    }
  }

  @Test
  void podsWithoutClaimsOrWithBoundClaimsNeedNoBinding() {
    // the handle has no client: reaching the API would throw
    VolumeBinding plugin = plugin(pvc("pvc-a", "wait-sc").boundTo("pv-1").build(),
        pv("pv-1", "wait-sc").phase("Bound").build());
    Pod none = pod("none").build();
    CycleState s1 = new CycleState();
    assertThat(plugin.preFilter(s1, none, List.of(NODE_A)).status()).isEqualTo(Status.skip());
    assertThat(plugin.reserve(s1, none, "node-a")).isEqualTo(Status.SUCCESS);
    assertThat(plugin.preBind(s1, none, "node-a")).isEqualTo(Status.SUCCESS);

    Pod bound = podWithClaims("bound", "pvc-a");
    CycleState s2 = filtered(plugin, bound, Status.SUCCESS);
    assertThat(plugin.reserve(s2, bound, "node-a")).isEqualTo(Status.SUCCESS);
    assertThat(plugin.preBind(s2, bound, "node-a")).isEqualTo(Status.SUCCESS);
  }

  @Test
  void preBindPreFlightSkipsWhenEveryClaimIsBound() {
    VolumeBinding plugin = plugin(pvc("pvc-a", "wait-sc").boundTo("pv-1").build(),
        pv("pv-1", "wait-sc").phase("Bound").build());
    Pod none = pod("none").build();
    CycleState s1 = new CycleState();
    plugin.preFilter(s1, none, List.of(NODE_A));
    plugin.reserve(s1, none, "node-a");
    assertThat(plugin.preBindPreFlight(s1, none, "node-a")).isEqualTo(Status.skip());

    Pod bound = podWithClaims("bound", "pvc-a");
    CycleState s2 = filtered(plugin, bound, Status.SUCCESS);
    plugin.reserve(s2, bound, "node-a");
    assertThat(plugin.preBindPreFlight(s2, bound, "node-a")).isEqualTo(Status.skip());
  }

  @Test
  void preBindPreFlightHasWorkForClaimsToBind() {
    VolumeBinding plugin = plugin(PV_1, claim("pvc-a"));
    Pod a = podWithClaims("pod-a", "pvc-a");
    CycleState state = filtered(plugin, a, Status.SUCCESS);
    assertThat(plugin.reserve(state, a, "node-a")).isEqualTo(Status.SUCCESS);

    assertThat(plugin.preBindPreFlight(state, a, "node-a")).isEqualTo(Status.SUCCESS);
  }

  @Test
  void preBindPreFlightWithoutCycleStateIsAnError() {
    VolumeBinding plugin = plugin();

    assertThat(plugin.preBindPreFlight(new CycleState(), pod("x").build(), "node-a").code())
        .isEqualTo(Code.ERROR);
  }

  @Test
  void preBindWithoutReserveIsAnError() {
    VolumeBinding plugin = plugin(PV_1, claim("pvc-a"));
    Pod a = podWithClaims("pod-a", "pvc-a");
    CycleState state = filtered(plugin, a, Status.SUCCESS);

    assertThat(plugin.preBind(state, a, "node-a"))
        .isEqualTo(Status.error("no pod volumes found for node \"node-a\""));
    assertThat(plugin.preBind(new CycleState(), a, "node-a").code()).isEqualTo(Code.ERROR);
    assertThat(plugin.reserve(new CycleState(), a, "node-a").code()).isEqualTo(Code.ERROR);
  }

  @Test
  void reserveAssumesTheSelectedNodeOnClaimsToProvision() {
    VolumeBinding plugin = plugin(pvc("pvc-p", "csi-sc").request("1Gi").build());
    Pod p = podWithClaims("pod-p", "pvc-p");
    CycleState state = filtered(plugin, p, Status.SUCCESS);

    assertThat(plugin.reserve(state, p, "node-a")).isEqualTo(Status.SUCCESS);

    PersistentVolumeClaim assumed = plugin.binder().pvcCache().get("default/pvc-p").orElseThrow();
    assertThat(assumed.getMetadata().getAnnotations())
        .containsEntry(VolumeHelpers.ANN_SELECTED_NODE, "node-a");
    plugin.unreserve(state, p, "node-a");
    assertThat(VolumeHelpers.annotations(plugin.binder().pvcCache().get("default/pvc-p")
        .orElseThrow())).doesNotContainKey(VolumeHelpers.ANN_SELECTED_NODE);
  }

  @Test
  void bindVolumeToClaimLeavesAPreBoundVolumeUnannotated() {
    PersistentVolumeClaim c = claim("pvc-a");
    PersistentVolume preBound = pv("pv-9", "wait-sc").claimRef("default", "pvc-a").build();

    PersistentVolume bound = VolumeBinder.bindVolumeToClaim(preBound, c).orElseThrow();

    assertThat(bound.getSpec().getClaimRef().getUid()).isEqualTo("uid-pvc-a");
    assertThat(VolumeHelpers.annotations(bound))
        .doesNotContainKey(VolumeHelpers.ANN_BOUND_BY_CONTROLLER);
    assertThat(VolumeBinder.bindVolumeToClaim(bound, c)).isEmpty();
  }
}
