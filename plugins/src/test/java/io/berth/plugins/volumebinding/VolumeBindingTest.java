package io.berth.plugins.volumebinding;

import static io.berth.plugins.volumebinding.VolumeFixtures.HOSTNAME;
import static io.berth.plugins.volumebinding.VolumeFixtures.IMMEDIATE_SC;
import static io.berth.plugins.volumebinding.VolumeFixtures.NO_PROVISIONER_SC;
import static io.berth.plugins.volumebinding.VolumeFixtures.PROVISIONING_SC;
import static io.berth.plugins.volumebinding.VolumeFixtures.WAIT_HDD_SC;
import static io.berth.plugins.volumebinding.VolumeFixtures.WAIT_SC;
import static io.berth.plugins.volumebinding.VolumeFixtures.node;
import static io.berth.plugins.volumebinding.VolumeFixtures.pod;
import static io.berth.plugins.volumebinding.VolumeFixtures.podWithClaims;
import static io.berth.plugins.volumebinding.VolumeFixtures.pv;
import static io.berth.plugins.volumebinding.VolumeFixtures.pvc;
import static io.berth.plugins.volumebinding.VolumeFixtures.storageClass;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.EventResource;
import io.berth.framework.NodeInfo;
import io.berth.framework.PreFilterResult;
import io.berth.framework.QueueingHint;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.TopologySelectorTermBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** PreFilter/Filter cases translated from upstream's volume_binding_test.go, plus edge cases. */
class VolumeBindingTest {
  private static final Status BIND_CONFLICT =
      Status.unresolvable(VolumeBinding.ERR_REASON_BIND_CONFLICT);

  record Case(String name, Pod pod, List<Node> nodes, List<HasMetadata> objects,
      Status preFilter, List<Status> filter) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Case of(String name, Pod pod, List<Node> nodes, List<HasMetadata> objects,
      Status preFilter, Status... filter) {
    return new Case(name, pod, nodes, objects, preFilter, Arrays.asList(filter));
  }

  static Stream<Arguments> cases() {
    List<Case> cases = new ArrayList<>();
    Node nodeA = node("node-a");
    cases.add(of("pod has no pvcs", pod("pod-a").build(), List.of(nodeA), List.of(),
        Status.skip()));
    cases.add(of("all bound", podWithClaims("pod-a", "pvc-a"), List.of(nodeA),
        List.of(pvc("pvc-a", "wait-sc").boundTo("pv-a").build(),
            pv("pv-a", "wait-sc").available().build()),
        Status.SUCCESS, Status.SUCCESS));
    cases.add(of("all bound with local volumes", podWithClaims("pod-a", "pvc-a", "pvc-b"),
        List.of(nodeA, node("node-b")),
        List.of(pvc("pvc-a", "wait-sc").boundTo("pv-a").build(),
            pvc("pvc-b", "wait-sc").boundTo("pv-b").build(),
            pv("pv-a", "wait-sc").phase("Bound").nodeAffinity(HOSTNAME, "node-a").build(),
            pv("pv-b", "wait-sc").phase("Bound").nodeAffinity(HOSTNAME, "node-a").build()),
        Status.SUCCESS, Status.SUCCESS,
        Status.unresolvable(VolumeBinding.ERR_REASON_NODE_CONFLICT)));
    cases.add(of("PVC does not exist", podWithClaims("pod-a", "pvc-a"), List.of(nodeA),
        List.of(), Status.unresolvable("persistentvolumeclaim \"pvc-a\" not found")));
    cases.add(of("Part of PVCs do not exist", podWithClaims("pod-a", "pvc-a", "pvc-b"),
        List.of(nodeA), List.of(pvc("pvc-a", "wait-sc").boundTo("pv-a").build()),
        Status.unresolvable("persistentvolumeclaim \"pvc-b\" not found")));
    cases.add(of("immediate claims not bound", podWithClaims("pod-a", "pvc-a"), List.of(nodeA),
        List.of(pvc("pvc-a", "immediate-sc").build()),
        Status.unresolvable(VolumeBinding.ERR_REASON_UNBOUND_IMMEDIATE)));
    cases.add(of("unbound claims no matches", podWithClaims("pod-a", "pvc-a"), List.of(nodeA),
        List.of(pvc("pvc-a", "wait-sc").build()), Status.SUCCESS, BIND_CONFLICT));
    cases.add(of("bound and unbound unsatisfied", podWithClaims("pod-a", "pvc-a", "pvc-b"),
        List.of(node("node-a", "foo", "barbar")),
        List.of(pvc("pvc-a", "wait-sc").boundTo("pv-a").build(),
            pvc("pvc-b", "wait-sc").build(),
            pv("pv-a", "wait-sc").available().nodeAffinity("foo", "bar").build()),
        Status.SUCCESS, Status.unresolvable(VolumeBinding.ERR_REASON_NODE_CONFLICT,
            VolumeBinding.ERR_REASON_BIND_CONFLICT)));
    cases.add(of("pv not found", podWithClaims("pod-a", "pvc-a"), List.of(nodeA),
        List.of(pvc("pvc-a", "wait-sc").boundTo("pv-a").build()), Status.SUCCESS,
        Status.unresolvable(VolumeBinding.ERR_REASON_PV_NOT_EXIST)));
    cases.add(of("pv not found claim lost", podWithClaims("pod-a", "pvc-a"), List.of(nodeA),
        List.of(pvc("pvc-a", "wait-sc").boundTo("pv-a").phase("Lost").build()),
        Status.unresolvable("persistentvolumeclaim \"pvc-a\" bound to non-existent"
            + " persistentvolume \"pv-a\"")));
    cases.add(of("local volumes with close capacity", podWithClaims("pod-a", "pvc-a"),
        List.of(nodeA, node("node-b"), node("node-c")),
        List.of(pvc("pvc-a", "wait-sc").request("50Gi").build(),
            pv("pv-a-0", "wait-sc").available().capacity("200Gi")
                .nodeAffinity(HOSTNAME, "node-a").build(),
            pv("pv-a-1", "wait-sc").available().capacity("200Gi")
                .nodeAffinity(HOSTNAME, "node-a").build(),
            pv("pv-b-0", "wait-sc").available().capacity("100Gi")
                .nodeAffinity(HOSTNAME, "node-b").build(),
            pv("pv-b-1", "wait-sc").available().capacity("100Gi")
                .nodeAffinity(HOSTNAME, "node-b").build()),
        Status.SUCCESS, Status.SUCCESS, Status.SUCCESS, BIND_CONFLICT));
    cases.add(of("local volumes with close capacity, multiple pvcs",
        podWithClaims("pod-a", "pvc-0", "pvc-1"),
        List.of(nodeA, node("node-b"), node("node-c")),
        List.of(pvc("pvc-0", "wait-sc").request("50Gi").build(),
            pvc("pvc-1", "wait-hdd-sc").request("100Gi").build(),
            pv("pv-a-0", "wait-sc").available().capacity("200Gi")
                .nodeAffinity(HOSTNAME, "node-a").build(),
            pv("pv-a-2", "wait-hdd-sc").available().capacity("200Gi")
                .nodeAffinity(HOSTNAME, "node-a").build(),
            pv("pv-b-0", "wait-sc").available().capacity("100Gi")
                .nodeAffinity(HOSTNAME, "node-b").build(),
            pv("pv-b-2", "wait-hdd-sc").available().capacity("100Gi")
                .nodeAffinity(HOSTNAME, "node-b").build()),
        Status.SUCCESS, Status.SUCCESS, Status.SUCCESS, BIND_CONFLICT));
    Node zoneA = node("zone-a-node-a", "topology.kubernetes.io/zone", "zone-a");
    Node zoneC = node("zone-c-node-a", "topology.kubernetes.io/zone", "zone-c");
    cases.add(of("zonal volumes", podWithClaims("pod-a", "pvc-a"), List.of(zoneA, zoneC),
        List.of(pvc("pvc-a", "wait-sc").request("50Gi").build(),
            pv("pv-a-0", "wait-sc").available().capacity("200Gi")
                .nodeAffinity("topology.kubernetes.io/zone", "zone-a").build()),
        Status.SUCCESS, Status.SUCCESS, BIND_CONFLICT));
    // edge cases beyond upstream's table
    cases.add(of("claim being deleted", podWithClaims("pod-a", "pvc-a"), List.of(nodeA),
        List.of(pvc("pvc-a", "wait-sc").deleting().build()),
        Status.unresolvable("persistentvolumeclaim \"pvc-a\" is being deleted")));
    cases.add(of("unbound claim without class binds immediately",
        podWithClaims("pod-a", "pvc-a"), List.of(nodeA), List.of(pvc("pvc-a", null).build()),
        Status.unresolvable(VolumeBinding.ERR_REASON_UNBOUND_IMMEDIATE)));
    cases.add(of("unbound claim of a missing class binds immediately",
        podWithClaims("pod-a", "pvc-a"), List.of(nodeA),
        List.of(pvc("pvc-a", "no-such-sc").build()),
        Status.unresolvable(VolumeBinding.ERR_REASON_UNBOUND_IMMEDIATE)));
    cases.add(of("pre-bound claim waits for the PV controller", podWithClaims("pod-a", "pvc-a"),
        List.of(nodeA), List.of(pvc("pvc-a", "wait-sc").preBoundTo("pv-a").build(),
            pv("pv-a", "wait-sc").available().build()),
        Status.unresolvable(VolumeBinding.ERR_REASON_UNBOUND_IMMEDIATE)));
    cases.add(of("class without binding mode", podWithClaims("pod-a", "pvc-a"), List.of(nodeA),
        List.of(pvc("pvc-a", "modeless-sc").build(), storageClass("modeless-sc", null, null)),
        Status.error("VolumeBindingMode not set for StorageClass \"modeless-sc\"")));
    cases.add(of("available volume in a class without provisioner",
        podWithClaims("pod-a", "pvc-a"), List.of(nodeA, node("node-b")),
        List.of(pvc("pvc-a", "local-sc").request("1Gi").build(),
            pv("pv-1", "local-sc").available().capacity("1Gi")
                .nodeAffinity(HOSTNAME, "node-a").build()),
        Status.SUCCESS, Status.SUCCESS, BIND_CONFLICT));
    cases.add(of("provisioning class within its allowed topology",
        podWithClaims("pod-a", "pvc-a"), List.of(zoneA, zoneC),
        List.of(pvc("pvc-a", "csi-sc").request("1Gi").build()),
        Status.SUCCESS, Status.SUCCESS, BIND_CONFLICT));
    cases.add(of("claim already provisioning for another node", podWithClaims("pod-a", "pvc-a"),
        List.of(zoneA, node("zone-a-node-b", "topology.kubernetes.io/zone", "zone-a")),
        List.of(pvc("pvc-a", "csi-sc").annotation(VolumeHelpers.ANN_SELECTED_NODE,
            "zone-a-node-b").build()),
        Status.SUCCESS, BIND_CONFLICT, Status.SUCCESS));
    cases.add(of("invalid volume node affinity is a conflict", podWithClaims("pod-a", "pvc-a"),
        List.of(nodeA), List.of(pvc("pvc-a", "wait-sc").boundTo("pv-a").build(),
            pv("pv-a", "wait-sc").nodeAffinity(HOSTNAME).build()),
        Status.SUCCESS, Status.unresolvable(VolumeBinding.ERR_REASON_NODE_CONFLICT)));
    Pod ephemeral = pod("pod-e").editSpec().addToVolumes(new VolumeBuilder().withName("scratch")
        .withNewEphemeral().endEphemeral().build()).endSpec().build();
    cases.add(of("ephemeral claim not yet created", ephemeral, List.of(nodeA), List.of(),
        Status.unresolvable("waiting for ephemeral volume controller to create the"
            + " persistentvolumeclaim \"pod-e-scratch\"")));
    cases.add(of("ephemeral claim of another pod", ephemeral, List.of(nodeA),
        List.of(pvc("pod-e-scratch", "wait-sc").build()),
        Status.unresolvable("PVC default/pod-e-scratch was not created for pod default/pod-e"
            + " (pod is not owner)")));
    PersistentVolumeClaim owned = new PersistentVolumeClaimBuilder(
        pvc("pod-e-scratch", "wait-sc").request("1Gi").build()).editMetadata()
        .withOwnerReferences(new OwnerReferenceBuilder().withKind("Pod").withName("pod-e")
            .withUid(ephemeral.getMetadata().getUid()).withController(true).build())
        .endMetadata().build();
    cases.add(of("ephemeral claim matched like any claim", ephemeral,
        List.of(nodeA, node("node-b")),
        List.of(owned, pv("pv-1", "wait-sc").available().capacity("1Gi")
            .nodeAffinity(HOSTNAME, "node-a").build()),
        Status.SUCCESS, Status.SUCCESS, BIND_CONFLICT));
    return cases.stream().map(Arguments::of);
  }

  static TestHandle handle(List<HasMetadata> objects) {
    return new TestHandle().withObjects(IMMEDIATE_SC, WAIT_SC, WAIT_HDD_SC, NO_PROVISIONER_SC,
        PROVISIONING_SC).withObjects(objects.toArray(HasMetadata[]::new));
  }

  @ParameterizedTest
  @MethodSource("cases")
  void preFilterAndFilter(Case c) {
    VolumeBinding plugin = (VolumeBinding) VolumeBinding.create(Map.of(), handle(c.objects()));
    CycleState state = new CycleState();
    List<NodeInfo> nodes = c.nodes().stream().map(NodeInfo::of).toList();

    PreFilterResult pre = plugin.preFilter(state, c.pod(), nodes);

    assertThat(pre.status()).isEqualTo(c.preFilter());
    assertThat(pre.allNodes()).isTrue();
    if (!pre.status().isSuccess()) {
      return;
    }
    List<Status> got = nodes.stream().map(n -> plugin.filter(state, c.pod(), n)).toList();
    assertThat(got).isEqualTo(c.filter());
  }

  @Test
  void filterWithoutPreFilterStateIsAnError() {
    VolumeBinding plugin = (VolumeBinding) VolumeBinding.create(Map.of(), handle(List.of()));

    Status s = plugin.filter(new CycleState(), podWithClaims("p", "c"),
        NodeInfo.of(node("node-a")));

    assertThat(s.code()).isEqualTo(Code.ERROR);
  }

  @Test
  void invalidClaimSelectorIsAnErrorNamingTheField() {
    PersistentVolumeClaim bad = new PersistentVolumeClaimBuilder(
        pvc("pvc-a", "wait-sc").build()).editSpec().withNewSelector().addNewMatchExpression()
        .withKey("k").withOperator("Bogus").endMatchExpression().endSelector().endSpec().build();
    VolumeBinding plugin = (VolumeBinding) VolumeBinding.create(Map.of(), handle(List.of(bad)));

    PreFilterResult pre = plugin.preFilter(new CycleState(), podWithClaims("p", "pvc-a"),
        List.of());

    assertThat(pre.status().code()).isEqualTo(Code.ERROR);
    assertThat(pre.status().message())
        .contains("persistentvolumeclaim default/pvc-a: spec.selector.matchExpressions[0]");
  }

  @Test
  void registersClassClaimVolumeAndNodeEvents() {
    VolumeBinding plugin = (VolumeBinding) VolumeBinding.create(Map.of(), handle(List.of()));
    long addOrUpdate = ActionType.ADD | ActionType.UPDATE;

    assertThat(plugin.eventsToRegister()).extracting(ClusterEventWithHint::event).containsExactly(
        new ClusterEvent(EventResource.STORAGE_CLASS, addOrUpdate),
        new ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, addOrUpdate),
        new ClusterEvent(EventResource.PERSISTENT_VOLUME, addOrUpdate),
        new ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL));
  }

  static Stream<Arguments> claimHintCases() {
    Pod ephemeral = pod("pod-e").editSpec().addToVolumes(new VolumeBuilder().withName("scratch")
        .withNewEphemeral().endEphemeral().build()).endSpec().build();
    PersistentVolumeClaim otherNs = new PersistentVolumeClaimBuilder(
        pvc("pvc-a", "wait-sc").build()).editMetadata().withNamespace("other").endMetadata()
        .build();
    return Stream.of(
        Arguments.of("claim the pod uses", podWithClaims("p", "pvc-a", "pvc-b"),
            pvc("pvc-b", "wait-sc").build(), QueueingHint.QUEUE),
        Arguments.of("claim the pod does not use", podWithClaims("p", "pvc-a"),
            pvc("pvc-b", "wait-sc").build(), QueueingHint.QUEUE_SKIP),
        Arguments.of("claim in another namespace", podWithClaims("p", "pvc-a"), otherNs,
            QueueingHint.QUEUE_SKIP),
        Arguments.of("generic ephemeral volume's claim", ephemeral,
            pvc("pod-e-scratch", "wait-sc").build(), QueueingHint.QUEUE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("claimHintCases")
  void hintAfterClaimChange(String name, Pod pod, PersistentVolumeClaim pvc, QueueingHint want) {
    assertThat(VolumeBinding.isSchedulableAfterClaimChange(pod, null, pvc)).isEqualTo(want);
    assertThat(VolumeBinding.isSchedulableAfterClaimChange(pod, pvc, pvc)).isEqualTo(want);
  }

  @Test
  void hintAfterStorageClassChangeQueuesOnlyForNewClassesOrTopologies() {
    Pod pod = podWithClaims("p", "pvc-a");
    StorageClass zoned = new StorageClassBuilder(WAIT_SC).withAllowedTopologies(
        new TopologySelectorTermBuilder().addNewMatchLabelExpression().withKey("zone")
            .withValues("a").endMatchLabelExpression().build()).build();
    StorageClass relabelled = new StorageClassBuilder(WAIT_SC).editMetadata()
        .addToLabels("x", "y").endMetadata().build();
    StorageClass emptyTopologies = new StorageClassBuilder(WAIT_SC)
        .withAllowedTopologies(List.of()).build();

    assertThat(VolumeBinding.isSchedulableAfterStorageClassChange(pod, null, WAIT_SC))
        .isEqualTo(QueueingHint.QUEUE);
    assertThat(VolumeBinding.isSchedulableAfterStorageClassChange(pod, WAIT_SC, zoned))
        .isEqualTo(QueueingHint.QUEUE);
    assertThat(VolumeBinding.isSchedulableAfterStorageClassChange(pod, WAIT_SC, relabelled))
        .isEqualTo(QueueingHint.QUEUE_SKIP);
    assertThat(VolumeBinding.isSchedulableAfterStorageClassChange(pod, WAIT_SC, emptyTopologies))
        .isEqualTo(QueueingHint.QUEUE_SKIP);
  }

  @Test
  void hintsRejectObjectsOfTheWrongKind() {
    Pod pod = podWithClaims("p", "pvc-a");
    assertThatThrownBy(() -> VolumeBinding.isSchedulableAfterClaimChange(pod, null, WAIT_SC))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> VolumeBinding.isSchedulableAfterStorageClassChange(pod, null,
        pvc("x", "y").build())).isInstanceOf(IllegalArgumentException.class);
  }
}
