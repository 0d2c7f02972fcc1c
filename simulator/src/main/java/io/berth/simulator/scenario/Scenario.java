package io.berth.simulator.scenario;

import io.berth.embedded.NodeSpec;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A validated scenario: the simulated nodes to start with, the objects to create, the timed steps, and what should
 * hold at the end. Built only by {@link ScenarioLoader}, which rejects the whole file if any part is invalid, so a
 * {@code Scenario} can be run without half-loading. Immutable.
 *
 * @param file where it was loaded from (for messages)
 * @param name {@code metadata.name} of its Scenario document, else the file name
 * @param description a line for the dashboard's title, possibly empty
 * @param schedulerConfig a {@code KubeSchedulerConfiguration} as JSON, when the scenario sets one
 * @param nodes the nodes started before any object is created
 * @param manifests the objects, in file order (Namespaces and CustomResourceDefinitions are created first)
 * @param podSets pods made from templates ({@code spec.podSets}), loaded in bulk after the manifests
 * @param steps the timed steps, in order
 * @param expectations what must hold once the steps ran (may be empty)
 * @param rolledOut Deployments ({@code namespace/name}) whose rollout must have completed by then
 * @param timeout how long the simulator waits for the expectations (or for the cluster to settle)
 */
public record Scenario(String file, String name, String description, Optional<String> schedulerConfig,
    List<NodeSpec> nodes, List<Manifest> manifests, List<PodSet> podSets, List<Step> steps, List<PodExpectation> expectations,
    List<String> rolledOut, Duration timeout) {

  public Scenario {
    nodes = List.copyOf(nodes);
    manifests = List.copyOf(manifests);
    podSets = List.copyOf(podSets);
    steps = List.copyOf(steps);
    expectations = List.copyOf(expectations);
    rolledOut = List.copyOf(rolledOut);
  }

  /** Whether the scenario says what must hold at its end. */
  public boolean hasExpectations() {
    return !expectations.isEmpty() || !rolledOut.isEmpty();
  }

  /** Whether some object is a scheduler-plugins PodGroup (the simulator then installs the PodGroup CRD). */
  public boolean usesPodGroups() {
    return manifests.stream().anyMatch(m -> m.kind().equals("PodGroup"))
        || steps.stream().anyMatch(s -> s instanceof Step.Apply a && a.manifest().kind().equals("PodGroup"));
  }
}
