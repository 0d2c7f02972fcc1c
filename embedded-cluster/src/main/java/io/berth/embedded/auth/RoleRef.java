package io.berth.embedded.auth;

/** The role a binding grants ({@code rbac/v1 RoleRef}): kind {@code Role} or {@code ClusterRole}, and name. Immutable. */
public record RoleRef(String kind, String name) {

  public static final String ROLE = "Role";
  public static final String CLUSTER_ROLE = "ClusterRole";
}
