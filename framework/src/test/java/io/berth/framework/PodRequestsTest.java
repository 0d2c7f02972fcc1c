package io.berth.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodRequestsTest {
  private static Container container(String name, String cpu, String memory) {
    ContainerBuilder b = new ContainerBuilder().withName(name);
    if (cpu != null || memory != null) {
      var r = b.withNewResources();
      if (cpu != null) {
        r.addToRequests("cpu", new Quantity(cpu));
      }
      if (memory != null) {
        r.addToRequests("memory", new Quantity(memory));
      }
      r.endResources();
    }
    return b.build();
  }

  private static Container sidecar(String name, String cpu) {
    return new ContainerBuilder(container(name, cpu, null)).withRestartPolicy("Always").build();
  }

  private static Pod pod(List<Container> containers, List<Container> inits) {
    return new PodBuilder().withNewMetadata().withName("p").withNamespace("ns").endMetadata()
        .withNewSpec().withContainers(containers).withInitContainers(inits).endSpec().build();
  }

  @Test
  void containersAreSummedAndInitContainersTakeTheMax() {
    Pod pod = pod(List.of(container("a", "100m", "1Gi"), container("b", "200m", "1Gi")),
        List.of(container("i1", "500m", "1Mi"), container("i2", "100m", "3Gi")));
    Resource r = PodRequests.of(pod);
    assertThat(r.milliCpu()).isEqualTo(500);
    assertThat(r.memory()).isEqualTo(3L << 30);
  }

  @Test
  void sidecarsAddToTheSumAndRunAlongsideLaterInitContainers() {
    // sidecar 200m runs with the regular containers (300m) and with the later init (500m)
    Pod pod = pod(List.of(container("a", "300m", null)),
        List.of(sidecar("s", "200m"), container("i", "500m", null)));
    assertThat(PodRequests.of(pod).milliCpu()).isEqualTo(700);
  }

  @Test
  void overheadIsAdded() {
    Pod pod = new PodBuilder(pod(List.of(container("a", "100m", null)), List.of())).editSpec()
        .withOverhead(Map.of("cpu", new Quantity("250m"))).endSpec().build();
    assertThat(PodRequests.of(pod).milliCpu()).isEqualTo(350);
  }

  @Test
  void nonZeroDefaultsOnlyMissingRequests() {
    Pod pod = pod(List.of(container("a", null, null), container("b", "0", "1Mi")), List.of());
    Resource r = PodRequests.nonZero(pod);
    assertThat(r.milliCpu()).isEqualTo(PodRequests.DEFAULT_MILLI_CPU_REQUEST);
    assertThat(r.memory()).isEqualTo(PodRequests.DEFAULT_MEMORY_REQUEST + (1L << 20));
    assertThat(PodRequests.of(pod).milliCpu()).isZero();
  }

  @Test
  void limitsStandInForMissingRequests() {
    Pod pod = pod(List.of(new ContainerBuilder().withName("a").withNewResources()
        .addToLimits("cpu", new Quantity("2")).endResources().build()), List.of());
    assertThat(PodRequests.of(pod).milliCpu()).isEqualTo(2000);
  }

  @Test
  void extendedResourcesAreScalars() {
    Pod pod = pod(List.of(new ContainerBuilder().withName("a").withNewResources()
        .addToRequests("example.com/gpu", new Quantity("2")).endResources().build()), List.of());
    assertThat(PodRequests.of(pod).scalar("example.com/gpu")).isEqualTo(2);
  }

  @Test
  void badQuantityNamesTheField() {
    Pod pod = pod(List.of(container("a", "100m", null), new ContainerBuilder().withName("b")
        .withNewResources().addToRequests("cpu", new Quantity("abc")).endResources().build()),
        List.of());
    assertThatThrownBy(() -> PodRequests.of(pod)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spec.containers[1].resources.requests.cpu");
    assertThat(PodInfo.of(pod).parseError()).hasValueSatisfying(
        m -> assertThat(m).contains("spec.containers[1].resources.requests.cpu"));
  }

  @Test
  void badQuantityMessagesNameEachKindOfField() {
    Pod limit = pod(List.of(new ContainerBuilder().withName("a").withNewResources()
        .addToLimits("memory", new Quantity("1x")).endResources().build()), List.of());
    assertThatThrownBy(() -> PodRequests.of(limit)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("spec.containers[0].resources.limits.memory: quantity \"1x\" is not a valid Kubernetes"
            + " quantity");
    Pod init = pod(List.of(), List.of(container("i0", "1", null), new ContainerBuilder().withName("i1")
        .withNewResources().addToRequests("cpu", new Quantity("99999999999999999999")).endResources().build()));
    assertThatThrownBy(() -> PodRequests.nonZero(init)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("spec.initContainers[1].resources.requests.cpu: quantity \"99999999999999999999\" is out of"
            + " range");
    Pod overhead = new PodBuilder(pod(List.of(container("a", "1", null)), List.of())).editSpec()
        .addToOverhead("cpu", new Quantity("q")).endSpec().build();
    assertThatThrownBy(() -> PodRequests.of(overhead)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("spec.overhead.cpu: quantity \"q\" is not a valid Kubernetes quantity");
  }
}
