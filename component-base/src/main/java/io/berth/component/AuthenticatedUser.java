package io.berth.component;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Who a bearer token belongs to, as a TokenReview's {@code status.user} says: the user name, uid, groups and extra
 * attributes, passed on unchanged to the SubjectAccessReview. Immutable (defensive copies).
 *
 * @param name the user name ({@code system:serviceaccount:monitoring:prometheus})
 * @param uid the uid, empty if none
 * @param groups the groups, in the order the API server gave them
 * @param extra the extra attributes
 */
public record AuthenticatedUser(String name, String uid, List<String> groups, Map<String, List<String>> extra) {

  public AuthenticatedUser {
    Objects.requireNonNull(name, "name");
    uid = uid == null ? "" : uid;
    groups = groups == null ? List.of() : List.copyOf(groups);
    TreeMap<String, List<String>> copy = new TreeMap<>();
    if (extra != null) {
      extra.forEach((k, v) -> copy.put(k, v == null ? List.of() : List.copyOf(v)));
    }
    extra = java.util.Collections.unmodifiableMap(copy);
  }
}
