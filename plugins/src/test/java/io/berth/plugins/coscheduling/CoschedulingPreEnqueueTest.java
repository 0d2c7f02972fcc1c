package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.GangFixtures.member;
import static io.berth.plugins.coscheduling.GangFixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** PreEnqueue as scheduler-plugins' TestPreEnqueue, with the missing-member count in the message. */
class CoschedulingPreEnqueueTest {

  private static Pod gatedMember(String name, String group) {
    return new PodBuilder(member(name, group).build()).editSpec().addNewSchedulingGate().withName("wait")
        .endSchedulingGate().endSpec().build();
  }

  @Test
  void podWithoutGroupLabelIsAdmitted() {
    Pod p = member("solo", null).build();
    assertThat(new GangFixtures.Gang().pods(p).build().preEnqueue(p).isSuccess()).isTrue();
  }

  @Test
  void memberOfMissingPodGroupIsHeldNamingTheGroup() {
    Pod p = member("p1", "ghost").build();
    Status s = new GangFixtures.Gang().pods(p).build().preEnqueue(p);
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(s.message()).contains("PodGroup \"ns/ghost\"").contains("does not exist");
  }

  @Test
  void tooFewMembersAreHeldWithHowManyAreMissing() {
    Pod p1 = member("p1", "pg").build();
    Pod p2 = member("p2", "pg").build();
    Status s = new GangFixtures.Gang().groups(podGroup("pg", 5)).pods(p1, p2).build().preEnqueue(p1);
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(s.message()).isEqualTo("PodGroup \"ns/pg\" has 2 of its minMember 5 pods: 3 missing");
  }

  @Test
  void gatedMembersDoNotCount() {
    Pod p1 = member("p1", "pg").build();
    Status s = new GangFixtures.Gang().groups(podGroup("pg", 2)).pods(p1, gatedMember("p2", "pg")).build()
        .preEnqueue(p1);
    assertThat(s.message()).isEqualTo("PodGroup \"ns/pg\" has 1 of its minMember 2 pods: 1 missing "
        + "(1 gated pods do not count)");
  }

  @Test
  void membersOfOtherGroupsOrNamespacesDoNotCount() {
    Pod p1 = member("p1", "pg").build();
    Pod other = member("p2", "other").build();
    Pod elsewhere = new PodBuilder(member("p3", "pg").build()).editMetadata().withNamespace("ns2").endMetadata()
        .build();
    Status s = new GangFixtures.Gang().groups(podGroup("pg", 2)).pods(p1, other, elsewhere).build().preEnqueue(p1);
    assertThat(s.message()).contains("1 missing");
  }

  @Test
  void enoughMembersAreAdmitted() {
    Pod p1 = member("p1", "pg").build();
    Pod p2 = member("p2", "pg").build();
    assertThat(new GangFixtures.Gang().groups(podGroup("pg", 2)).pods(p1, p2).build().preEnqueue(p1).isSuccess())
        .isTrue();
  }

  @Test
  void malformedPodGroupHoldsOnlyItsPodsNamingTheField() {
    Pod bad = member("p1", "broken").build();
    Pod fine = member("p2", "pg").build();
    Coscheduling plugin = new GangFixtures.Gang()
        .groups(podGroup("broken", Map.of("minMember", 0), Instant.EPOCH), podGroup("pg", 1)).pods(bad, fine)
        .build();
    Status s = plugin.preEnqueue(bad);
    assertThat(s.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(s.message()).contains("PodGroup \"ns/broken\"").contains("spec.minMember");
    assertThat(plugin.preEnqueue(fine).isSuccess()).isTrue();
  }
}
