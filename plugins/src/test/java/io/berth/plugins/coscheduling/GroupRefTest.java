package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.GangFixtures.member;
import static io.berth.plugins.coscheduling.WorkloadFixtures.workloadMember;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which group a pod names: the scheduler-plugins label or the 1.36 {@code spec.schedulingGroup}. */
class GroupRefTest {

  @Test
  void labelNamesASchedulerPluginsPodGroup() {
    assertThat(GroupRef.of(member("p", "pg").build()))
        .contains(new GroupRef(GroupRef.Api.SCHEDULER_PLUGINS, "ns", "pg"));
  }

  @Test
  void schedulingGroupIsReadFromThePodsJson() {
    Pod pod = Serialization.unmarshal("""
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"team"},
         "spec":{"schedulingGroup":{"podGroupName":"trainers"},"containers":[{"name":"c","image":"pause"}]}}
        """, Pod.class);
    assertThat(GroupRef.of(pod)).contains(new GroupRef(GroupRef.Api.WORKLOAD, "team", "trainers"));
    assertThat(Serialization.asJson(pod)).as("the field survives a round trip")
        .contains("\"schedulingGroup\":{\"podGroupName\":\"trainers\"}");
  }

  @Test
  void specFieldWinsOverTheLabel() {
    Pod pod = new PodBuilder(workloadMember("p", "wl", "1")).editMetadata().addToLabels(PodGroup.LABEL, "pg")
        .endMetadata().build();
    assertThat(GroupRef.of(pod)).contains(new GroupRef(GroupRef.Api.WORKLOAD, "ns", "wl"));
  }

  @Test
  void emptyPodGroupNameNamesNoGroup() {
    Pod empty = new PodBuilder(member("r", null).build()).editSpec().withNewSchedulingGroup().withPodGroupName("")
        .endSchedulingGroup().endSpec().build();
    Pod unset = new PodBuilder(member("s", null).build()).editSpec().withNewSchedulingGroup().endSchedulingGroup()
        .endSpec().build();
    assertThat(GroupRef.of(empty)).isEqualTo(Optional.empty());
    assertThat(GroupRef.of(unset)).isEmpty();
    assertThat(GroupRef.of(member("t", null).build())).isEmpty();
  }

  @Test
  void groupsOfTheTwoApisWithOneNameAreDistinct() {
    GroupRef x = GroupRef.of(member("p", "same").build()).orElseThrow();
    GroupRef w = GroupRef.of(workloadMember("q", "same", "1")).orElseThrow();
    assertThat(x).isNotEqualTo(w);
    assertThat(x.key()).isEqualTo(w.key()).isEqualTo("ns/same");
  }
}
