package io.berth.framework;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.List;
import java.util.Map;

/**
 * Computes a pod's effective resource requests as kube-scheduler does: the sum over regular
 * containers, the maximum with each init container (an init container runs alongside the
 * restartable init containers — sidecars — started before it), sidecars added to the sum, and the
 * pod overhead on top. Stateless and thread-safe.
 *
 * <p>The "non-zero" variant replaces a missing cpu or memory request of a container by 100m and
 * 200Mi, the defaults kube-scheduler's scoring uses so that best-effort pods still count. A
 * container with a limit but no request counts its limit, which is what the API server would have
 * defaulted the request to.
 */
public final class PodRequests {
  /** Default cpu request, in milli-cpu, that scoring assumes for a container without one. */
  public static final long DEFAULT_MILLI_CPU_REQUEST = 100;
  /** Default memory request, in bytes, that scoring assumes for a container without one. */
  public static final long DEFAULT_MEMORY_REQUEST = 200L * 1024 * 1024;

  private PodRequests() {}

  /** The pod's requests; throws {@link IllegalArgumentException} naming a bad quantity. */
  public static Resource of(Pod pod) {
    return compute(pod, false);
  }

  /** The pod's requests with missing cpu/memory container requests defaulted. */
  public static Resource nonZero(Pod pod) {
    return compute(pod, true);
  }

  private static Resource compute(Pod pod, boolean nonZero) {
    PodSpec spec = pod.getSpec();
    Resource requests = new Resource();
    if (spec == null) {
      return requests;
    }
    List<Container> containers = spec.getContainers() == null ? List.of() : spec.getContainers();
    for (int i = 0; i < containers.size(); i++) {
      requests.add(containerRequests(containers.get(i), "spec.containers", i, nonZero));
    }
    Resource sidecars = new Resource();
    Resource initMax = new Resource();
    List<Container> inits = spec.getInitContainers() == null ? List.of() : spec.getInitContainers();
    for (int i = 0; i < inits.size(); i++) {
      Container init = inits.get(i);
      Resource r = containerRequests(init, "spec.initContainers", i, nonZero);
      if ("Always".equals(init.getRestartPolicy())) {
        // a sidecar keeps running next to the regular containers
        requests.add(r);
        sidecars.add(r);
        initMax.setMax(sidecars);
      } else {
        initMax.setMax(r.copy().add(sidecars));
      }
    }
    requests.setMax(initMax);
    if (spec.getOverhead() != null) {
      for (Map.Entry<String, Quantity> e : spec.getOverhead().entrySet()) {
        add(requests, e.getKey(), e.getValue(), "spec.overhead", -1, null);
      }
    }
    return requests;
  }

  /**
   * The container's requests; {@code list}, {@code index} name it in an error (the field names are built only then:
   * every pod's arrival computes its requests twice, and building a dozen names per pod showed in profiles).
   */
  private static Resource containerRequests(Container c, String list, int index, boolean nonZero) {
    Resource r = new Resource();
    ResourceRequirements res = c.getResources();
    Map<String, Quantity> requests = res == null || res.getRequests() == null ? Map.of() : res.getRequests();
    Map<String, Quantity> limits = res == null || res.getLimits() == null ? Map.of() : res.getLimits();
    for (Map.Entry<String, Quantity> e : requests.entrySet()) {
      add(r, e.getKey(), e.getValue(), list, index, ".resources.requests.");
    }
    // an unset request defaults to the limit (API server defaulting)
    for (Map.Entry<String, Quantity> e : limits.entrySet()) {
      if (!requests.containsKey(e.getKey())) {
        add(r, e.getKey(), e.getValue(), list, index, ".resources.limits.");
      }
    }
    if (nonZero) {
      if (!requests.containsKey(Resource.CPU) && !limits.containsKey(Resource.CPU)) {
        r.setMilliCpu(DEFAULT_MILLI_CPU_REQUEST);
      }
      if (!requests.containsKey(Resource.MEMORY) && !limits.containsKey(Resource.MEMORY)) {
        r.setMemory(DEFAULT_MEMORY_REQUEST);
      }
    }
    return r;
  }

  /**
   * Adds quantity {@code q} of {@code name} to {@code r}; an error names the field {@code list[index]part name}, or
   * {@code list.name} when {@code index} is negative.
   */
  private static void add(Resource r, String name, Quantity q, String list, int index, String part) {
    if (Resource.PODS.equals(name)) {
      return;
    }
    long amount;
    try {
      // Quantities starts its message with the field it is given: the empty one here, the whole name below
      amount = Quantities.forResource(name, q, "");
    } catch (IllegalArgumentException e) {
      String field = index < 0 ? list + "." + name : list + "[" + index + "]" + part + name;
      throw new IllegalArgumentException(field + e.getMessage(), e.getCause());
    }
    r.set(name, r.get(name) + amount);
  }
}
