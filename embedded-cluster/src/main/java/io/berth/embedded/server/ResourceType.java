package io.berth.embedded.server;

import java.util.List;

/**
 * One kind of object the embedded API server serves: its group, version, plural resource name, kind and scope, and
 * which subresources it has. Immutable; the registry of all of them is {@link ResourceTypes}.
 *
 * @param group API group, empty for the core group
 * @param version API version within the group
 * @param resource plural lower-case resource name as it appears in URLs ({@code pods})
 * @param kind object kind ({@code Pod})
 * @param namespaced whether objects live in a namespace
 * @param shortNames kubectl short names ({@code po})
 * @param hasStatus whether a {@code /status} subresource separates status writes from the main resource
 * @param hasScale whether a {@code /scale} subresource maps {@code spec.replicas}
 * @param resetStatusOnCreate whether a create discards the status the client sent (true for most kinds with status)
 * @param allowCreateOnUpdate whether a PUT of a missing object creates it (leases, endpoints, events upstream)
 * @param openApiSchema a custom resource's structural schema (its CRD's {@code openAPIV3Schema}); null for
 *     built-in types and CRDs without one
 */
public record ResourceType(
    String group,
    String version,
    String resource,
    String kind,
    boolean namespaced,
    List<String> shortNames,
    boolean hasStatus,
    boolean hasScale,
    boolean resetStatusOnCreate,
    boolean allowCreateOnUpdate,
    tools.jackson.databind.JsonNode openApiSchema) {

  /** A built-in type: no schema of its own. */
  public ResourceType(String group, String version, String resource, String kind, boolean namespaced,
      List<String> shortNames, boolean hasStatus, boolean hasScale, boolean resetStatusOnCreate,
      boolean allowCreateOnUpdate) {
    this(group, version, resource, kind, namespaced, shortNames, hasStatus, hasScale, resetStatusOnCreate,
        allowCreateOnUpdate, null);
  }

  /**
   * Identity is group, version and resource: a CustomResourceDefinition updated to add a status subresource still
   * names the same stored objects.
   */
  @Override
  public boolean equals(Object other) {
    return other instanceof ResourceType t && t.group.equals(group) && t.version.equals(version)
        && t.resource.equals(resource);
  }

  @Override
  public int hashCode() {
    // Objects.hash's formula without its varargs array: every store access hashes the type (String caches its hash)
    return (31 * (31 * (31 + group.hashCode()) + version.hashCode())) + resource.hashCode();
  }

  /** {@code v1} for the core group, {@code group/version} otherwise. */
  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** The list kind ({@code PodList}). */
  public String listKind() {
    return kind + "List";
  }

  /** {@code pods} or {@code deployments.apps}: the name kube-apiserver uses in messages. */
  public String qualifiedResource() {
    return group.isEmpty() ? resource : resource + "." + group;
  }

  /** The singular name as discovery reports it. */
  public String singularName() {
    return kind.toLowerCase(java.util.Locale.ROOT);
  }
}
