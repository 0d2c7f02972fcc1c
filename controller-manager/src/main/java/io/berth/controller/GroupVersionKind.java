package io.berth.controller;

import java.util.Objects;

/**
 * The group, version and kind of a controller, as written in the ownerReferences it sets on what it controls
 * (apimachinery's {@code schema.GroupVersionKind}). Immutable.
 *
 * @param group API group, empty for the core group
 * @param version API version ({@code v1})
 * @param kind kind ({@code ReplicaSet})
 */
public record GroupVersionKind(String group, String version, String kind) {

  public static final GroupVersionKind REPLICA_SET = new GroupVersionKind("apps", "v1", "ReplicaSet");
  public static final GroupVersionKind DEPLOYMENT = new GroupVersionKind("apps", "v1", "Deployment");

  public GroupVersionKind {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(kind, "kind");
  }

  /** {@code group/version}, or {@code version} alone for the core group: the {@code apiVersion} field. */
  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }
}
