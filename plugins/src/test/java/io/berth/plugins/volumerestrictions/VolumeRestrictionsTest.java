package io.berth.plugins.volumerestrictions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEvent;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.EventResource;
import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.PreFilterExtensions;
import io.berth.framework.PreFilterResult;
import io.berth.framework.QueueingHint;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Cases translated from upstream's volume_restrictions_test.go, plus edge cases. */
class VolumeRestrictionsTest {
  private static final Status DISK_CONFLICT =
      Status.unschedulable(VolumeRestrictions.ERR_REASON_DISK_CONFLICT);
  private static final Status RWOP_CONFLICT =
      Status.unschedulable(VolumeRestrictions.ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT);
  private static final Node NODE_1 = new NodeBuilder().withNewMetadata().withName("node-1")
      .endMetadata().build();

  static Volume gce(String pd, boolean readOnly) {
    return new VolumeBuilder().withName("v-" + pd).withNewGcePersistentDisk().withPdName(pd)
        .withReadOnly(readOnly).endGcePersistentDisk().build();
  }

  static Volume aws(String id, boolean readOnly) {
    return new VolumeBuilder().withName("v-" + id).withNewAwsElasticBlockStore().withVolumeID(id)
        .withReadOnly(readOnly).endAwsElasticBlockStore().build();
  }

  static Volume rbd(List<String> monitors, boolean readOnly) {
    return new VolumeBuilder().withName("rbd").withNewRbd().withMonitors(monitors)
        .withPool("foo").withImage("bar").withFsType("ext4").withReadOnly(readOnly).endRbd()
        .build();
  }

  static Volume iscsi(String iqn, boolean readOnly) {
    return new VolumeBuilder().withName("iscsi").withNewIscsi().withTargetPortal("127.0.0.1:3260")
        .withIqn(iqn).withFsType("ext4").withLun(0).withReadOnly(readOnly).endIscsi().build();
  }

  static Volume claim(String name) {
    return new VolumeBuilder().withName("vol-" + name).withNewPersistentVolumeClaim()
        .withClaimName(name).endPersistentVolumeClaim().build();
  }

  static Pod pod(String name, Volume... volumes) {
    return pod(name, "default", volumes);
  }

  static Pod pod(String name, String namespace, Volume... volumes) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace(namespace)
        .withUid(UUID.randomUUID().toString()).endMetadata().withNewSpec()
        .withVolumes(Arrays.asList(volumes)).withNodeName("node-1").endSpec().build();
  }

  static PersistentVolumeClaim pvc(String name, String accessMode) {
    return new PersistentVolumeClaimBuilder().withNewMetadata().withName(name)
        .withNamespace("default").endMetadata().withNewSpec().withAccessModes(accessMode)
        .endSpec().build();
  }

  static NodeInfo node(Pod... pods) {
    return NodeInfo.of(NODE_1, pods);
  }

  record DiskCase(String name, Pod pod, NodeInfo node, Status preFilter, Status filter) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> diskCases() {
    List<DiskCase> cases = new ArrayList<>();
    Map<String, Volume[]> kinds = Map.of(
        "gce", new Volume[] {gce("foo", false), gce("bar", false)},
        "aws", new Volume[] {aws("foo", false), aws("bar", false)},
        "rbd", new Volume[] {rbd(List.of("a", "b"), false), rbd(List.of("c", "d"), false)},
        "iscsi", new Volume[] {iscsi("iqn.2016-12.server:storage.target01", false),
            iscsi("iqn.2017-12.server:storage.target01", false)});
    kinds.forEach((kind, v) -> {
      cases.add(new DiskCase(kind + ": nothing", pod("p"), node(), Status.skip(), null));
      cases.add(new DiskCase(kind + ": one state", pod("p"), node(pod("e", v[0])), Status.skip(),
          null));
      cases.add(new DiskCase(kind + ": same state", pod("p", v[0]), node(pod("e", v[0])),
          Status.SUCCESS, DISK_CONFLICT));
      cases.add(new DiskCase(kind + ": different state", pod("p", v[1]), node(pod("e", v[0])),
          Status.SUCCESS, Status.SUCCESS));
    });
    Volume plain = new VolumeBuilder().withName("volume with no restriction").build();
    cases.add(new DiskCase("a volume without restrictions", pod("p", plain), node(),
        Status.skip(), null));
    // read-only sharing: allowed for GCE PD, iSCSI and RBD when every mount is read-only
    cases.add(new DiskCase("gce: both read-only", pod("p", gce("foo", true)),
        node(pod("e", gce("foo", true))), Status.SUCCESS, Status.SUCCESS));
    cases.add(new DiskCase("gce: existing read-write", pod("p", gce("foo", true)),
        node(pod("e", gce("foo", false))), Status.SUCCESS, DISK_CONFLICT));
    cases.add(new DiskCase("aws: read-only still conflicts", pod("p", aws("foo", true)),
        node(pod("e", aws("foo", true))), Status.SUCCESS, DISK_CONFLICT));
    cases.add(new DiskCase("iscsi: both read-only", pod("p", iscsi("iqn", true)),
        node(pod("e", iscsi("iqn", true))), Status.SUCCESS, Status.SUCCESS));
    cases.add(new DiskCase("rbd: one shared monitor is the same image",
        pod("p", rbd(List.of("a", "b"), false)), node(pod("e", rbd(List.of("b", "c"), false))),
        Status.SUCCESS, DISK_CONFLICT));
    cases.add(new DiskCase("rbd: both read-only", pod("p", rbd(List.of("a"), true)),
        node(pod("e", rbd(List.of("a"), true))), Status.SUCCESS, Status.SUCCESS));
    return cases.stream().map(Arguments::of);
  }

  @ParameterizedTest
  @MethodSource("diskCases")
  void diskConflicts(DiskCase c) {
    TestHandle handle = new TestHandle().withNodes(List.of(c.node()));
    VolumeRestrictions plugin = (VolumeRestrictions) VolumeRestrictions.create(Map.of(), handle);
    CycleState state = new CycleState();

    PreFilterResult pre = plugin.preFilter(state, c.pod(), List.of(c.node()));

    assertThat(pre.status()).isEqualTo(c.preFilter());
    if (pre.status().isSuccess()) {
      assertThat(plugin.filter(state, c.pod(), c.node())).isEqualTo(c.filter());
    }
  }

  // access mode fixtures, as upstream's TestAccessModeConflicts
  private static final Pod WITH_ONE_PVC = pod("pod-with-one-pvc", claim("claim-with-rwop-1"));
  private static final Pod WITH_TWO_PVCS = pod("pod-with-two-pvcs", claim("claim-with-rwop-1"),
      claim("claim-with-rwop-2"));
  private static final Pod ONE_CONFLICT = pod("pod-with-one-conflict", claim("claim-with-rwop-1"));
  private static final Pod TWO_CONFLICTS = pod("pod-with-two-conflicts",
      claim("claim-with-rwop-1"), claim("claim-with-rwop-2"));
  private static final Pod WITH_RWX = pod("pod-with-rwx", claim("claim-with-rwx"));
  private static final PersistentVolumeClaim RWOP_1 = pvc("claim-with-rwop-1", "ReadWriteOncePod");
  private static final PersistentVolumeClaim RWOP_2 = pvc("claim-with-rwop-2", "ReadWriteOncePod");
  private static final PersistentVolumeClaim RWX = pvc("claim-with-rwx", "ReadWriteMany");

  record AccessCase(String name, Pod pod, List<Pod> existing, List<PersistentVolumeClaim> pvcs,
      Status preFilter, Status filter) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> accessModeCases() {
    return Stream.of(
        new AccessCase("nothing", pod("p"), List.of(), List.of(), Status.skip(), null),
        new AccessCase("failed to get PVC", WITH_ONE_PVC, List.of(), List.of(),
            Status.unresolvable("persistentvolumeclaim \"claim-with-rwop-1\" not found"), null),
        new AccessCase("no access mode conflict", WITH_ONE_PVC, List.of(WITH_RWX),
            List.of(RWOP_1, RWX), Status.skip(), null),
        new AccessCase("access mode conflict, unschedulable", ONE_CONFLICT,
            List.of(WITH_ONE_PVC, WITH_RWX), List.of(RWOP_1, RWX), Status.SUCCESS, RWOP_CONFLICT),
        new AccessCase("two conflicts, unschedulable", TWO_CONFLICTS,
            List.of(WITH_TWO_PVCS, WITH_RWX), List.of(RWOP_1, RWOP_2, RWX), Status.SUCCESS,
            RWOP_CONFLICT),
        new AccessCase("a read-write-many claim in use is no conflict",
            pod("p", claim("claim-with-rwx")), List.of(WITH_RWX), List.of(RWX), Status.skip(),
            null)
    ).map(Arguments::of);
  }

  @ParameterizedTest
  @MethodSource("accessModeCases")
  void readWriteOncePodConflicts(AccessCase c) {
    NodeInfo node = node(c.existing().toArray(Pod[]::new));
    TestHandle handle = new TestHandle().withNodes(List.of(node))
        .withObjects(c.pvcs().toArray(PersistentVolumeClaim[]::new));
    VolumeRestrictions plugin = (VolumeRestrictions) VolumeRestrictions.create(Map.of(), handle);
    CycleState state = new CycleState();

    PreFilterResult pre = plugin.preFilter(state, c.pod(), List.of(node));

    assertThat(pre.status()).isEqualTo(c.preFilter());
    if (pre.status().isSuccess()) {
      assertThat(plugin.filter(state, c.pod(), node)).isEqualTo(c.filter());
    }
  }

  @Test
  void removingTheClaimsUserClearsTheConflictAndAddingItBackRestoresIt() {
    NodeInfo node = node(WITH_ONE_PVC);
    TestHandle handle = new TestHandle().withNodes(List.of(node)).withObjects(RWOP_1);
    VolumeRestrictions plugin = (VolumeRestrictions) VolumeRestrictions.create(Map.of(), handle);
    CycleState state = new CycleState();
    assertThat(plugin.preFilter(state, ONE_CONFLICT, List.of(node)).status().isSuccess()).isTrue();
    PreFilterExtensions ext = plugin.preFilterExtensions().orElseThrow();

    CycleState simulated = state.copy();
    assertThat(ext.removePod(simulated, ONE_CONFLICT, PodInfo.of(WITH_ONE_PVC), node))
        .isEqualTo(Status.SUCCESS);
    assertThat(plugin.filter(simulated, ONE_CONFLICT, node)).isEqualTo(Status.SUCCESS);
    // the copy is independent: the original cycle still sees the conflict
    assertThat(plugin.filter(state, ONE_CONFLICT, node)).isEqualTo(RWOP_CONFLICT);

    ext.addPod(simulated, ONE_CONFLICT, PodInfo.of(WITH_ONE_PVC), node);
    assertThat(plugin.filter(simulated, ONE_CONFLICT, node)).isEqualTo(RWOP_CONFLICT);
  }

  @Test
  void addingAPodFromAnotherNamespaceWithTheSameClaimNameIsNoConflict() {
    NodeInfo node = node(WITH_ONE_PVC);
    TestHandle handle = new TestHandle().withNodes(List.of(node)).withObjects(RWOP_1);
    VolumeRestrictions plugin = (VolumeRestrictions) VolumeRestrictions.create(Map.of(), handle);
    CycleState state = new CycleState();
    plugin.preFilter(state, ONE_CONFLICT, List.of(node));
    PreFilterExtensions ext = plugin.preFilterExtensions().orElseThrow();
    ext.removePod(state, ONE_CONFLICT, PodInfo.of(WITH_ONE_PVC), node);

    ext.addPod(state, ONE_CONFLICT, PodInfo.of(pod("other", "team-b", claim("claim-with-rwop-1"))),
        node);

    assertThat(plugin.filter(state, ONE_CONFLICT, node)).isEqualTo(Status.SUCCESS);
  }

  @Test
  void extensionsAndFilterWithoutPreFilterStateAreErrors() {
    VolumeRestrictions plugin = (VolumeRestrictions) VolumeRestrictions.create(Map.of(),
        new TestHandle());
    NodeInfo node = node();

    assertThat(plugin.filter(new CycleState(), pod("p", gce("foo", false)), node).code())
        .isEqualTo(Code.ERROR);
    assertThat(plugin.addPod(new CycleState(), pod("p"), PodInfo.of(pod("e")), node).code())
        .isEqualTo(Code.ERROR);
  }

  @Test
  void createRejectsArgs() {
    assertThatThrownBy(() -> VolumeRestrictions.create(Map.of("foo", 1), new TestHandle()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"foo\"");
    assertThat(VolumeRestrictions.create(Map.of("kind", "x"), new TestHandle()).name())
        .isEqualTo("VolumeRestrictions");
  }

  static Stream<Arguments> podDeletedCases() {
    Volume gce1 = gce("foo", false);
    Volume aws1 = aws("foo", false);
    Volume rbd1 = rbd(List.of("a", "b"), false);
    Volume iscsi1 = iscsi("iqn.2016-12.server:storage.target01", false);
    return Stream.of(
        Arguments.of("queue-new-object-gcedisk-conflict", pod("p", gce1), pod("d", gce1),
            QueueingHint.QUEUE),
        Arguments.of("skip-new-object-gcedisk-no-conflict", pod("p", gce1),
            pod("d", gce("bar", false)), QueueingHint.QUEUE_SKIP),
        Arguments.of("queue-new-object-awsdisk-conflict", pod("p", aws1), pod("d", aws1),
            QueueingHint.QUEUE),
        Arguments.of("skip-new-object-awsdisk-no-conflict", pod("p", aws1),
            pod("d", aws("bar", false)), QueueingHint.QUEUE_SKIP),
        Arguments.of("queue-new-object-rbddisk-conflict", pod("p", rbd1), pod("d", rbd1),
            QueueingHint.QUEUE),
        Arguments.of("skip-new-object-rbddisk-no-conflict", pod("p", rbd1),
            pod("d", rbd(List.of("c", "d"), false)), QueueingHint.QUEUE_SKIP),
        Arguments.of("queue-new-object-iscsidisk-conflict", pod("p", iscsi1), pod("d", iscsi1),
            QueueingHint.QUEUE),
        Arguments.of("skip-new-object-iscsidisk-no-conflict", pod("p", iscsi1),
            pod("d", iscsi("iqn.2017-12.server:storage.target01", false)),
            QueueingHint.QUEUE_SKIP),
        Arguments.of("queue-has-same-claim", pod("pod1", claim("claim-rwop")),
            pod("pod2", claim("claim-rwop")), QueueingHint.QUEUE),
        Arguments.of("skip-no-same-claim", pod("pod1", claim("claim-1-rwop")),
            pod("pod2", claim("claim-2-rwop")), QueueingHint.QUEUE_SKIP),
        Arguments.of("skip-other-namespace", pod("pod1", claim("c")),
            pod("pod2", "kube-system", claim("c")), QueueingHint.QUEUE_SKIP));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("podDeletedCases")
  void hintAfterPodDeleted(String name, Pod pod, Pod deleted, QueueingHint want) {
    assertThat(VolumeRestrictions.isSchedulableAfterPodDeleted(pod, deleted, null))
        .isEqualTo(want);
  }

  static Stream<Arguments> claimAddedCases() {
    Pod twoClaims = pod("pod-with-two-pvcs", claim("claim-with-rwx-1"), claim("claim-with-rwx-2"));
    Pod oneClaim = pod("pod-with-one-pvc", claim("claim-with-rwx-1"));
    Pod otherNamespace = pod("pod-with-one-pvc", "kube-system", claim("claim-with-rwx-1"));
    PersistentVolumeClaim pvc1 = pvc("claim-with-rwx-1", "ReadWriteMany");
    PersistentVolumeClaim pvc2 = pvc("claim-with-rwx-2", "ReadWriteMany");
    return Stream.of(
        Arguments.of("queue-new-object-pvc-belong-pod", twoClaims, pvc1, QueueingHint.QUEUE),
        Arguments.of("skip-new-object-unused", oneClaim, pvc2, QueueingHint.QUEUE_SKIP),
        Arguments.of("skip-new-object-namespace-not-equal-pod", otherNamespace, pvc1,
            QueueingHint.QUEUE_SKIP));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("claimAddedCases")
  void hintAfterClaimAdded(String name, Pod pod, PersistentVolumeClaim added, QueueingHint want) {
    assertThat(VolumeRestrictions.isSchedulableAfterClaimAdded(pod, null, added)).isEqualTo(want);
  }

  @Test
  void hintsRejectObjectsOfTheWrongKind() {
    assertThatThrownBy(() -> VolumeRestrictions.isSchedulableAfterPodDeleted(pod("p"),
        RWX, null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> VolumeRestrictions.isSchedulableAfterClaimAdded(pod("p"), null,
        pod("x"))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void registersPodDeleteNodeAddAndClaimAdd() {
    List<ClusterEvent> events = VolumeRestrictions.create(Map.of(), new TestHandle()) instanceof
        VolumeRestrictions vr ? vr.eventsToRegister().stream().map(ClusterEventWithHint::event)
        .toList() : List.of();

    assertThat(events).containsExactly(
        new ClusterEvent(EventResource.POD, ActionType.DELETE),
        new ClusterEvent(EventResource.NODE, ActionType.ADD),
        new ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD));
  }
}
