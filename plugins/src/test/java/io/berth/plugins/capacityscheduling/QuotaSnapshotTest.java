package io.berth.plugins.capacityscheduling;

import static io.berth.plugins.capacityscheduling.QuotaFixtures.charge;
import static io.berth.plugins.capacityscheduling.QuotaFixtures.cpuQuota;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The quota arithmetic: max, min with nothing left to lend, preemptible capacity, nominations, release. */
class QuotaSnapshotTest {
  private QuotaBook book;

  @BeforeEach
  void twoQuotasOfMinFour() {
    book = new QuotaBook();
    book.putQuota(cpuQuota("a", 4, 6L));
    book.putQuota(cpuQuota("b", 4, 8L));
  }

  private void run(String ns, int n, long milli) {
    for (int i = 0; i < n; i++) {
      book.charge(charge(ns, ns + "-" + book.version() + "-" + i, milli, 0, false));
    }
  }

  private Optional<String> rejection(String ns, long milli, boolean preemptible) {
    QuotaSnapshot s = book.snapshot();
    return s.rejection(ns, s.demand(ns, "new", 0, Map.of("cpu", milli)), preemptible);
  }

  @Test
  void aNamespaceBorrowsTheIdleShareUpToItsMaxThenIsRejectedNamingQuotaResourceAndAmounts() {
    run("a", 5, 1000);
    assertThat(rejection("a", 1000, false)).isEmpty();
    run("a", 1, 1000);
    assertThat(rejection("a", 1000, false)).contains("ElasticQuota \"a/quota-a\" is at its max: cpu: used 6"
        + " + requested 1 exceeds max 6 (min 4)");
  }

  @Test
  void aNamespaceWithinItsMinIsNeverRejectedForLackOfLendersButOneAboveIs() {
    run("a", 6, 1000);
    run("b", 2, 1000);
    assertThat(rejection("b", 2000, false)).as("b within min 4").isEmpty();
    run("b", 2, 1000);
    assertThat(rejection("b", 1000, false)).contains("ElasticQuota \"b/quota-b\" cannot borrow, no quota has"
        + " unused min to lend: cpu: used 4 + requested 1 exceeds min 4 (max 8), and all quotas use 10 of their"
        + " summed min 8");
  }

  @Test
  void borrowingStopsAtTheSummedMinEvenBelowMax() {
    run("b", 3, 1000);
    run("a", 4, 1000);
    assertThat(rejection("a", 1000, false)).as("7 of 8 used").isEmpty();
    run("a", 1, 1000);
    assertThat(rejection("a", 500, false)).isPresent().get().asString().contains("cannot borrow");
  }

  @Test
  void preemptiblePodsRunOnBorrowedCapacityOnlyAndDoNotUseTheirNamespacesMin() {
    run("b", 4, 1000);
    run("a", 3, 1000);
    assertThat(rejection("a", 1000, false)).as("a's own min").isEmpty();
    assertThat(rejection("a", 1000, true)).as("7 + 1 of summed min 8 is still lendable").isEmpty();
    book.charge(charge("a", "spot", 1000, 0, true));
    assertThat(rejection("a", 1000, true)).get().asString().contains("(preemptible: borrowed capacity only)");
    QuotaSnapshot.View a = book.snapshot().view("a").orElseThrow();
    assertThat(a.used()).containsEntry("cpu", 4000L);
    assertThat(a.guaranteed()).as("the preemptible pod is not guaranteed").containsEntry("cpu", 3000L);
    assertThat(a.withinMin(Map.of("cpu", 1000L))).isTrue();
  }

  @Test
  void higherPriorityNominationsOfTheSameNamespaceAndLendersNominationsCount() {
    run("a", 5, 1000);
    book.nominate(charge("a", "nominated", 1000, 10, false));
    book.nominate(charge("a", "lower", 1000, -10, false));
    QuotaSnapshot s = book.snapshot();
    QuotaSnapshot.Demand d = s.demand("a", "new", 0, Map.of("cpu", 1000L));
    assertThat(d.own()).containsEntry("cpu", 2000L);
    assertThat(s.rejection("a", d, false)).get().asString().contains("used 5 + requested 2 exceeds max 6");
    book.nominate(charge("b", "lender", 2000, 0, false));
    assertThat(book.snapshot().demand("a", "new", 0, Map.of("cpu", 1000L)).othersNominated())
        .containsEntry("cpu", 2000L);
  }

  @Test
  void releasingSimulatedVictimsLowersUsedAndGuaranteedOfTheirNamespace() {
    run("a", 6, 1000);
    book.charge(charge("b", "b0", 1000, 0, false));
    QuotaSnapshot s = book.snapshot();
    QuotaSnapshot after = s.release(List.of(charge("a", "x", 2000, 0, false)));
    assertThat(after.view("a").orElseThrow().used()).containsEntry("cpu", 4000L);
    assertThat(after.view("a").orElseThrow().guaranteed()).containsEntry("cpu", 4000L);
    assertThat(after.sumUsed("cpu")).isEqualTo(5000);
    assertThat(s.sumUsed("cpu")).as("the original is unchanged").isEqualTo(7000);
    assertThat(s.view("a").orElseThrow().borrowing()).isTrue();
    assertThat(after.view("a").orElseThrow().borrowing()).isFalse();
  }

  @Test
  void aResourceTheQuotaDoesNotNameIsNotLimitedAndANamespaceWithoutQuotaIsUnbounded() {
    QuotaSnapshot s = book.snapshot();
    assertThat(s.rejection("a", s.demand("a", "new", 0, Map.of("memory", 1L << 40, "pods", 100L)), false))
        .isEmpty();
    assertThat(s.rejection("elsewhere", s.demand("elsewhere", "new", 0, Map.of("cpu", 1_000_000L)), false))
        .isEmpty();
  }

  @Test
  void aQuotaCreatedLaterStartsFromItsNamespacesRealUsage() {
    book.charge(charge("c", "early", 3000, 0, false));
    book.putQuota(cpuQuota("c", 1, 4L));
    assertThat(book.snapshot().view("c").orElseThrow().used()).containsEntry("cpu", 3000L);
    assertThat(rejection("c", 2000, false)).get().asString().contains("used 3 + requested 2 exceeds max 4");
  }

  @Test
  void chargesAreIdempotentByUidAndReleaseOnlyWhatWasCharged() {
    PodCharge c = charge("a", "p", 1500, 0, false);
    assertThat(book.charge(c)).isTrue();
    assertThat(book.charge(c)).isFalse();
    assertThat(book.used("a")).containsEntry("cpu", 1500L);
    assertThat(book.release("a", c.uid())).isTrue();
    assertThat(book.release("a", c.uid())).isFalse();
    assertThat(book.used("a")).doesNotContainKey("cpu");
  }
}
