package io.berth.simulator.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.runtime.Registry;
import io.berth.plugins.InTreeRegistry;
import io.berth.scheduler.config.SchedulerConfigLoader;
import io.berth.scheduler.record.RecordedEvent;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** ReplayRun on a hand-written recording: what is applied, what is the replay's, and the figures. */
class ReplayRunTest {
  private final Registry registry = InTreeRegistry.create();
  private final List<RecordedEvent> events = new ArrayList<>();

  private void at(long t, RecordedEvent.Type type, HasMetadata obj) {
    events.add(new RecordedEvent(t, type, obj.getKind() == null ? obj.getClass().getSimpleName()
        : obj.getKind(), "v1", obj));
  }

  private static Node node(String name, String cpu) {
    return new NodeBuilder().withNewMetadata().withName(name).withResourceVersion("1").endMetadata()
        .withNewStatus().addToAllocatable("cpu", new Quantity(cpu))
        .addToAllocatable("memory", new Quantity("4Gi")).addToAllocatable("pods", new Quantity("10"))
        .endStatus().build();
  }

  private static Pod pod(String name, String cpu, String nodeName) {
    return new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).withUid("uid-" + name)
        .withResourceVersion("1").endMetadata().withNewSpec().withNodeName(nodeName)
        .addNewContainer().withName("c").withImage("pause").withNewResources()
        .addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec()
        .withNewStatus().withPhase(nodeName == null ? "Pending" : "Running").endStatus().build();
  }

  private ReplayRun.Result replay() throws InterruptedException {
    return ReplayRun.run("default", SchedulerConfigLoader.defaults(registry), registry, events, 1);
  }

  private static Optional<ReplayRun.PodOutcome> outcome(ReplayRun.Result r, String name) {
    return r.pods().stream().filter(p -> p.key().equals("ns/" + name)).findFirst();
  }

  @Test
  void placesItsOwnPodsOnTheSimulatedClockAndLeavesRecordedBindingsAlone() throws Exception {
    at(100_000, RecordedEvent.Type.ADDED, node("n1", "2"));
    at(100_000, RecordedEvent.Type.ADDED, pod("sys", "1", "n1")); // bound before the recording
    at(101_000, RecordedEvent.Type.ADDED, pod("a", "1", null));
    // the recorded scheduler's binding and the kubelet's status: not input for the replay
    at(101_500, RecordedEvent.Type.MODIFIED, pod("a", "1", "n1"));
    at(102_000, RecordedEvent.Type.ADDED, pod("b", "1", null));
    at(105_000, RecordedEvent.Type.ADDED, node("n2", "2"));
    at(106_000, RecordedEvent.Type.ADDED, pod("c", "3", null));

    ReplayRun.Result r = replay();

    assertThat(r.pods()).extracting(ReplayRun.PodOutcome::key).as("sys is not the replay's")
        .containsExactly("ns/a", "ns/b", "ns/c");
    assertThat(outcome(r, "a").orElseThrow().node()).contains("n1");
    assertThat(outcome(r, "a").orElseThrow().recordedNode()).contains("n1");
    assertThat(outcome(r, "b").orElseThrow().node()).as("b waited for n2").contains("n2");
    assertThat(outcome(r, "b").orElseThrow().boundMillis()).contains(5_000L);
    ReplayRun.PodOutcome c = outcome(r, "c").orElseThrow();
    assertThat(c.node()).isEmpty();
    assertThat(c.pendingReason()).hasValueSatisfying(m -> assertThat(m)
        .startsWith("0/2 nodes are available: 2 Insufficient cpu."));
    assertThat(r.latency()).isEqualTo(new Latency(2, 0, 3_000, 3_000, 3_000));
    assertThat(r.packing().nodesInUse()).isEqualTo(2);
    assertThat(r.packing().allocation().get("cpu").requested()).isEqualTo(3_000);
    assertThat(r.packing().allocation().get("pods").requested()).as("sys, a, b").isEqualTo(3);
    assertThat(r.packing().fragmentation().reference()).isEqualTo(Map.of("cpu", 3_000L));
    assertThat(replay()).as("deterministic").isEqualTo(r);
  }

  @Test
  void aRecordedDeletionFreesRoomAndALabelChangeIsApplied() throws Exception {
    at(0, RecordedEvent.Type.ADDED, node("n1", "1"));
    at(0, RecordedEvent.Type.ADDED, pod("old", "1", "n1"));
    at(1_000, RecordedEvent.Type.ADDED, pod("new", "1", null));
    at(2_000, RecordedEvent.Type.MODIFIED, new PodBuilder(pod("new", "1", null)).editMetadata()
        .addToLabels("app", "x").endMetadata().build());
    at(4_000, RecordedEvent.Type.DELETED, pod("old", "1", "n1"));

    ReplayRun.Result r = replay();

    ReplayRun.PodOutcome p = outcome(r, "new").orElseThrow();
    assertThat(p.node()).contains("n1");
    assertThat(p.boundMillis()).contains(4_000L);
    assertThat(r.pending()).isEmpty();
    assertThat(r.packing().fragmentation().basis()).isEqualTo("scheduled");
  }
}
