package io.berth.embedded.auth;

import java.util.List;
import java.util.Objects;

/**
 * Who made a request, as kube-apiserver's authenticators describe a user ({@code user.Info}): the user name, a
 * uid and the groups. Immutable.
 *
 * @param username the user name ({@code system:serviceaccount:ns:name} for a ServiceAccount)
 * @param uid a unique id, empty when unknown
 * @param groups the groups, in order
 */
public record UserInfo(String username, String uid, List<String> groups) {

  /** The group every authenticated user is in. */
  public static final String AUTHENTICATED = "system:authenticated";
  /** The group of requests without credentials. */
  public static final String UNAUTHENTICATED = "system:unauthenticated";
  /** The group allowed everything, whatever the RBAC objects say. */
  public static final String MASTERS = "system:masters";
  /** The user of requests without credentials. */
  public static final UserInfo ANONYMOUS = new UserInfo("system:anonymous", "", List.of(UNAUTHENTICATED));

  public UserInfo {
    Objects.requireNonNull(username, "username");
    uid = uid == null ? "" : uid;
    groups = groups == null ? List.of() : List.copyOf(groups);
  }

  /** Whether the user is in {@code group}. */
  public boolean inGroup(String group) {
    return groups.contains(group);
  }

  /** The user name of ServiceAccount {@code namespace}/{@code name}. */
  public static String serviceAccountUsername(String namespace, String name) {
    return "system:serviceaccount:" + namespace + ":" + name;
  }
}
