package io.berth.deploy.rbac;

import io.berth.deploy.HelmRender;
import io.berth.deploy.Rendered;
import io.berth.embedded.auth.RbacPolicySource;
import io.berth.embedded.auth.RbacRole;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * One render of the chart as the least-privilege test uses it: the documents, the daemons' ServiceAccounts and
 * container arguments, the scheduler's configuration file, and the roles the chart binds to a ServiceAccount.
 * Immutable.
 */
record ChartRelease(String namespace, Rendered rendered) {
  private static final String COMPONENT = "app.kubernetes.io/component";

  /** {@code helm template berth -n namespace --set k=v ...}. */
  static ChartRelease render(String namespace, Map<String, Object> sets) {
    HelmRender render = HelmRender.chart().namespace(namespace);
    sets.forEach(render::set);
    return new ChartRelease(namespace, render.documents());
  }

  List<JsonNode> documents() {
    return rendered.documents();
  }

  private JsonNode deployment(String component) {
    return rendered.ofKind("Deployment").stream()
        .filter(d -> component.equals(d.path("metadata").path("labels").path(COMPONENT).asString("")))
        .findFirst().orElseThrow(() -> new AssertionError("no Deployment of component " + component));
  }

  /** The ServiceAccount the component's Deployment runs as. */
  String serviceAccount(String component) {
    return deployment(component).path("spec").path("template").path("spec").path("serviceAccountName").asString();
  }

  /** The KubeSchedulerConfiguration of the scheduler's ConfigMap. */
  String schedulerConfig() {
    JsonNode map = rendered.ofKind("ConfigMap").stream()
        .filter(d -> "scheduler".equals(d.path("metadata").path("labels").path(COMPONENT).asString("")))
        .findFirst().orElseThrow(() -> new AssertionError("no scheduler ConfigMap"));
    return map.path("data").path("scheduler-config.yaml").asString();
  }

  /**
   * The container's arguments as the chart renders them, for a process on this machine: {@code --secure-port}
   * becomes 0 (a free port), {@code --cert-dir} is dropped (the certificate stays in memory), and the mounted
   * paths in {@code paths} are replaced by local files.
   */
  List<String> args(String component, Map<String, String> paths) {
    List<String> args = new ArrayList<>();
    for (JsonNode arg : deployment(component).path("spec").path("template").path("spec").path("containers")
        .get(0).path("args")) {
      String a = arg.asString();
      if (a.startsWith("--secure-port=")) {
        a = "--secure-port=0";
      } else if (a.startsWith("--cert-dir=")) {
        continue;
      }
      for (Map.Entry<String, String> p : paths.entrySet()) {
        a = a.replace(p.getKey(), p.getValue());
      }
      args.add(a);
    }
    return args;
  }

  /** The roles of the chart's bindings whose subjects include the ServiceAccount, as the cluster holds them. */
  List<RbacRole> rolesBoundTo(String serviceAccount, RbacPolicySource policy) {
    List<RbacRole> roles = new ArrayList<>();
    for (String kind : List.of("ClusterRoleBinding", "RoleBinding")) {
      for (JsonNode binding : rendered.ofKind(kind)) {
        boolean bound = false;
        for (JsonNode s : binding.path("subjects")) {
          bound |= "ServiceAccount".equals(s.path("kind").asString("")) && serviceAccount.equals(
              s.path("name").asString("")) && namespace.equals(s.path("namespace").asString(namespace));
        }
        if (!bound) {
          continue;
        }
        String roleKind = binding.path("roleRef").path("kind").asString();
        String roleName = binding.path("roleRef").path("name").asString();
        String bindingNamespace = binding.path("metadata").path("namespace").asString(namespace);
        roles.add((roleKind.equals("ClusterRole") ? policy.clusterRole(roleName)
            : policy.role(bindingNamespace, roleName))
            .orElseThrow(() -> new AssertionError(roleKind + " " + roleName + " is not in the cluster")));
      }
    }
    return roles;
  }
}
