package io.berth.embedded.auth;

import java.util.List;
import java.util.Optional;

/**
 * Where the RBAC authorizer reads roles and bindings from. Implementations must be thread-safe and answer from
 * current state on every call (the authorizer keeps nothing between requests).
 */
public interface RbacPolicySource {

  /** Every ClusterRoleBinding. */
  List<RbacBinding> clusterRoleBindings();

  /** The RoleBindings of {@code namespace}. */
  List<RbacBinding> roleBindings(String namespace);

  /** ClusterRole {@code name}, if it exists. */
  Optional<RbacRole> clusterRole(String name);

  /** Role {@code namespace}/{@code name}, if it exists. */
  Optional<RbacRole> role(String namespace, String name);
}
