package io.berth.plugins.coscheduling;

import io.berth.framework.Handle;
import io.berth.framework.NodeInfo;
import io.berth.framework.WaitingPod;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/** PodGroups, members, nodes, waiting pods and a handle over them for the Coscheduling tests. */
final class GangFixtures {

  private GangFixtures() {
  }

  static GenericKubernetesResource podGroup(String name, Map<String, Object> spec, Instant created) {
    return new GenericKubernetesResourceBuilder().withApiVersion(PodGroup.API_VERSION).withKind(PodGroup.KIND)
        .withNewMetadata().withNamespace("ns").withName(name).withCreationTimestamp(created.toString())
        .endMetadata().addToAdditionalProperties("spec", spec).build();
  }

  static GenericKubernetesResource podGroup(String name, int minMember) {
    return podGroup(name, Map.of("minMember", minMember), Instant.parse("2026-01-01T00:00:00Z"));
  }

  static PodBuilder member(String name, String group) {
    PodBuilder b = new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).withUid("uid-" + name)
        .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("pause").endContainer().endSpec();
    if (group != null) {
      b.editMetadata().addToLabels(PodGroup.LABEL, group).endMetadata();
    }
    return b;
  }

  static Pod member(String name, String group, String cpu) {
    return member(name, group).editSpec().editFirstContainer().withNewResources()
        .addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec().build();
  }

  static Pod bound(Pod pod, String node) {
    return new PodBuilder(pod).editSpec().withNodeName(node).endSpec().build();
  }

  static Node node(String name, String cpu) {
    Map<String, Quantity> q = Map.of("cpu", new Quantity(cpu), "memory", new Quantity("64Gi"),
        "pods", new Quantity("110"));
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().withNewStatus().withAllocatable(q)
        .withCapacity(q).endStatus().build();
  }

  /** A waiting pod that records what happened to it. Thread-safe. */
  static final class FakeWaitingPod implements WaitingPod {
    private final Pod pod;
    // guarded by this
    private String outcome = "waiting";

    FakeWaitingPod(Pod pod) {
      this.pod = pod;
    }

    @Override
    public Pod pod() {
      return pod;
    }

    @Override
    public synchronized List<String> pendingPlugins() {
      return outcome.equals("waiting") ? List.of(Coscheduling.NAME) : List.of();
    }

    @Override
    public synchronized void allow(String pluginName) {
      if (outcome.equals("waiting")) {
        outcome = "allowed";
      }
    }

    @Override
    public synchronized void reject(String pluginName, String message) {
      if (outcome.equals("waiting")) {
        outcome = "rejected: " + message;
      }
    }

    synchronized String outcome() {
      return outcome;
    }
  }

  /** The plugin over a TestHandle with {@code pods}, {@code nodes} and {@code waiting}, and these PodGroups. */
  static final class Gang {
    final TestHandle testHandle = new TestHandle();
    final List<FakeWaitingPod> waiting = new CopyOnWriteArrayList<>();
    final Map<String, GenericKubernetesResource> groups = new HashMap<>();
    final Map<String, GenericKubernetesResource> workloadGroups = new HashMap<>();
    final List<String> activated = new CopyOnWriteArrayList<>();
    // when set, the snapshot lister the plugin sees instead of the TestHandle's (which has no version)
    volatile io.berth.framework.NodeInfoLister snapshot;
    Coscheduling plugin;

    Gang groups(GenericKubernetesResource... gs) {
      for (GenericKubernetesResource g : gs) {
        groups.put(g.getMetadata().getNamespace() + "/" + g.getMetadata().getName(), g);
      }
      return this;
    }

    /** Adds {@code scheduling.k8s.io/v1alpha2} PodGroups. */
    Gang workloadGroups(GenericKubernetesResource... gs) {
      for (GenericKubernetesResource g : gs) {
        workloadGroups.put(g.getMetadata().getNamespace() + "/" + g.getMetadata().getName(), g);
      }
      return this;
    }

    Gang pods(Pod... pods) {
      testHandle.withObjects(pods);
      return this;
    }

    Gang nodes(NodeInfo... nodes) {
      testHandle.withNodes(List.of(nodes));
      return this;
    }

    FakeWaitingPod waiting(Pod pod) {
      FakeWaitingPod w = new FakeWaitingPod(pod);
      waiting.add(w);
      return w;
    }

    Coscheduling build(CoschedulingArgs args) {
      Handle handle = (Handle) Proxy.newProxyInstance(Handle.class.getClassLoader(), new Class<?>[] {Handle.class},
          (proxy, method, a) -> {
            switch (method.getName()) {
              case "iterateOverWaitingPods" -> {
                @SuppressWarnings("unchecked")
                Consumer<WaitingPod> action = (Consumer<WaitingPod>) a[0];
                new ArrayList<>(waiting).forEach(action);
                return null;
              }
              case "snapshotLister" -> {
                return snapshot != null ? snapshot : testHandle.snapshotLister();
              }
              case "activate" -> {
                for (Object p : (java.util.Collection<?>) a[0]) {
                  activated.add(((Pod) p).getMetadata().getName());
                }
                return null;
              }
              default -> {
                try {
                  return method.invoke(testHandle, a);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              }
            }
          });
      PodGroupLister lister = new GroupResolver(
          (ns, name) -> Optional.ofNullable(groups.get(ns + "/" + name)).map(PodGroup::from),
          (ns, name) -> Optional.ofNullable(workloadGroups.get(ns + "/" + name)).map(WorkloadPodGroups::from));
      plugin = new Coscheduling(args, handle, lister, GroupMembers.of(handle), Clock.systemUTC(),
          Executors.newSingleThreadScheduledExecutor());
      // a member on a snapshot node that the informer shows unbound is assumed, and every assumed pod passed Reserve
      for (NodeInfo n : handle.snapshotLister().list()) {
        for (io.berth.framework.PodInfo p : n.pods()) {
          Optional<Pod> listed = handle.lister(Pod.class).get(p.pod().getMetadata().getNamespace(),
              p.pod().getMetadata().getName());
          boolean boundInInformer = listed.map(l -> l.getSpec() != null && l.getSpec().getNodeName() != null
              && !l.getSpec().getNodeName().isEmpty()).orElse(false);
          if (!boundInInformer) {
            plugin.reserve(new io.berth.framework.CycleState(), p.pod(), n.nodeName());
          }
        }
      }
      return plugin;
    }

    Coscheduling build() {
      return build(CoschedulingArgs.DEFAULTS);
    }
  }
}
