package io.berth.plugins.noderesources;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** Pods and nodes for the noderesources tests, in the spirit of upstream's st.MakePod/MakeNode. */
final class Fixtures {
  private static final AtomicInteger NEXT = new AtomicInteger();

  private Fixtures() {}

  /** A resource map from alternating names and quantities: res("cpu", "1", "memory", "2"). */
  static Map<String, String> res(String... namesAndQuantities) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < namesAndQuantities.length; i += 2) {
      out.put(namesAndQuantities[i], namesAndQuantities[i + 1]);
    }
    return out;
  }

  /** Requests as upstream's newResourcePod builds them: milli-cpu and bytes, zeros included. */
  static Map<String, String> usage(long milliCpu, long memory) {
    return res("cpu", milliCpu + "m", "memory", String.valueOf(memory), "pods", "0",
        "ephemeral-storage", "0");
  }

  /** {@link #usage(long, long)} plus one scalar resource. */
  static Map<String, String> usage(long milliCpu, long memory, String scalar, long amount) {
    Map<String, String> out = usage(milliCpu, memory);
    out.put(scalar, String.valueOf(amount));
    return out;
  }

  /** A pod whose containers request {@code containers}, one map per container. */
  @SafeVarargs
  static PodSpecBuilder pod(Map<String, String>... containers) {
    return new PodSpecBuilder().containers(containers);
  }

  /** A node with {@code allocatable} (capacity the same); "pods" defaults to 32 as st.MakeNode. */
  static Node node(String name, Map<String, String> allocatable) {
    Map<String, Quantity> quantities = new LinkedHashMap<>();
    quantities.put("pods", new Quantity("32"));
    allocatable.forEach((k, v) -> quantities.put(k, new Quantity(v)));
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewStatus().withCapacity(quantities).withAllocatable(quantities).endStatus()
        .build();
  }

  static Map<String, Quantity> quantities(Map<String, String> values) {
    Map<String, Quantity> out = new LinkedHashMap<>();
    values.forEach((k, v) -> out.put(k, new Quantity(v)));
    return out;
  }

  private static Container container(String name, Map<String, String> requests,
      String restartPolicy) {
    return new ContainerBuilder().withName(name).withImage("pause")
        .withRestartPolicy(restartPolicy)
        .withNewResources().withRequests(quantities(requests)).endResources()
        .build();
  }

  /** Builds a test pod step by step. */
  static final class PodSpecBuilder {
    private final String name = "pod-" + NEXT.incrementAndGet();
    private String uid = name;
    private String nodeName;
    private final List<Container> containers = new ArrayList<>();
    private final List<Container> initContainers = new ArrayList<>();
    private Map<String, Quantity> overhead;

    @SafeVarargs
    final PodSpecBuilder containers(Map<String, String>... requests) {
      for (Map<String, String> r : requests) {
        containers.add(container("c" + containers.size(), r, null));
      }
      return this;
    }

    /** A container without any resources section (best effort). */
    PodSpecBuilder bareContainer() {
      containers.add(new ContainerBuilder().withName("c" + containers.size()).build());
      return this;
    }

    @SafeVarargs
    final PodSpecBuilder init(Map<String, String>... requests) {
      for (Map<String, String> r : requests) {
        initContainers.add(container("i" + initContainers.size(), r, null));
      }
      return this;
    }

    PodSpecBuilder sidecar(Map<String, String> requests) {
      initContainers.add(container("s" + initContainers.size(), requests, "Always"));
      return this;
    }

    PodSpecBuilder overhead(Map<String, String> values) {
      overhead = quantities(values);
      return this;
    }

    PodSpecBuilder on(String node) {
      nodeName = node;
      return this;
    }

    PodSpecBuilder uid(String value) {
      uid = value;
      return this;
    }

    Pod build() {
      return new PodBuilder().withNewMetadata().withName(name).withNamespace("default")
          .withUid(uid).endMetadata()
          .withNewSpec().withNodeName(nodeName).withContainers(containers)
          .withInitContainers(initContainers).withOverhead(overhead).endSpec()
          .build();
    }
  }
}
