package io.berth.embedded.auth;

import io.berth.embedded.server.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;

/** An RBAC policy source over objects given as JSON, for authorizer unit tests. Thread-safe. */
final class InMemoryPolicy implements RbacPolicySource {

  // concurrent maps, no further guard
  private final Map<String, RbacRole> roles = new ConcurrentHashMap<>();
  private final Map<String, RbacBinding> bindings = new ConcurrentHashMap<>();

  InMemoryPolicy add(String json) {
    JsonNode tree = Json.parse(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    String kind = tree.path("kind").stringValue();
    String ns = tree.path("metadata").path("namespace").asString("");
    String name = tree.path("metadata").path("name").stringValue();
    switch (kind) {
      case "Role", "ClusterRole" -> roles.put(kind + "/" + ns + "/" + name, RbacObjects.role(kind, tree));
      default -> RbacObjects.binding(kind, tree).ifPresent(b -> bindings.put(kind + "/" + ns + "/" + name, b));
    }
    return this;
  }

  @Override
  public List<RbacBinding> clusterRoleBindings() {
    return select(RbacBinding.CLUSTER_ROLE_BINDING, "");
  }

  @Override
  public List<RbacBinding> roleBindings(String namespace) {
    return select(RbacBinding.ROLE_BINDING, namespace);
  }

  private List<RbacBinding> select(String kind, String namespace) {
    List<RbacBinding> out = new ArrayList<>();
    bindings.values().stream().filter(b -> b.kind().equals(kind) && b.namespace().equals(namespace))
        .sorted(java.util.Comparator.comparing(RbacBinding::name)).forEach(out::add);
    return out;
  }

  @Override
  public Optional<RbacRole> clusterRole(String name) {
    return Optional.ofNullable(roles.get("ClusterRole//" + name));
  }

  @Override
  public Optional<RbacRole> role(String namespace, String name) {
    return Optional.ofNullable(roles.get("Role/" + namespace + "/" + name));
  }
}
