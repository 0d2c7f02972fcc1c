package io.berth.simulator;

import io.berth.embedded.NodeSpec;
import io.berth.informer.ResourceEventHandlerRegistration;
import io.berth.simulator.dashboard.EventBuffer;
import io.berth.simulator.dashboard.RunStatus;
import io.berth.simulator.scenario.Manifest;
import io.berth.embedded.server.ApiException;
import io.berth.embedded.server.Json;
import io.berth.embedded.server.ResourceTypes;
import io.berth.simulator.scenario.PodExpectation;
import io.berth.simulator.scenario.PodSet;
import io.berth.simulator.scenario.Scenario;
import io.berth.simulator.scenario.Step;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs a loaded {@link Scenario}: starts a {@link SimulatorStack} with the scenario's scheduler configuration, adds
 * its nodes (in bulk, straight into the store), creates its objects (Namespaces they name first, then
 * CustomResourceDefinitions, the PodGroup CRD when PodGroups are used, PriorityClasses, then the pods of its pod sets
 * in bulk, then the rest in file order), runs the timed steps, and waits until the
 * expectations hold or the timeout passes (without expectations, until the scheduler's active queue has been empty
 * and no pod has changed for two seconds). Reports progress to a {@link RunStatus} and to the event stream.
 *
 * <p>Not thread-safe: run once, from one thread.
 */
final class ScenarioRun implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger("io.berth.simulator.scenario");
  private static final String POD_GROUP_CRD = "/io/berth/simulator/crds/scheduling.x-k8s.io_podgroups.yaml";
  private static final Duration QUIET = Duration.ofSeconds(2);
  private static final int POD_BATCH = 5_000;

  /** How the run ended. Immutable. */
  record Outcome(boolean passed, List<String> failures) {
  }

  private final Scenario scenario;
  private final SimulatorStack stack = new SimulatorStack();
  private RunningCluster running;
  private RunStatus status;
  private EventBuffer events;
  // the expectations' pod counts, kept from the pod informer once run() starts
  private PodExpectationCounts counts;
  private ResourceEventHandlerRegistration countsRegistration;

  ScenarioRun(Scenario scenario) {
    this.scenario = scenario;
  }

  /** Starts the cluster and the daemons (no objects yet); {@code onStarted} gets them before anything is created. */
  RunningCluster start(int port, Path kubeconfig, RunStatus status, EventBuffer events,
      Consumer<RunningCluster> onStarted) throws InterruptedException {
    this.status = status;
    this.events = events;
    running = stack.start(port, kubeconfig, scenario.schedulerConfig(), this::installPodGroupCrd);
    onStarted.accept(running);
    return running;
  }

  /** Before the scheduler starts, so that Coscheduling's PodGroup informer finds the resource at once. */
  private void installPodGroupCrd(KubernetesClient client) {
    if (scenario.usesPodGroups() && scenario.manifests().stream().noneMatch(m -> m.kind()
        .equals("CustomResourceDefinition") && m.name().equals("podgroups.scheduling.x-k8s.io"))) {
      try (InputStream in = ScenarioRun.class.getResourceAsStream(POD_GROUP_CRD)) {
        CustomResourceDefinition crd = client.apiextensions().v1().customResourceDefinitions().load(in).item();
        client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
      } catch (java.io.IOException e) {
        throw new IllegalStateException("cannot read the bundled PodGroup CRD " + POD_GROUP_CRD, e);
      }
      note("Created", "CustomResourceDefinition podgroups.scheduling.x-k8s.io (bundled)");
    }
  }

  /** Creates the nodes and objects, runs the steps and waits for the end; call after {@link #start}. */
  Outcome run() throws InterruptedException {
    KubernetesClient client = running.client();
    // counted from the events, not by filtering every cached pod on each check (100,000 pods in large.yaml)
    counts = new PodExpectationCounts(scenario.expectations());
    countsRegistration = running.informers().informerFor(Pod.class).addEventHandler(counts);
    // straight into the store in one write: thousands of nodes are Ready at once, with the same ADDED events
    running.cluster().nodes().addAll(scenario.nodes());
    note("Nodes", "added " + scenario.nodes().size() + " simulated node" + (scenario.nodes().size() == 1 ? "" : "s"));
    Set<String> namespaces = new LinkedHashSet<>();
    scenario.manifests().forEach(m -> namespaces.add(m.namespace()));
    scenario.podSets().forEach(p -> namespaces.add(p.namespace()));
    scenario.steps().forEach(s -> {
      if (s instanceof Step.Apply a) {
        namespaces.add(a.manifest().namespace());
      }
    });
    scenario.manifests().stream().filter(m -> m.kind().equals("Namespace")).forEach(m -> namespaces.remove(m.name()));
    namespaces.removeAll(io.berth.embedded.EmbeddedCluster.INITIAL_NAMESPACES);
    namespaces.remove("");
    for (String ns : namespaces) {
      client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
    }
    List<Manifest> first = new ArrayList<>();
    for (String kind : List.of("Namespace", "CustomResourceDefinition", "PriorityClass")) {
      scenario.manifests().stream().filter(m -> m.kind().equals(kind)).forEach(first::add);
    }
    for (Manifest m : first) {
      create(client, m);
    }
    // the cluster's existing workload, before the objects whose pods the scheduler places onto it
    for (PodSet set : scenario.podSets()) {
      loadPodSet(set);
    }
    for (Manifest m : scenario.manifests()) {
      if (!first.contains(m)) {
        create(client, m);
      }
    }
    Instant started = Instant.now();
    int i = 0;
    for (Step step : scenario.steps()) {
      i++;
      Instant due = started.plus(step.at());
      long wait = Duration.between(Instant.now(), due).toMillis();
      if (wait > 0) {
        status.set("step " + i + "/" + scenario.steps().size() + " at " + step.at().toSeconds() + "s: "
            + step.describe());
        Thread.sleep(wait);
      }
      status.set("step " + i + "/" + scenario.steps().size() + ": " + step.describe());
      try {
        apply(client, step);
        note("Step", step.describe());
      } catch (KubernetesClientException e) {
        // the run goes on: a step the API server refuses is reported, the cluster keeps serving
        LOG.warn("step {} ({}) failed: {}", i, step.describe(), e.getMessage());
        note("Failed", "step " + i + " (" + step.describe() + ") failed: " + (e.getStatus() == null
            ? e.getMessage() : e.getStatus().getMessage()));
      }
    }
    return awaitEnd();
  }

  /**
   * Creates a pod set's pods straight in the store, in batches so that the store's write lock is never held for
   * long; every pod gets the defaults, validation and ADDED event an HTTP create gives it.
   */
  private void loadPodSet(PodSet set) {
    ObjectNode template = Json.parseObject(set.templateJson().getBytes(StandardCharsets.UTF_8));
    List<NodeSpec> nodes = scenario.nodes();
    for (int from = 0; from < set.count(); from += POD_BATCH) {
      List<ObjectNode> batch = new ArrayList<>(POD_BATCH);
      for (int i = from; i < Math.min(set.count(), from + POD_BATCH); i++) {
        ObjectNode pod = template.deepCopy();
        Json.metadata(pod).put("name", set.namePrefix() + "-" + i);
        if (set.onNodes() && !nodes.isEmpty()) {
          Json.objectAt(pod, "spec").put("nodeName", nodes.get(i % nodes.size()).name());
        }
        batch.add(pod);
      }
      try {
        running.cluster().operations().createAll(ResourceTypes.PODS, set.namespace(), batch);
      } catch (ApiException e) {
        throw new IllegalStateException(scenario.file() + ": spec.podSets " + set.namePrefix()
            + ": the API server rejected it: " + e.getMessage(), e);
      }
    }
    note("Pods", "loaded " + set.count() + " pods " + set.namePrefix() + "-* in namespace " + set.namespace()
        + (set.onNodes() ? ", bound round-robin to the nodes" : ""));
  }

  private void create(KubernetesClient client, Manifest m) {
    try {
      client.resource(m.json()).create();
    } catch (KubernetesClientException e) {
      throw new IllegalStateException(scenario.file() + ": document " + m.document() + " (" + m.label()
          + "): the API server rejected it: " + e.getStatus().getMessage(), e);
    }
  }

  private void apply(KubernetesClient client, Step step) {
    // strategic-merge patches without a resourceVersion: the Deployment controller writes the same object
    if (step instanceof Step.Scale s) {
      client.apps().deployments().inNamespace(s.namespace()).withName(s.deployment())
          .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), "{\"spec\":{\"replicas\":" + s.replicas() + "}}");
    } else if (step instanceof Step.SetImage s) {
      String patch = Serialization.asJson(Map.of("spec", Map.of("template", Map.of("spec", Map.of("containers",
          List.of(Map.of("name", s.container(), "image", s.image())))))));
      client.apps().deployments().inNamespace(s.namespace()).withName(s.deployment())
          .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
    } else if (step instanceof Step.AddNodes s) {
      s.nodes().forEach(n -> running.cluster().nodes().add(n));
    } else if (step instanceof Step.RemoveNode s) {
      running.cluster().nodes().remove(s.node());
    } else if (step instanceof Step.Cordon s) {
      if (s.unschedulable()) {
        running.cluster().nodes().cordon(s.node());
      } else {
        running.cluster().nodes().uncordon(s.node());
      }
    } else if (step instanceof Step.Apply s) {
      create(client, s.manifest());
    } else {
      throw new IllegalStateException("unknown step " + step);
    }
  }

  private Outcome awaitEnd() throws InterruptedException {
    Instant deadline = Instant.now().plus(scenario.timeout());
    if (!scenario.hasExpectations()) {
      status.set("settling");
      String lastVersion = "";
      Instant quietSince = Instant.now();
      while (Instant.now().isBefore(deadline)) {
        String version = podVersions();
        if (!version.equals(lastVersion) || running.scheduler().queue().activeSize() > 0
            || running.scheduler().queue().inFlightSize() > 0) {
          lastVersion = version;
          quietSince = Instant.now();
        } else if (Duration.between(quietSince, Instant.now()).compareTo(QUIET) >= 0) {
          break;
        }
        Thread.sleep(200);
      }
      finish("done: every step ran; the cluster settled", new Outcome(true, List.of()));
      return new Outcome(true, List.of());
    }
    int expected = scenario.expectations().size() + scenario.rolledOut().size();
    status.set("waiting for " + expected + " expectation" + (expected == 1 ? "" : "s"));
    List<String> failures = failures();
    while (!failures.isEmpty() && Instant.now().isBefore(deadline)) {
      Thread.sleep(200);
      failures = failures();
    }
    Outcome outcome = new Outcome(failures.isEmpty(), failures);
    finish(failures.isEmpty() ? "done: " + (expected == 1 ? "the expectation holds" : "all " + expected
        + " expectations hold")
        : "done: FAILED: " + String.join("; ", failures), outcome);
    return outcome;
  }

  private void finish(String text, Outcome outcome) {
    status.finish(text);
    note(outcome.passed() ? "Done" : "Failed", text);
  }

  private String podVersions() {
    return String.valueOf(running.informers().lister(Pod.class).list().stream()
        .mapToLong(p -> Long.parseLong(p.getMetadata().getResourceVersion())).max().orElse(0))
        + "/" + running.informers().lister(Pod.class).list().size();
  }

  /** The expectations that do not hold now, each saying what was expected and what was found. */
  List<String> failures() {
    List<String> out = new ArrayList<>();
    List<PodExpectation> pods = scenario.expectations();
    boolean counted = countsRegistration.hasSynced();
    for (int i = 0; i < pods.size(); i++) {
      PodExpectation e = pods.get(i);
      if (!counted) {
        out.add("expected " + e.describe() + ", not counted yet");
        continue;
      }
      long found = counts.count(i);
      if (found != e.count()) {
        out.add("expected " + e.describe() + ", found " + found);
      }
    }
    for (String key : scenario.rolledOut()) {
      String[] nsName = key.split("/", 2);
      Deployment d = running.informers().lister(Deployment.class).get(nsName[0], nsName[1]).orElse(null);
      String state = rolloutState(d);
      if (!state.isEmpty()) {
        out.add("expected Deployment " + key + " rolled out, " + state);
      }
    }
    return out;
  }

  /** Empty when the Deployment's latest generation is fully rolled out, else what is missing. */
  private static String rolloutState(Deployment d) {
    if (d == null) {
      return "but it does not exist";
    }
    var st = d.getStatus();
    int want = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
    if (st == null || st.getObservedGeneration() == null || st.getObservedGeneration() < d.getMetadata()
        .getGeneration()) {
      return "but its controller has not observed generation " + d.getMetadata().getGeneration();
    }
    int updated = st.getUpdatedReplicas() == null ? 0 : st.getUpdatedReplicas();
    int available = st.getAvailableReplicas() == null ? 0 : st.getAvailableReplicas();
    int total = st.getReplicas() == null ? 0 : st.getReplicas();
    return updated == want && available == want && total == want ? ""
        : "found " + updated + "/" + want + " updated, " + available + " available, " + total + " in all";
  }

  private void note(String reason, String message) {
    LOG.info("== {}", message);
    events.append(Instant.now(), reason.equals("Failed") ? "Warning" : "Normal", reason,
        "Scenario " + scenario.name(), message, "berth-simulator");
  }

  @Override
  public void close() {
    stack.close();
  }
}
