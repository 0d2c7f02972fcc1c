package io.berth.conformance;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * Applies the RBAC of the chart as rendered in {@code deploy/manifests/berth-all.yaml} (ClusterRoles, Roles and their
 * bindings to the ServiceAccounts {@code kube-system/berth-scheduler} and {@code kube-system/berth-controller-manager})
 * to the real API server, so that Berth's daemons run there with exactly the chart's grants. Stateless.
 */
final class ChartRbac {

  private static final Set<String> RBAC_KINDS = Set.of("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding",
      "ServiceAccount");

  private ChartRbac() {}

  static Path manifests() {
    return Path.of(System.getProperty("berth.deployDir", "../deploy")).resolve("manifests").resolve("berth-all.yaml");
  }

  /** The chart's RBAC objects (and ServiceAccounts), decoded with {@code client} (which sends nothing). */
  static List<HasMetadata> load(KubernetesClient client) throws IOException {
    try (InputStream in = Files.newInputStream(manifests())) {
      return client.load(in).items().stream().filter(o -> RBAC_KINDS.contains(o.getKind())).toList();
    }
  }

  /** Server-side applies the chart's RBAC objects (and ServiceAccounts) with {@code admin}; returns what it applied. */
  static List<HasMetadata> apply(KubernetesClient admin) throws IOException {
    List<HasMetadata> objects = load(admin);
    for (HasMetadata object : objects) {
      admin.resource(object).forceConflicts().serverSideApply();
    }
    return objects;
  }
}
