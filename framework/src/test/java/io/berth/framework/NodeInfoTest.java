package io.berth.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeInfoTest {
  static Node node(String name, String cpu, String memory) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().withNewStatus()
        .addToAllocatable("cpu", new Quantity(cpu)).addToAllocatable("memory", new Quantity(memory))
        .addToAllocatable("pods", new Quantity("110")).endStatus().build();
  }

  static Pod pod(String name, String cpu, int hostPort) {
    var c = new ContainerBuilder().withName("c").withNewResources()
        .addToRequests("cpu", new Quantity(cpu)).endResources();
    if (hostPort > 0) {
      c.withPorts(new ContainerPortBuilder().withContainerPort(80).withHostPort(hostPort).build());
    }
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("ns").withUid("uid-" + name)
        .endMetadata().withNewSpec().withContainers(c.build()).endSpec().build();
  }

  @Test
  void addAndRemoveKeepSumsPortsAndGenerations() {
    NodeInfo info = NodeInfo.of(node("n1", "4", "8Gi"));
    assertThat(info.allocatable().milliCpu()).isEqualTo(4000);
    assertThat(info.allocatable().allowedPodNumber()).isEqualTo(110);
    long g0 = info.generation();
    info.addPod(PodInfo.of(pod("a", "500m", 8080)));
    info.addPod(PodInfo.of(pod("b", "250m", 0)));
    assertThat(info.generation()).isGreaterThan(g0);
    assertThat(info.requested().milliCpu()).isEqualTo(750);
    assertThat(info.usedPorts().conflicts("", "TCP", 8080)).isTrue();
    assertThat(info.removePod(pod("a", "500m", 8080))).isTrue();
    assertThat(info.requested().milliCpu()).isEqualTo(250);
    assertThat(info.usedPorts().conflicts("10.0.0.1", "TCP", 8080)).isFalse();
    assertThat(info.removePod(pod("zzz", "1", 0))).isFalse();
    assertThat(info.nonZeroRequested().memory()).isEqualTo(PodRequests.DEFAULT_MEMORY_REQUEST);
  }

  @Test
  void snapshotIsIndependentAndKeepsTheGeneration() {
    NodeInfo info = NodeInfo.of(node("n1", "4", "8Gi"), pod("a", "1", 0));
    NodeInfo copy = info.snapshot();
    assertThat(copy.generation()).isEqualTo(info.generation());
    info.addPod(PodInfo.of(pod("b", "1", 0)));
    assertThat(copy.pods()).hasSize(1);
    assertThat(copy.requested().milliCpu()).isEqualTo(1000);
    assertThat(info.requested().milliCpu()).isEqualTo(2000);
  }

  /** Each list (pods, with affinity, with required anti-affinity) of a copy is its own, empty or not. */
  @Test
  void aSnapshotsPodListsAreItsOwnInBothDirections() {
    Pod withAntiAffinity = new PodBuilder(pod("anti", "1", 0)).editSpec().withNewAffinity()
        .withNewPodAntiAffinity().addNewRequiredDuringSchedulingIgnoredDuringExecution()
        .withTopologyKey("kubernetes.io/hostname").endRequiredDuringSchedulingIgnoredDuringExecution()
        .endPodAntiAffinity().endAffinity().endSpec().build();
    NodeInfo info = NodeInfo.of(node("n1", "8", "8Gi"), pod("a", "1", 0));
    NodeInfo copy = info.snapshot();
    copy.addPod(PodInfo.of(withAntiAffinity));
    assertThat(info.pods()).extracting(p -> p.pod().getMetadata().getName()).containsExactly("a");
    assertThat(info.podsWithAffinity()).isEmpty();
    assertThat(info.podsWithRequiredAntiAffinity()).isEmpty();
    assertThat(copy.pods()).extracting(p -> p.pod().getMetadata().getName())
        .containsExactly("a", "anti");
    assertThat(copy.podsWithRequiredAntiAffinity()).hasSize(1);

    NodeInfo second = copy.snapshot();
    assertThat(second.removePod(withAntiAffinity)).isTrue();
    assertThat(second.podsWithAffinity()).isEmpty();
    assertThat(second.podsWithRequiredAntiAffinity()).isEmpty();
    assertThat(copy.podsWithRequiredAntiAffinity()).hasSize(1);
    for (int i = 0; i < 10; i++) {
      // past the copy's spare room
      second.addPod(PodInfo.of(pod("p" + i, "100m", 0)));
    }
    assertThat(second.pods()).hasSize(11);
    assertThat(copy.pods()).hasSize(2);
    assertThat(info.pods()).hasSize(1);
  }

  @Test
  void pvcReferencesAreCountedPerCopy() {
    Pod withClaim = new PodBuilder(pod("c", "1", 0)).editSpec().addNewVolume().withName("data")
        .withNewPersistentVolumeClaim().withClaimName("claim").endPersistentVolumeClaim().endVolume().endSpec()
        .build();
    NodeInfo info = NodeInfo.of(node("n1", "4", "8Gi"));
    NodeInfo empty = info.snapshot();
    info.addPod(PodInfo.of(withClaim));
    assertThat(info.pvcRefCounts()).containsExactly(java.util.Map.entry("ns/claim", 1));
    assertThat(empty.pvcRefCounts()).isEmpty();
    NodeInfo copy = info.snapshot();
    empty.addPod(PodInfo.of(withClaim));
    empty.addPod(PodInfo.of(new PodBuilder(withClaim).editMetadata().withName("d").withUid("uid-d").endMetadata()
        .build()));
    assertThat(empty.pvcRefCounts()).containsExactly(java.util.Map.entry("ns/claim", 2));
    assertThat(copy.removePod(withClaim)).isTrue();
    assertThat(copy.pvcRefCounts()).isEmpty();
    assertThat(info.pvcRefCounts()).containsExactly(java.util.Map.entry("ns/claim", 1));
    // the node's allocatable is shared by copies and replaced whole by setNode
    NodeInfo before = info.snapshot();
    info.setNode(node("n1", "8", "8Gi"));
    assertThat(info.allocatable().milliCpu()).isEqualTo(8000);
    assertThat(before.allocatable().milliCpu()).isEqualTo(4000);
  }

  @Test
  void theNodeNameFollowsSetNodeAndRemoveNodeAndSnapshots() {
    NodeInfo info = new NodeInfo();
    assertThat(info.nodeName()).isEmpty();
    info.setNode(node("n1", "4", "8Gi"));
    NodeInfo copy = info.snapshot();
    info.setNode(node("n2", "4", "8Gi"));
    assertThat(info.nodeName()).isEqualTo("n2");
    assertThat(copy.nodeName()).isEqualTo("n1");
    info.removeNode();
    assertThat(info.nodeName()).isEmpty();
    assertThat(copy.nodeName()).isEqualTo("n1");
  }

  @Test
  void hostPortConflictsFollowTheBindAllRule() {
    HostPortInfo ports = new HostPortInfo();
    ports.add("127.0.0.1", "TCP", 80);
    assertThat(ports.conflicts("0.0.0.0", "TCP", 80)).isTrue();
    assertThat(ports.conflicts("127.0.0.2", "TCP", 80)).isFalse();
    assertThat(ports.conflicts("127.0.0.1", "UDP", 80)).isFalse();
    ports.add("", "", 443);
    assertThat(ports.conflicts("10.1.1.1", "TCP", 443)).isTrue();
  }

  @Test
  void hostPortCopiesAreIndependentBeforeAndAfterTheFirstPort() {
    HostPortInfo empty = new HostPortInfo();
    HostPortInfo emptyCopy = empty.copy();
    emptyCopy.add("", "TCP", 80);
    assertThat(empty.size()).isZero();
    assertThat(empty.conflicts("0.0.0.0", "TCP", 80)).isFalse();
    assertThat(emptyCopy.conflicts("10.0.0.1", "TCP", 80)).isTrue();

    HostPortInfo used = new HostPortInfo();
    used.add("10.0.0.1", "TCP", 80);
    HostPortInfo copy = used.copy();
    copy.add("10.0.0.1", "TCP", 81);
    copy.remove("10.0.0.1", "TCP", 80);
    assertThat(used.conflicts("10.0.0.1", "TCP", 80)).isTrue();
    assertThat(used.conflicts("10.0.0.1", "TCP", 81)).isFalse();
    assertThat(copy.conflicts("10.0.0.1", "TCP", 80)).isFalse();
    assertThat(copy.size()).isEqualTo(1);
    // emptied again, then used again
    used.remove("10.0.0.1", "TCP", 80);
    assertThat(used.size()).isZero();
    used.add("", "UDP", 53);
    assertThat(used.conflicts("10.0.0.9", "UDP", 53)).isTrue();
    assertThat(copy.conflicts("10.0.0.9", "UDP", 53)).isFalse();
  }

  @Test
  void keepsTheNodesUnschedulableFlagAndTaintsThroughCopiesAndReplacements() {
    Taint t = new Taint("NoSchedule", "k", null, "v");
    Node cordoned = new NodeBuilder(node("n1", "4", "8Gi")).withNewSpec().withUnschedulable(true)
        .withTaints(t).endSpec().build();
    NodeInfo info = NodeInfo.of(node("n1", "4", "8Gi"));
    assertThat(info.unschedulable()).isFalse();
    assertThat(info.taints()).isEmpty();
    info.setNode(cordoned);
    assertThat(info.unschedulable()).isTrue();
    assertThat(info.taints()).containsExactly(t);
    NodeInfo copy = info.snapshot();
    assertThat(copy.unschedulable()).isTrue();
    assertThat(copy.taints()).containsExactly(t);
    // an explicit false and a spec without taints read as unset
    info.setNode(new NodeBuilder(cordoned).editSpec().withUnschedulable(false).withTaints(List.of()).endSpec()
        .build());
    assertThat(info.unschedulable()).isFalse();
    assertThat(info.taints()).isEmpty();
    assertThat(copy.unschedulable()).isTrue();
  }

  @Test
  void unschedulableAndTaintsOfAnUnknownNodeThrowAsGetNodeDoes() {
    NodeInfo info = NodeInfo.of(node("n1", "4", "8Gi"));
    info.removeNode();
    assertThatThrownBy(info::getNode).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(info::unschedulable).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(info::taints).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(new NodeInfo()::taints).isInstanceOf(IllegalStateException.class);
  }
}
