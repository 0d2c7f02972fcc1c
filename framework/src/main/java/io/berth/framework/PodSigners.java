package io.berth.framework;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Upstream's signer names ({@code kube-scheduler/framework/signers.go}) and the signers plugins
 * share, so that plugins reading the same pod fields produce the same fragment. Each signer
 * returns an immutable value with value equality. Stateless and thread-safe.
 */
public final class PodSigners {
  public static final String IMAGE_NAMES = "v1.Pod.Spec.CanonicalImageNames()";
  public static final String LABELS = "v1.Pod.Labels";
  public static final String NODE_NAME = "v1.Pod.Spec.NodeName";
  public static final String NODE_AFFINITY = "v1.Pod.Spec.Affinity.NodeAffinity";
  public static final String NODE_SELECTOR = "v1.Pod.Spec.Affinity.NodeSelector";
  public static final String HOST_PORTS = "v1.Pod.Spec.HostPorts()";
  public static final String RESOURCES = "v1.Pod.Spec.ContainerResourcesAndOverheads()";
  public static final String SCHEDULER_NAME = "v1.Pod.Spec.SchedulerName";
  public static final String TOLERATIONS = "v1.Pod.Spec.Tolerations";
  public static final String VOLUMES = "v1.Pod.Spec.Volumes.NonSyntheticSources()";

  private PodSigners() {}

  private static PodSpec spec(Pod pod) {
    return pod.getSpec() == null ? new PodSpec() : pod.getSpec();
  }

  /** A host port a container asks for, with its defaulted host IP and protocol. */
  public record HostPort(String hostIp, String protocol, int port) implements Comparable<HostPort> {
    @Override
    public int compareTo(HostPort o) {
      int c = Integer.compare(port, o.port);
      if (c == 0) {
        c = protocol.compareTo(o.protocol);
      }
      return c != 0 ? c : hostIp.compareTo(o.hostIp);
    }
  }

  /**
   * The pod's distinct non-zero host ports, sorted (containers and init containers). Upstream
   * signs the port numbers only; the host IP and protocol NodePorts also reads are kept here, so
   * that pods signed equal also filter equal.
   */
  public static List<HostPort> hostPorts(Pod pod) {
    TreeSet<HostPort> ports = new TreeSet<>();
    addHostPorts(spec(pod).getContainers(), ports);
    addHostPorts(spec(pod).getInitContainers(), ports);
    return ports.isEmpty() ? List.of() : List.copyOf(ports);
  }

  /**
   * The pod's effective requests and their non-zero variant (what NodeResourcesFit and
   * NodeResourcesBalancedAllocation read: containers, init containers and the overhead). Taken
   * from the pod's {@link PodInfo} (derived once per pod object and shared with the plugins'
   * PreFilter, so signing parses no quantity again); a pod whose quantities do not parse is
   * computed afresh, which throws naming the bad quantity. The values must not be mutated.
   */
  public static List<Resource> resources(Pod pod) {
    PodInfo info = PodInfo.of(pod);
    if (info.parseError().isPresent()) {
      return List.of(PodRequests.of(pod), PodRequests.nonZero(pod));
    }
    return List.of(info.requests(), info.nonZeroRequests());
  }

  private static void addHostPorts(List<Container> containers, TreeSet<HostPort> out) {
    if (containers == null) {
      return;
    }
    for (Container c : containers) {
      if (c.getPorts() == null) {
        continue;
      }
      for (ContainerPort p : c.getPorts()) {
        if (p.getHostPort() != null && p.getHostPort() != 0) {
          String ip = p.getHostIP() == null || p.getHostIP().isEmpty()
              ? HostPortInfo.DEFAULT_BIND_ALL_HOST_IP : p.getHostIP();
          String protocol = p.getProtocol() == null || p.getProtocol().isEmpty() ? "TCP"
              : p.getProtocol();
          out.add(new HostPort(ip, protocol, p.getHostPort()));
        }
      }
    }
  }

  /** {@code spec.affinity.nodeAffinity}, or null. */
  public static Object nodeAffinity(Pod pod) {
    return spec(pod).getAffinity() == null ? null : spec(pod).getAffinity().getNodeAffinity();
  }

  /** {@code spec.nodeSelector} (empty when unset). */
  public static Map<String, String> nodeSelector(Pod pod) {
    Map<String, String> s = spec(pod).getNodeSelector();
    return s == null ? Map.of() : Map.copyOf(s);
  }

  /** The tolerations sorted by key then value, as upstream's TolerationsSigner. */
  public static List<Toleration> tolerations(Pod pod) {
    List<Toleration> t = spec(pod).getTolerations();
    if (t == null || t.isEmpty()) {
      return List.of();
    }
    List<Toleration> out = new ArrayList<>(t);
    out.sort(Comparator.comparing((Toleration x) -> Objects.toString(x.getKey(), ""))
        .thenComparing(x -> Objects.toString(x.getValue(), "")));
    return List.copyOf(out);
  }

  /**
   * The volume sources other than ConfigMap and Secret (which never affect scheduling but differ
   * per pod), compared without their names ({@link UnnamedVolume}), as upstream's VolumesSigner.
   */
  public static List<UnnamedVolume> volumes(Pod pod) {
    List<Volume> vols = spec(pod).getVolumes();
    if (vols == null || vols.isEmpty()) {
      return List.of();
    }
    List<UnnamedVolume> out = new ArrayList<>(vols.size());
    for (Volume v : vols) {
      if (v.getConfigMap() == null && v.getSecret() == null) {
        out.add(UnnamedVolume.of(v));
      }
    }
    return List.copyOf(out);
  }

  /** {@code spec.nodeName}, or "". */
  public static String nodeName(Pod pod) {
    return Objects.toString(spec(pod).getNodeName(), "");
  }

  /** {@code spec.schedulerName}, or "". */
  public static String schedulerName(Pod pod) {
    return Objects.toString(spec(pod).getSchedulerName(), "");
  }

  /** The pod's labels (empty when unset). */
  public static Map<String, String> labels(Pod pod) {
    Map<String, String> l = pod.getMetadata() == null ? null : pod.getMetadata().getLabels();
    return l == null ? Map.of() : Map.copyOf(l);
  }
}
