package io.berth.simulator.scenario;

/**
 * {@code count} pods made from one template, named {@code namePrefix-0} to {@code namePrefix-(count-1)}, from a
 * Scenario's {@code spec.podSets}: how a scenario describes a large cluster's workload without a document per pod.
 * The simulator loads them straight into the embedded cluster's store (same defaults, validation and watch events
 * as a create over HTTP). With {@code onNodes}, each pod is bound to one of the scenario's nodes (round-robin), so
 * the simulated kubelet starts it at once: the cluster begins busy; without it, the scheduler places them. Immutable.
 *
 * @param namePrefix the pods' name prefix
 * @param count how many pods
 * @param namespace their namespace ({@code default} when the entry names none)
 * @param onNodes whether they are bound round-robin to the scenario's nodes
 * @param templateJson the Pod (apiVersion, kind, metadata without name, spec) as JSON
 */
public record PodSet(String namePrefix, int count, String namespace, boolean onNodes, String templateJson) {
}
