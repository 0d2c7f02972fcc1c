package io.berth.embedded.auth;

import io.berth.embedded.server.ObjectStore;
import io.berth.embedded.server.ResourceType;
import io.berth.embedded.server.ResourceTypes;
import io.berth.embedded.server.StoredObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Reads the RBAC objects from the API server's {@link ObjectStore} on every call, so authorization always sees the
 * stored objects (no watch-fed cache that could lag). Lists take the store's read lock for the length of a scan and
 * share the stored versions (nothing is copied). Each stored version is parsed once: the parse is memoized per
 * object key and reused only while the store still holds that very version (compared by identity), so a memo entry
 * can never be stale. The entry of a deleted object stays until its key is stored again: the memo is bounded by
 * the number of distinct RBAC object keys ever stored.
 *
 * <p>Thread-safe: the memo is a concurrent map of immutable entries; the store guards itself.
 */
public final class StoreRbacPolicySource implements RbacPolicySource {

  private record Parsed<T>(StoredObject version, T value) {
  }

  private final ObjectStore store;
  // concurrent map of immutable entries, no further guard: type + key -> parse of one stored version
  private final Map<String, Parsed<?>> memo = new ConcurrentHashMap<>();

  public StoreRbacPolicySource(ObjectStore store) {
    this.store = store;
  }

  @Override
  public List<RbacBinding> clusterRoleBindings() {
    return bindings(ResourceTypes.CLUSTER_ROLE_BINDINGS, "", RbacBinding.CLUSTER_ROLE_BINDING);
  }

  @Override
  public List<RbacBinding> roleBindings(String namespace) {
    if (namespace == null || namespace.isEmpty()) {
      return List.of();
    }
    return bindings(ResourceTypes.ROLE_BINDINGS, namespace, RbacBinding.ROLE_BINDING);
  }

  @Override
  public Optional<RbacRole> clusterRole(String name) {
    return store.get(ResourceTypes.CLUSTER_ROLES, "", name)
        .map(o -> parsed(o, t -> RbacObjects.role(RoleRef.CLUSTER_ROLE, t.tree())));
  }

  @Override
  public Optional<RbacRole> role(String namespace, String name) {
    if (namespace == null || namespace.isEmpty()) {
      return Optional.empty();
    }
    return store.get(ResourceTypes.ROLES, namespace, name)
        .map(o -> parsed(o, t -> RbacObjects.role(RoleRef.ROLE, t.tree())));
  }

  private List<RbacBinding> bindings(ResourceType type, String namespace, String kind) {
    List<StoredObject> objects = store.list(type, namespace, o -> true).items();
    List<RbacBinding> out = new ArrayList<>(objects.size());
    for (StoredObject o : objects) {
      Optional<RbacBinding> b = parsed(o, t -> RbacObjects.binding(kind, t.tree()));
      b.ifPresent(out::add);
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private <T> T parsed(StoredObject o, Function<StoredObject, T> parse) {
    String key = o.type().resource() + "/" + o.key();
    Parsed<?> p = memo.get(key);
    if (p != null && p.version() == o) {
      return (T) p.value();
    }
    T value = parse.apply(o);
    memo.put(key, new Parsed<>(o, value));
    return value;
  }
}
