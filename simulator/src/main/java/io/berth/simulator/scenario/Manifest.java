package io.berth.simulator.scenario;

/**
 * One validated Kubernetes object of a scenario, as JSON ready to create. Immutable.
 *
 * @param document the number of the document it came from (from 1)
 * @param apiVersion its apiVersion
 * @param kind its kind
 * @param namespace its namespace, or empty for cluster-scoped objects ({@code default} when a namespaced object
 *     names none)
 * @param name its name
 * @param json the object as JSON, namespace filled in
 */
public record Manifest(int document, String apiVersion, String kind, String namespace, String name, String json) {

  /** {@code Deployment demo/web} or {@code PriorityClass high}. */
  public String label() {
    return kind + " " + (namespace.isEmpty() ? name : namespace + "/" + name);
  }
}
