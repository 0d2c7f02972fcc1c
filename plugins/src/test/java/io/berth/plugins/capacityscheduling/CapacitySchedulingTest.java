package io.berth.plugins.capacityscheduling;

import static io.berth.plugins.capacityscheduling.QuotaFixtures.cpuQuota;
import static io.berth.plugins.capacityscheduling.QuotaFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.PreFilterResult;
import io.berth.framework.testing.TestHandle;
import io.berth.plugins.coscheduling.PodGroup;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The plugin's PreFilter, Reserve and Unreserve over the book, a gang's whole-group check, held pods activated. */
class CapacitySchedulingTest {

  private static PreFilterResult preFilter(CapacityScheduling plugin, Pod pod) {
    return plugin.preFilter(new CycleState(), pod, List.of());
  }

  @Test
  void reserveChargesUnreserveReleasesAndTheRejectedPodIsActivatedWhenQuotaIsFreed() {
    TestHandle handle = new TestHandle();
    CapacityScheduling plugin = (CapacityScheduling) CapacityScheduling.withQuotas(Map.of(), handle,
        List.of(cpuQuota("a", 2, 2L)));
    Pod first = pod("a", "first", "2", 0, false);
    assertThat(preFilter(plugin, first).status().isSuccess()).isTrue();
    assertThat(plugin.reserve(new CycleState(), first, "n1").isSuccess()).isTrue();
    Pod second = pod("a", "second", "500m", 0, false);
    PreFilterResult rejected = preFilter(plugin, second);
    assertThat(rejected.status().code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(rejected.status().message()).isEqualTo("ElasticQuota \"a/quota-a\" is at its max: cpu: used 2"
        + " + requested 500m exceeds max 2 (min 2)");
    plugin.unreserve(new CycleState(), first, "n1");
    assertThat(handle.activated()).containsExactly("a/second");
    assertThat(preFilter(plugin, second).status().isSuccess()).isTrue();
  }

  @Test
  void theInformersPodsAreChargedOnceAndReleasedWhenTerminatingOrDeleted() {
    TestHandle handle = new TestHandle();
    CapacityScheduling plugin = (CapacityScheduling) CapacityScheduling.withQuotas(Map.of(), handle,
        List.of(cpuQuota("a", 1, 2L)));
    Pod bound = new PodBuilder(pod("a", "bound", "1", 0, false)).editSpec().withNodeName("n1").endSpec().build();
    plugin.podHandler().onAdd(bound);
    plugin.reserve(new CycleState(), bound, "n1");
    plugin.podHandler().onUpdate(bound, bound);
    assertThat(plugin.book().used("a")).containsEntry("cpu", 1000L);
    Pod terminating = new PodBuilder(bound).editMetadata().withDeletionTimestamp("2026-01-01T00:00:00Z")
        .endMetadata().build();
    plugin.podHandler().onUpdate(bound, terminating);
    assertThat(plugin.book().used("a")).doesNotContainKey("cpu");
    plugin.podHandler().onDelete(terminating);
    assertThat(plugin.book().used("a")).doesNotContainKey("cpu");
  }

  @Test
  void aGangMemberIsCheckedWithTheMembersItNeedsAndPassesOnceEnoughArePlaced() {
    Pod[] members = new Pod[4];
    for (int i = 0; i < 4; i++) {
      members[i] = new PodBuilder(pod("a", "m" + i, "1", 0, false)).editMetadata()
          .addToLabels(PodGroup.LABEL, "gang").endMetadata().build();
    }
    TestHandle handle = new TestHandle().withObjects(members);
    QuotaBook book = new QuotaBook();
    book.putQuota(cpuQuota("a", 3, 3L));
    PodGroup gang = new PodGroup("a", "gang", Instant.EPOCH, 4, Map.of(), Optional.empty());
    CapacityScheduling plugin = new CapacityScheduling(CapacitySchedulingArgs.DEFAULTS, handle, book,
        (ns, name) -> "gang".equals(name) ? Optional.of(gang) : Optional.empty(), handle.lister(Pod.class));
    PreFilterResult whole = preFilter(plugin, members[0]);
    assertThat(whole.status().message()).contains("used 0 + requested 4 exceeds max 3");
    book.putQuota(cpuQuota("a", 4, 4L));
    assertThat(preFilter(plugin, members[0]).status().isSuccess()).isTrue();
    plugin.reserve(new CycleState(), members[0], "n1");
    plugin.reserve(new CycleState(), members[1], "n1");
    assertThat(preFilter(plugin, members[2]).status().isSuccess()).as("2 placed + 2 = 4").isTrue();
  }

  @Test
  void aMalformedQuotaHoldsOnlyItsNamespaceNamingTheField() {
    TestHandle handle = new TestHandle();
    CapacityScheduling plugin = (CapacityScheduling) CapacityScheduling.withQuotas(Map.of(), handle, List.of());
    plugin.quotaChanged(new io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder()
        .withApiVersion("scheduling.x-k8s.io/v1alpha1").withKind("ElasticQuota").withNewMetadata()
        .withNamespace("bad").withName("q").endMetadata()
        .addToAdditionalProperties("spec", Map.of("max", Map.of("cpu", "-1"))).build());
    assertThat(preFilter(plugin, pod("bad", "p", "1", 0, false)).status().message())
        .isEqualTo("ElasticQuota \"bad/q\": spec.max[cpu]: Invalid value: -1: must not be negative");
    assertThat(preFilter(plugin, pod("good", "p", "1", 0, false)).status().isSuccess()).isTrue();
  }
}
