package io.berth.conformance;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which grants of the chart's RBAC a ServiceAccount holds, one per verb, resource and resourceName of each rule of
 * each Role or ClusterRole bound to it, and which of them requests in the API server's audit log used. A request
 * uses a grant when its verb, API group, resource (with subresource), object name (when the rule names some) and
 * namespace (for a Role) match. Stateless; the lists it returns are the caller's.
 */
final class RbacCoverage {

  /**
   * One verb on one resource: {@code namespace} is the Role's ({@code ""} for a ClusterRole), {@code resourceName}
   * {@code ""} when the rule names none.
   */
  record Grant(String namespace, String apiGroup, String resource, String verb, String resourceName) {

    /** How the allow-list names it: {@code verb group/resource[name]} with {@code " in NAMESPACE"} for a Role. */
    String key() {
      return verb + " " + apiGroup + "/" + resource + (resourceName.isEmpty() ? "" : "[" + resourceName + "]")
          + (namespace.isEmpty() ? "" : " in " + namespace);
    }

    boolean usedBy(AuditLog.Entry e) {
      String requested = e.subresource().isEmpty() ? e.resource() : e.resource() + "/" + e.subresource();
      return e.verb().equals(verb) && e.apiGroup().equals(apiGroup) && requested.equals(resource)
          && (namespace.isEmpty() || e.namespace().equals(namespace))
          && (resourceName.isEmpty() || e.name().equals(resourceName));
    }

    @Override
    public String toString() {
      return key();
    }
  }

  private RbacCoverage() {}

  /** The grants of every Role and ClusterRole in {@code chart} bound to ServiceAccount {@code namespace/name}. */
  static List<Grant> grants(List<HasMetadata> chart, String namespace, String name) {
    List<Grant> out = new ArrayList<>();
    for (HasMetadata o : chart) {
      List<Subject> subjects;
      RoleRef ref;
      String bindingNamespace;
      if (o instanceof ClusterRoleBinding b) {
        subjects = b.getSubjects();
        ref = b.getRoleRef();
        bindingNamespace = "";
      } else if (o instanceof RoleBinding b) {
        subjects = b.getSubjects();
        ref = b.getRoleRef();
        bindingNamespace = b.getMetadata().getNamespace();
      } else {
        continue;
      }
      boolean bound = subjects != null && subjects.stream().anyMatch(s -> "ServiceAccount".equals(s.getKind())
          && name.equals(s.getName()) && namespace.equals(s.getNamespace()));
      if (!bound) {
        continue;
      }
      List<PolicyRule> rules = role(chart, ref, bindingNamespace).orElseThrow(() -> new IllegalArgumentException(
          o.getKind() + " " + o.getMetadata().getName() + " refers to " + ref.getKind() + " " + ref.getName()
              + ", which the chart does not define"));
      for (PolicyRule rule : rules) {
        // a nonResourceURLs rule has no resources: it grants no request on the API's resources
        List<String> names = orEmpty(rule.getResourceNames()).isEmpty() ? List.of("") : rule.getResourceNames();
        for (String group : orEmpty(rule.getApiGroups())) {
          for (String resource : orEmpty(rule.getResources())) {
            for (String verb : orEmpty(rule.getVerbs())) {
              for (String resourceName : names) {
                out.add(new Grant(bindingNamespace, group, resource, verb, resourceName));
              }
            }
          }
        }
      }
    }
    return out;
  }

  private static List<String> orEmpty(List<String> list) {
    return list == null ? List.of() : list;
  }

  private static Optional<List<PolicyRule>> role(List<HasMetadata> chart, RoleRef ref, String bindingNamespace) {
    for (HasMetadata o : chart) {
      if (!o.getMetadata().getName().equals(ref.getName())) {
        continue;
      }
      if (ref.getKind().equals("ClusterRole") && o instanceof ClusterRole r) {
        return Optional.of(r.getRules());
      }
      if (ref.getKind().equals("Role") && o instanceof Role r
          && bindingNamespace.equals(r.getMetadata().getNamespace())) {
        return Optional.of(r.getRules());
      }
    }
    return Optional.empty();
  }

  /** The grants no entry used, in order. */
  static List<Grant> unused(List<Grant> grants, List<AuditLog.Entry> entries) {
    return grants.stream().filter(g -> entries.stream().noneMatch(g::usedBy)).toList();
  }

  /**
   * The allow-list: lines {@code SERVICEACCOUNT GRANT-KEY  # reason}, blank lines and {@code #} comments skipped;
   * returns {@code "SERVICEACCOUNT GRANT-KEY"} to its reason. A line without a reason is refused.
   */
  static Map<String, String> allowList(Path file) throws IOException {
    Map<String, String> out = new LinkedHashMap<>();
    int number = 0;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      number++;
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int hash = line.indexOf('#');
      if (hash < 0 || line.substring(hash + 1).isBlank()) {
        throw new IllegalArgumentException(file + ":" + number + ": an entry needs a reason after '#': " + line);
      }
      out.put(line.substring(0, hash).strip(), line.substring(hash + 1).strip());
    }
    return out;
  }
}
