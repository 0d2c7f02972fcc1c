package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.GangFixtures.member;
import static io.berth.plugins.coscheduling.GangFixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.PodGroupRef;
import io.berth.framework.runtime.PodSignatures;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Coscheduling as the scheduler's PodGroupPlugin (group cycles) and as a SignPlugin (batching). */
class CoschedulingGroupAndSignTest {
  @Test
  void namesTheGroupAndItsMembersAndNothingForAPodWithoutOne() {
    Pod a = member("a", "pg").build();
    Pod b = member("b", "pg").build();
    Pod other = member("o", "other").build();
    Pod solo = member("solo", null).build();
    Coscheduling plugin = new GangFixtures.Gang().groups(podGroup("pg", 2)).pods(a, b, other, solo)
        .build();
    PodGroupRef ref = plugin.podGroupOf(a).orElseThrow();
    assertThat(ref).isEqualTo(new PodGroupRef("ns", "pg", 2));
    assertThat(plugin.members(ref)).extracting(p -> p.getMetadata().getName())
        .containsExactlyInAnyOrder("a", "b");
    assertThat(plugin.podGroupOf(solo)).isEmpty();
    // a missing PodGroup is not a group cycle's business: the per-pod cycle reports it
    assertThat(plugin.podGroupOf(other)).isEmpty();
  }

  @Test
  void aProfileWithCoschedulingStillSignsAndEqualMembersOfDifferentGroupsSignAlike() {
    Coscheduling plugin = new GangFixtures.Gang().groups(podGroup("pg", 2), podGroup("qg", 2))
        .build();
    PodSignatures signatures = PodSignatures.of("default-scheduler", List.of(plugin));
    assertThat(signatures.enabled()).isTrue();
    Pod inGroup = member("a", "pg").build();
    Pod inOther = member("b", "qg").build();
    Pod solo = member("c", null).build();
    assertThat(signatures.sign(inGroup)).isNotNull().isEqualTo(signatures.sign(inOther))
        .isEqualTo(signatures.sign(solo));
  }
}
