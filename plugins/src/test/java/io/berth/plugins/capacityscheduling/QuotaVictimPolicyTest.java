package io.berth.plugins.capacityscheduling;

import static io.berth.plugins.capacityscheduling.QuotaFixtures.cpuQuota;
import static io.berth.plugins.capacityscheduling.QuotaFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.PluginMetrics;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reclaim rules on a cycle state as PreFilter leaves it: who may be a victim for a pod within or above its min,
 * preemptible pods given up first, borrowers never taken below their min, and the preemptor's quota with the
 * victims gone.
 */
class QuotaVictimPolicyTest {
  private QuotaBook book;
  private QuotaVictimPolicy policy;

  @BeforeEach
  void aBorrowsTwoOfBsShare() {
    book = new QuotaBook();
    book.putQuota(cpuQuota("a", 4, 6L));
    book.putQuota(cpuQuota("b", 4, 8L));
    policy = new QuotaVictimPolicy(book, PluginMetrics.NOOP);
  }

  private Pod running(Pod p) {
    book.charge(PodCharge.of(p));
    return p;
  }

  private CycleState cycle(Pod preemptor) {
    QuotaSnapshot s = book.snapshot();
    PodCharge c = PodCharge.of(preemptor);
    String ns = c.namespace();
    CycleState state = new CycleState();
    Optional<QuotaSnapshot.Demand> demand = s.view(ns).map(v -> s.demand(ns, c.uid(), c.priority(),
        c.requests()));
    boolean preemptible = s.preemptible(ns, c.labelledPreemptible());
    boolean within = demand.isPresent() && !preemptible && s.view(ns).get().withinMin(demand.get().own());
    state.write(CycleQuota.KEY, new CycleQuota(s, c, demand, preemptible, within));
    return state;
  }

  @Test
  void aPodWithinItsMinMayEvictBorrowersOfAnyPriorityButNotPodsOfLendersOrWithoutQuota() {
    List<Pod> a = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      a.add(running(pod("a", "a" + i, "1", 1000, false)));
    }
    Pod b0 = running(pod("b", "b0", "1", -5, false));
    Pod free = pod("free", "f", "1", -100, false);
    Pod preemptor = pod("b", "new", "1", 0, false);
    CycleState state = cycle(preemptor);
    assertThat(policy.eligible(state, preemptor, a.get(0))).as("a borrows: 5 > min 4").isTrue();
    assertThat(policy.eligible(state, preemptor, b0)).as("own namespace, within min").isFalse();
    assertThat(policy.eligible(state, preemptor, free)).as("no quota").isFalse();
    assertThat(policy.acceptVictims(state, preemptor, List.of(a.get(0)))).matches(s -> s.isSuccess());
    assertThat(policy.acceptVictims(state, preemptor, List.of(a.get(0), a.get(1))).message())
        .isEqualTo("reclaim would take ElasticQuota \"a/quota-a\" below its min for cpu (3 < 4)");
  }

  @Test
  void aPodAboveItsMinMayEvictOnlyLowerPriorityPodsOfItsOwnNamespace() {
    for (int i = 0; i < 5; i++) {
      running(pod("a", "a" + i, "1", -10, false));
    }
    Pod low = running(pod("b", "low", "4", -1, false));
    Pod high = running(pod("b", "high", "1", 5, false));
    Pod preemptor = pod("b", "new", "1", 0, false);
    CycleState state = cycle(preemptor);
    assertThat(policy.eligible(state, preemptor, low)).isTrue();
    assertThat(policy.eligible(state, preemptor, high)).isFalse();
    assertThat(policy.eligible(state, preemptor, pod("a", "a0", "1", -10, false))).isFalse();
  }

  @Test
  void preemptiblePodsAreEligibleInEveryQuotaNamespaceAndGivenUpFirst() {
    for (int i = 0; i < 3; i++) {
      running(pod("a", "a" + i, "1", 0, false));
    }
    Pod spot = running(pod("a", "spot", "1", 1000, true));
    Pod ownSpot = running(pod("b", "own-spot", "1", 1000, true));
    Pod preemptor = pod("b", "new", "1", 0, false);
    CycleState state = cycle(preemptor);
    assertThat(policy.eligible(state, preemptor, spot)).as("a does not borrow, but spot is preemptible")
        .isTrue();
    assertThat(policy.eligible(state, preemptor, ownSpot)).isTrue();
    assertThat(policy.eligible(state, preemptor, pod("a", "a0", "1", 0, false))).isFalse();
    Comparator<Pod> byPriority = Comparator.comparingInt((Pod p) -> p.getSpec().getPriority()).reversed();
    List<Pod> ordered = new ArrayList<>(List.of(spot, pod("a", "a0", "1", 0, false)));
    ordered.sort(policy.importance(byPriority));
    assertThat(ordered.get(0).getMetadata().getName()).as("most important first").isEqualTo("a0");
    assertThat(policy.victimsCost(List.of(spot, ownSpot))).isZero();
    assertThat(policy.victimsCost(List.of(spot, ordered.get(0)))).isEqualTo(1);
  }

  @Test
  void thePreemptorMustPassItsQuotaWithTheVictimsGone() {
    for (int i = 0; i < 6; i++) {
      running(pod("a", "a" + i, "1", 0, false));
    }
    Pod preemptor = pod("a", "over", "1", 10, false);
    CycleState state = cycle(preemptor);
    assertThat(policy.admits(state, preemptor, List.of()).message()).contains("is at its max");
    assertThat(policy.admits(state, preemptor, List.of(pod("a", "a0", "1", 0, false))).isSuccess()).isTrue();
  }
}
