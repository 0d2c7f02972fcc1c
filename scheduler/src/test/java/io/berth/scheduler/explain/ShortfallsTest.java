package io.berth.scheduler.explain;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.NodeInfo;
import io.berth.framework.Resource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ShortfallsTest {

  private static Node node(String cpu, String memory, String pods) {
    return new NodeBuilder().withNewMetadata().withName("n").endMetadata().withNewStatus()
        .withAllocatable(Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory),
            "pods", new Quantity(pods))).endStatus().build();
  }

  private static Pod pod(String name, String cpu, String memory) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("ns").withUid(name)
        .endMetadata().withNewSpec().withNodeName("n").addNewContainer().withName("c")
        .withNewResources().withRequests(Map.of("cpu", new Quantity(cpu), "memory",
            new Quantity(memory))).endResources().endContainer().endSpec().build();
  }

  @Test
  void saysHowMuchOfEachInsufficientResourceIsMissing() {
    NodeInfo info = NodeInfo.of(node("2", "4Gi", "110"), pod("running", "1500m", "3Gi"));
    Resource request = new Resource().setMilliCpu(1000).setMemory(1536L * 1024 * 1024);
    Shortfalls.Shortfall s = Shortfalls.of(request, info,
        List.of("Insufficient cpu", "Insufficient memory"));
    assertThat(s.text()).isEqualTo("needs 500m cpu more, 512Mi memory more");
    assertThat(s.share()).isEqualTo(0.25 + 0.125);
  }

  @Test
  void tooManyPodsNeedsASlot() {
    NodeInfo info = NodeInfo.of(node("8", "8Gi", "1"), pod("running", "100m", "1Mi"));
    Shortfalls.Shortfall s = Shortfalls.of(new Resource(), info, List.of("Too many pods"));
    assertThat(s.text()).isEqualTo("needs 1 pod slot more");
  }

  @Test
  void formatsQuantitiesAsKubernetesWritesThem() {
    assertThat(Shortfalls.format("cpu", 2000)).isEqualTo("2");
    assertThat(Shortfalls.format("cpu", 250)).isEqualTo("250m");
    assertThat(Shortfalls.format("memory", 1024L * 1024 * 1024)).isEqualTo("1Gi");
    assertThat(Shortfalls.format("memory", 1536L * 1024 * 1024)).isEqualTo("1536Mi");
    assertThat(Shortfalls.format("memory", 100)).isEqualTo("100");
    assertThat(Shortfalls.format("nvidia.com/gpu", 2)).isEqualTo("2");
  }
}
