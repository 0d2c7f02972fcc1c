package io.berth.controller.podgroup;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.controller.EventRecorder;
import io.berth.controller.PodFixture;
import io.berth.controller.WallClock;
import io.berth.workqueue.FakeClock;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The podgroup controller's sync against cached groups and pods, a fake clock, a status writer that applies the
 * merge patch to the cache and a recorder that keeps the events: scheduler-plugins' phases and counts, the
 * v1alpha2 PodGroupScheduled condition, events, and bad groups.
 */
class PodGroupSyncTest {

  private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

  private final FakeClock clock = new FakeClock();
  private final Map<GroupKey, GenericKubernetesResource> groups = new HashMap<>();
  private final List<Pod> pods = new ArrayList<>();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private int writes;
  private final PodGroupSync sync = new PodGroupSync(k -> Optional.ofNullable(groups.get(k)), ns -> pods,
      this::apply, new Recorder(), WallClock.anchored(clock, T0));

  private final class Recorder implements EventRecorder {
    @Override
    public void event(HasMetadata object, String type, String reason, String messageFormat, Object... args) {
      events.add(object.getMetadata().getName() + " " + type + " " + reason + ": " + String.format(messageFormat,
          args));
    }
  }

  @SuppressWarnings("unchecked")
  private void apply(GroupKey key, Map<String, Object> status) {
    writes++;
    GenericKubernetesResource g = groups.get(key);
    Map<String, Object> merged = new LinkedHashMap<>((Map<String, Object>) g.getAdditionalProperties()
        .getOrDefault("status", Map.of()));
    merged.putAll(status);
    g.getAdditionalProperties().put("status", merged);
  }

  private static final GroupKey PG = new GroupKey(GroupKey.Api.SCHEDULER_PLUGINS, "default", "gang");
  private static final GroupKey WL = new GroupKey(GroupKey.Api.WORKLOAD, "default", "gang");

  private void schedulerPluginsGroup(Object minMember) {
    groups.put(PG, new GenericKubernetesResourceBuilder().withApiVersion("scheduling.x-k8s.io/v1alpha1")
        .withKind("PodGroup").withNewMetadata().withNamespace("default").withName("gang").endMetadata()
        .addToAdditionalProperties("spec", new HashMap<>(Map.of("minMember", minMember))).build());
  }

  private void workloadGroup(Map<String, Object> policy) {
    groups.put(WL, new GenericKubernetesResourceBuilder().withApiVersion("scheduling.k8s.io/v1alpha2")
        .withKind("PodGroup").withNewMetadata().withNamespace("default").withName("gang").withGeneration(3L)
        .endMetadata().addToAdditionalProperties("spec", Map.of("schedulingPolicy", policy)).build());
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> status(GroupKey key) {
    return (Map<String, Object>) groups.get(key).getAdditionalProperties().get("status");
  }

  private static Pod labelled(String name, String node, String phase) {
    PodFixture f = PodFixture.pod(name).namespace("default").label(GroupKey.LABEL, "gang").phase(phase);
    if (node != null) {
      f.onNode(node);
    }
    return f.build();
  }

  private static Pod member(String name, String node) {
    PodFixture f = PodFixture.pod(name).namespace("default");
    if (node != null) {
      f.onNode(node);
    }
    return new PodBuilder(f.build()).editSpec().withNewSchedulingGroup().withPodGroupName("gang")
        .endSchedulingGroup().endSpec().build();
  }

  private static Pod unschedulable(Pod p, String reason, String message) {
    return new PodBuilder(p).editStatus().withConditions(new PodConditionBuilder().withType("PodScheduled")
        .withStatus("False").withReason(reason).withMessage(message).build()).endStatus().build();
  }

  @Test
  void schedulerPluginsGroupMovesPendingSchedulingRunningFinished() throws Exception {
    schedulerPluginsGroup(3);
    sync.sync(PG.encode());
    assertThat(status(PG)).containsEntry("phase", "Pending").containsEntry("scheduled", 0);

    Pod owned = new PodBuilder(labelled("a", null, "Pending")).editMetadata().withOwnerReferences(
        new OwnerReferenceBuilder().withName("job-1").withKind("Job").withApiVersion("batch/v1").withUid("u")
            .build()).endMetadata().build();
    pods.addAll(List.of(owned, labelled("b", null, "Pending")));
    sync.sync(PG.encode());
    assertThat(status(PG)).as("2 of 3 members").containsEntry("phase", "Pending");

    clock.advance(Duration.ofSeconds(90));
    pods.add(labelled("c", null, "Pending"));
    sync.sync(PG.encode());
    assertThat(status(PG)).containsEntry("phase", "Scheduling").containsEntry("scheduleStartTime",
        "2026-03-01T10:01:30Z").containsEntry("occupiedBy", "default/job-1");

    pods.clear();
    pods.addAll(List.of(labelled("a", "n1", "Running"), labelled("b", "n1", "Running"),
        labelled("c", "n2", "Pending")));
    sync.sync(PG.encode());
    assertThat(status(PG)).as("2 running of 3").containsEntry("phase", "Scheduling")
        .containsEntry("scheduled", 3).containsEntry("running", 2);

    pods.set(2, labelled("c", "n2", "Running"));
    clock.advance(Duration.ofSeconds(30));
    sync.sync(PG.encode());
    assertThat(status(PG)).containsEntry("phase", "Running").containsEntry("running", 3)
        .as("the start time stays").containsEntry("scheduleStartTime", "2026-03-01T10:01:30Z");

    pods.replaceAll(p -> labelled(p.getMetadata().getName(), "n1", "Succeeded"));
    sync.sync(PG.encode());
    assertThat(status(PG)).containsEntry("phase", "Finished").containsEntry("succeeded", 3);
    int before = writes;
    pods.clear();
    sync.sync(PG.encode());
    assertThat(writes).as("Finished is final").isEqualTo(before);

    assertThat(events).containsExactly(
        "gang Normal Pending: PodGroup phase \"\" -> Pending: 0 pods (minMember 3), 0 scheduled, 0 running, "
            + "0 succeeded, 0 failed",
        "gang Normal Scheduling: PodGroup phase Pending -> Scheduling: 3 pods (minMember 3), 0 scheduled, "
            + "0 running, 0 succeeded, 0 failed",
        "gang Normal Running: PodGroup phase Scheduling -> Running: 3 pods (minMember 3), 3 scheduled, 3 running, "
            + "0 succeeded, 0 failed",
        "gang Normal Finished: PodGroup phase Running -> Finished: 3 pods (minMember 3), 3 scheduled, "
            + "0 running, 3 succeeded, 0 failed");
  }

  @Test
  void aLostMemberSendsTheGroupBackToPendingAndAFailureFailsIt() throws Exception {
    schedulerPluginsGroup(2);
    groups.get(PG).getAdditionalProperties().put("status", new HashMap<>(Map.of("phase", "Running")));
    pods.add(labelled("a", "n1", "Running"));
    sync.sync(PG.encode());
    assertThat(status(PG)).containsEntry("phase", "Pending");

    groups.get(PG).getAdditionalProperties().put("status", new HashMap<>(Map.of("phase", "Running")));
    pods.add(labelled("b", "n1", "Failed"));
    sync.sync(PG.encode());
    assertThat(status(PG)).containsEntry("phase", "Failed").containsEntry("failed", 1);
    assertThat(events.get(events.size() - 1)).startsWith("gang Warning Failed: PodGroup phase Running -> Failed");
  }

  @Test
  void unchangedStatusIsNotWritten() throws Exception {
    schedulerPluginsGroup(1);
    sync.sync(PG.encode());
    sync.sync(PG.encode());
    assertThat(writes).isEqualTo(1);
  }

  @Test
  void workloadGroupIsUnschedulableWithTheMembersMessageThenScheduled() throws Exception {
    workloadGroup(Map.of("gang", Map.of("minCount", 2)));
    pods.add(member("a", null));
    pods.add(member("b", null));
    sync.sync(WL.encode());
    assertThat(writes).as("not tried yet: no condition").isZero();

    pods.set(1, unschedulable(member("b", null), "Unschedulable", "0/3 nodes are available: 3 Insufficient cpu."));
    pods.set(0, member("a", "n1"));
    sync.sync(WL.encode());
    @SuppressWarnings("unchecked")
    Map<String, Object> c = ((List<Map<String, Object>>) status(WL).get("conditions")).get(0);
    assertThat(c).containsEntry("type", "PodGroupScheduled").containsEntry("status", "False")
        .containsEntry("reason", "Unschedulable").containsEntry("observedGeneration", 3L)
        .containsEntry("lastTransitionTime", "2026-03-01T10:00:00Z")
        .containsEntry("message", "1 of minCount 2 pods are on nodes; pod \"b\": 0/3 nodes are available: 3 "
            + "Insufficient cpu.");

    clock.advance(Duration.ofMinutes(2));
    pods.set(1, member("b", "n2"));
    sync.sync(WL.encode());
    @SuppressWarnings("unchecked")
    Map<String, Object> scheduled = ((List<Map<String, Object>>) status(WL).get("conditions")).get(0);
    assertThat(scheduled).containsEntry("status", "True").containsEntry("reason", "Scheduled")
        .containsEntry("lastTransitionTime", "2026-03-01T10:02:00Z")
        .containsEntry("message", "2 of minCount 2 pods are on nodes");
    int before = writes;
    sync.sync(WL.encode());
    assertThat(writes).isEqualTo(before);
    assertThat(events).containsExactly(
        "gang Warning Unschedulable: 1 of minCount 2 pods are on nodes; pod \"b\": 0/3 nodes are available: 3 "
            + "Insufficient cpu.",
        "gang Normal Scheduled: 2 of minCount 2 pods are on nodes");
  }

  @Test
  void basicPolicyIsScheduledWithOnePodAndOtherConditionsAreKept() throws Exception {
    workloadGroup(Map.of("basic", Map.of()));
    groups.get(WL).getAdditionalProperties().put("status", Map.of("conditions", List.of(Map.of("type",
        "DisruptionTarget", "status", "False", "reason", "None", "message", "", "lastTransitionTime",
        "2026-01-01T00:00:00Z"))));
    pods.add(member("a", "n1"));
    sync.sync(WL.encode());
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> conditions = (List<Map<String, Object>>) status(WL).get("conditions");
    assertThat(conditions).extracting(m -> m.get("type")).containsExactly("DisruptionTarget", "PodGroupScheduled");
  }

  @Test
  void membersOfOtherGroupsAndApisDoNotCount() throws Exception {
    schedulerPluginsGroup(1);
    pods.add(member("workload-member", "n1"));
    pods.add(PodFixture.pod("other").namespace("default").label(GroupKey.LABEL, "another").build());
    sync.sync(PG.encode());
    sync.sync(PG.encode());
    assertThat(status(PG)).containsEntry("phase", "Pending").containsEntry("scheduled", 0);
  }

  @Test
  void badGroupsGetAWarningNamingTheFieldAndAreNotWritten() throws Exception {
    schedulerPluginsGroup("three");
    sync.sync(PG.encode());
    workloadGroup(Map.of("basic", Map.of(), "gang", Map.of("minCount", 2)));
    sync.sync(WL.encode());
    workloadGroup(Map.of("gang", Map.of("minCount", 0)));
    sync.sync(WL.encode());
    assertThat(writes).isZero();
    assertThat(events).containsExactly(
        "gang Warning InvalidPodGroup: PodGroup \"default/gang\" (scheduling.x-k8s.io/v1alpha1): spec.minMember: "
            + "Invalid value: three: must be an integer of at least 1",
        "gang Warning InvalidPodGroup: PodGroup \"default/gang\" (scheduling.k8s.io/v1alpha2): "
            + "spec.schedulingPolicy: Invalid value: exactly one of basic and gang must be set",
        "gang Warning InvalidPodGroup: PodGroup \"default/gang\" (scheduling.k8s.io/v1alpha2): "
            + "spec.schedulingPolicy.gang.minCount: Invalid value: 0: must be an integer of at least 1");
  }

  @Test
  void deletedGroupsAndMalformedKeysAreIgnored() throws Exception {
    sync.sync(PG.encode());
    sync.sync("nonsense");
    assertThat(writes).isZero();
    assertThat(events).isEmpty();
  }

  @Test
  void keysRoundTripAndPodsNameTheirGroup() {
    assertThat(GroupKey.decode(WL.encode())).contains(WL);
    assertThat(GroupKey.decode("scheduling.x-k8s.io/ns/a")).contains(new GroupKey(GroupKey.Api.SCHEDULER_PLUGINS,
        "ns", "a"));
    assertThat(GroupKey.decode("scheduling.k8s.io/ns/")).isEmpty();
    Pod both = new PodBuilder(member("a", null)).editMetadata().addToLabels(GroupKey.LABEL, "x").endMetadata()
        .build();
    assertThat(GroupKey.of(both)).contains(WL);
    assertThat(GroupKey.of(labelled("b", null, "Pending"))).contains(PG);
  }
}
