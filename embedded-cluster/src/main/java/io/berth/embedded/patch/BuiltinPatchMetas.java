package io.berth.embedded.patch;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The strategic-merge metadata of the built-in kinds Berth uses, transcribed from the
 * {@code patchStrategy}/{@code patchMergeKey} struct tags of k8s.io/api ({@code core/v1/types.go},
 * {@code apps/v1/types.go}, {@code batch/v1/types.go}, {@code policy/v1/types.go}, and
 * {@code meta/v1/types.go} for ObjectMeta). Only tagged fields are listed; untagged ones need no entry.
 * Notably untagged upstream, hence replaced wholesale: {@code spec.tolerations},
 * {@code spec.readinessGates}, {@code status.containerStatuses}, a Node's {@code spec.taints}, a
 * StatefulSet's {@code volumeClaimTemplates}. Immutable, thread-safe.
 */
final class BuiltinPatchMetas {

  static final PatchMeta OBJECT_META = PatchMeta.builder()
      .mergeSet("finalizers")
      .mergeList("ownerReferences", "uid", PatchMeta.OPAQUE)
      .build();

  static final PatchMeta CONTAINER = PatchMeta.builder()
      .mergeList("ports", "containerPort", PatchMeta.OPAQUE)
      .mergeList("env", "name", PatchMeta.OPAQUE)
      .mergeList("volumeMounts", "mountPath", PatchMeta.OPAQUE)
      .mergeList("volumeDevices", "devicePath", PatchMeta.OPAQUE)
      .build();

  static final PatchMeta POD_SPEC = PatchMeta.builder()
      .mergeListRetainKeys("volumes", "name", PatchMeta.OPAQUE)
      .mergeList("initContainers", "name", CONTAINER)
      .mergeList("containers", "name", CONTAINER)
      .mergeList("ephemeralContainers", "name", CONTAINER)
      .mergeList("imagePullSecrets", "name", PatchMeta.OPAQUE)
      .mergeList("hostAliases", "ip", PatchMeta.OPAQUE)
      .mergeList("topologySpreadConstraints", "topologyKey", PatchMeta.OPAQUE)
      .mergeListRetainKeys("resourceClaims", "name", PatchMeta.OPAQUE)
      .mergeList("schedulingGates", "name", PatchMeta.OPAQUE)
      .build();

  static final PatchMeta POD_STATUS = PatchMeta.builder()
      .mergeList("conditions", "type", PatchMeta.OPAQUE)
      .mergeList("podIPs", "ip", PatchMeta.OPAQUE)
      .mergeList("hostIPs", "ip", PatchMeta.OPAQUE)
      .mergeListRetainKeys("resourceClaimStatuses", "name", PatchMeta.OPAQUE)
      .build();

  static final PatchMeta POD_TEMPLATE_SPEC = PatchMeta.builder()
      .field("metadata", OBJECT_META)
      .field("spec", POD_SPEC)
      .build();

  /** A status whose only tagged field is {@code conditions}, merged by {@code type}. */
  static final PatchMeta CONDITIONS_STATUS = PatchMeta.builder()
      .mergeList("conditions", "type", PatchMeta.OPAQUE)
      .build();

  /** Any spec whose only tagged content is a pod {@code template}. */
  static final PatchMeta TEMPLATED_SPEC = PatchMeta.builder()
      .field("template", POD_TEMPLATE_SPEC)
      .build();

  static final PatchMeta METADATA_ONLY = kind(PatchMeta.OPAQUE, PatchMeta.OPAQUE);

  static final PatchMeta POD = kind(POD_SPEC, POD_STATUS);

  static final PatchMeta DEPLOYMENT = kind(
      PatchMeta.builder().field("template", POD_TEMPLATE_SPEC).retainKeys("strategy", PatchMeta.OPAQUE).build(),
      CONDITIONS_STATUS);

  static final PatchMeta TEMPLATED_WITH_CONDITIONS = kind(TEMPLATED_SPEC, CONDITIONS_STATUS);

  static final PatchMeta JOB_SPEC = TEMPLATED_SPEC;

  static final PatchMeta CRON_JOB = kind(
      PatchMeta.builder()
          .field("jobTemplate", PatchMeta.builder().field("metadata", OBJECT_META).field("spec", JOB_SPEC).build())
          .build(),
      PatchMeta.OPAQUE);

  static final PatchMeta POD_TEMPLATE = PatchMeta.builder()
      .field("metadata", OBJECT_META)
      .field("template", POD_TEMPLATE_SPEC)
      .build();

  static final PatchMeta NODE = kind(
      PatchMeta.builder().mergeSet("podCIDRs").build(),
      PatchMeta.builder()
          .mergeList("conditions", "type", PatchMeta.OPAQUE)
          .mergeList("addresses", "type", PatchMeta.OPAQUE)
          .build());

  static final PatchMeta SERVICE = kind(
      PatchMeta.builder().mergeList("ports", "port", PatchMeta.OPAQUE).build(),
      CONDITIONS_STATUS);

  static final PatchMeta CONDITIONS_ONLY = kind(PatchMeta.OPAQUE, CONDITIONS_STATUS);

  private record GroupKind(String group, String kind) {}

  private static final Map<GroupKind, PatchMeta> KINDS = Map.ofEntries(
      Map.entry(new GroupKind("", "Pod"), POD),
      Map.entry(new GroupKind("", "PodTemplate"), POD_TEMPLATE),
      Map.entry(new GroupKind("", "ReplicationController"), TEMPLATED_WITH_CONDITIONS),
      Map.entry(new GroupKind("", "Node"), NODE),
      Map.entry(new GroupKind("", "Service"), SERVICE),
      Map.entry(new GroupKind("", "Namespace"), CONDITIONS_ONLY),
      Map.entry(new GroupKind("", "PersistentVolumeClaim"), CONDITIONS_ONLY),
      Map.entry(new GroupKind("apps", "Deployment"), DEPLOYMENT),
      Map.entry(new GroupKind("apps", "ReplicaSet"), TEMPLATED_WITH_CONDITIONS),
      Map.entry(new GroupKind("apps", "StatefulSet"), TEMPLATED_WITH_CONDITIONS),
      Map.entry(new GroupKind("apps", "DaemonSet"), TEMPLATED_WITH_CONDITIONS),
      Map.entry(new GroupKind("batch", "Job"), TEMPLATED_WITH_CONDITIONS),
      Map.entry(new GroupKind("batch", "CronJob"), CRON_JOB),
      Map.entry(new GroupKind("policy", "PodDisruptionBudget"), CONDITIONS_ONLY));

  /** API groups served by kube-apiserver itself; their other kinds only have ObjectMeta's tags. */
  private static final Set<String> BUILTIN_GROUPS = Set.of(
      "", "apps", "batch", "policy", "autoscaling", "coordination.k8s.io", "scheduling.k8s.io", "events.k8s.io",
      "storage.k8s.io", "discovery.k8s.io", "networking.k8s.io", "rbac.authorization.k8s.io", "node.k8s.io",
      "certificates.k8s.io", "admissionregistration.k8s.io", "flowcontrol.apiserver.k8s.io", "resource.k8s.io",
      "apiextensions.k8s.io", "apiregistration.k8s.io");

  private BuiltinPatchMetas() {}

  /** The metadata of a built-in kind; empty for kinds outside kube-apiserver's own groups (CRDs). */
  static Optional<PatchMeta> forKind(String group, String kind) {
    PatchMeta known = KINDS.get(new GroupKind(group, kind));
    if (known != null) {
      return Optional.of(known);
    }
    return BUILTIN_GROUPS.contains(group) ? Optional.of(METADATA_ONLY) : Optional.empty();
  }

  private static PatchMeta kind(PatchMeta spec, PatchMeta status) {
    return PatchMeta.builder()
        .field("metadata", OBJECT_META)
        .field("spec", spec)
        .field("status", status)
        .build();
  }
}
