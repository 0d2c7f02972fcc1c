package io.berth.embedded.server;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The built-in resource types the embedded API server serves, in discovery order. Immutable after class
 * initialisation; thread-safe.
 */
public final class ResourceTypes {

  private static final Map<String, ResourceType> BY_GROUP_RESOURCE = new LinkedHashMap<>();
  private static final Map<String, ResourceType> BY_API_VERSION_KIND = new LinkedHashMap<>();

  // Core group.
  public static final ResourceType PODS = register("", "v1", "pods", "Pod", true, List.of("po"), true, false, true, false);
  public static final ResourceType NODES = register("", "v1", "nodes", "Node", false, List.of("no"), true, false, false, false);
  public static final ResourceType NAMESPACES = register("", "v1", "namespaces", "Namespace", false, List.of("ns"), true, false, false, false);
  public static final ResourceType EVENTS = register("", "v1", "events", "Event", true, List.of("ev"), false, false, false, true);
  public static final ResourceType SERVICES = register("", "v1", "services", "Service", true, List.of("svc"), true, false, true, false);
  public static final ResourceType ENDPOINTS = register("", "v1", "endpoints", "Endpoints", true, List.of("ep"), false, false, false, true);
  public static final ResourceType CONFIG_MAPS = register("", "v1", "configmaps", "ConfigMap", true, List.of("cm"), false, false, false, false);
  public static final ResourceType SECRETS = register("", "v1", "secrets", "Secret", true, List.of(), false, false, false, false);
  public static final ResourceType SERVICE_ACCOUNTS = register("", "v1", "serviceaccounts", "ServiceAccount", true, List.of("sa"), false, false, false, false);
  public static final ResourceType PERSISTENT_VOLUMES = register("", "v1", "persistentvolumes", "PersistentVolume", false, List.of("pv"), true, false, true, false);
  public static final ResourceType PERSISTENT_VOLUME_CLAIMS = register("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, List.of("pvc"), true, false, true, false);
  public static final ResourceType REPLICATION_CONTROLLERS = register("", "v1", "replicationcontrollers", "ReplicationController", true, List.of("rc"), true, true, true, false);
  public static final ResourceType RESOURCE_QUOTAS = register("", "v1", "resourcequotas", "ResourceQuota", true, List.of("quota"), true, false, true, false);
  public static final ResourceType LIMIT_RANGES = register("", "v1", "limitranges", "LimitRange", true, List.of("limits"), false, false, false, false);
  // apps
  public static final ResourceType DEPLOYMENTS = register("apps", "v1", "deployments", "Deployment", true, List.of("deploy"), true, true, true, false);
  public static final ResourceType REPLICA_SETS = register("apps", "v1", "replicasets", "ReplicaSet", true, List.of("rs"), true, true, true, false);
  public static final ResourceType STATEFUL_SETS = register("apps", "v1", "statefulsets", "StatefulSet", true, List.of("sts"), true, true, true, false);
  public static final ResourceType DAEMON_SETS = register("apps", "v1", "daemonsets", "DaemonSet", true, List.of("ds"), true, false, true, false);
  public static final ResourceType CONTROLLER_REVISIONS = register("apps", "v1", "controllerrevisions", "ControllerRevision", true, List.of(), false, false, false, false);
  // batch
  public static final ResourceType JOBS = register("batch", "v1", "jobs", "Job", true, List.of(), true, false, true, false);
  // policy
  public static final ResourceType POD_DISRUPTION_BUDGETS = register("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true, List.of("pdb"), true, false, true, false);
  // coordination
  public static final ResourceType LEASES = register("coordination.k8s.io", "v1", "leases", "Lease", true, List.of(), false, false, false, true);
  // events: served by EventsV1Api as the events.k8s.io/v1 form of the EVENTS objects; nothing is stored as this type
  public static final ResourceType EVENTS_V1 = register("events.k8s.io", "v1", "events", "Event", true, List.of("ev"), false, false, false, true);
  // rbac
  public static final ResourceType ROLES = register("rbac.authorization.k8s.io", "v1", "roles", "Role", true, List.of(), false, false, false, false);
  public static final ResourceType ROLE_BINDINGS = register("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true, List.of(), false, false, false, false);
  public static final ResourceType CLUSTER_ROLES = register("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false, List.of(), false, false, false, false);
  public static final ResourceType CLUSTER_ROLE_BINDINGS = register("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", false, List.of(), false, false, false, false);
  // scheduling
  public static final ResourceType PRIORITY_CLASSES = register("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", false, List.of("pc"), false, false, false, false);
  // storage
  public static final ResourceType STORAGE_CLASSES = register("storage.k8s.io", "v1", "storageclasses", "StorageClass", false, List.of("sc"), false, false, false, false);
  public static final ResourceType CSI_NODES = register("storage.k8s.io", "v1", "csinodes", "CSINode", false, List.of(), false, false, false, false);
  public static final ResourceType CSI_DRIVERS = register("storage.k8s.io", "v1", "csidrivers", "CSIDriver", false, List.of(), false, false, false, false);
  public static final ResourceType CSI_STORAGE_CAPACITIES = register("storage.k8s.io", "v1", "csistoragecapacities", "CSIStorageCapacity", true, List.of(), false, false, false, false);
  public static final ResourceType VOLUME_ATTACHMENTS = register("storage.k8s.io", "v1", "volumeattachments", "VolumeAttachment", false, List.of(), true, false, true, false);

  // resource (Dynamic Resource Allocation, GA in 1.34): claims have a status subresource the scheduler writes.
  public static final ResourceType DEVICE_CLASSES = register("resource.k8s.io", "v1", "deviceclasses", "DeviceClass", false, List.of(), false, false, false, false);
  public static final ResourceType RESOURCE_CLAIMS = register("resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", true, List.of(), true, false, true, false);
  public static final ResourceType RESOURCE_CLAIM_TEMPLATES = register("resource.k8s.io", "v1", "resourceclaimtemplates", "ResourceClaimTemplate", true, List.of(), false, false, false, false);
  public static final ResourceType RESOURCE_SLICES = register("resource.k8s.io", "v1", "resourceslices", "ResourceSlice", false, List.of(), false, false, false, false);

  // apiextensions: the types CRDs define are served by CustomResourceDefinitions, not registered here.
  public static final ResourceType CUSTOM_RESOURCE_DEFINITIONS = register("apiextensions.k8s.io", "v1",
      "customresourcedefinitions", "CustomResourceDefinition", false, List.of("crd", "crds"), true, false, true,
      false);

  private ResourceTypes() {
  }

  private static ResourceType register(String group, String version, String resource, String kind, boolean namespaced,
      List<String> shortNames, boolean hasStatus, boolean hasScale, boolean resetStatusOnCreate,
      boolean allowCreateOnUpdate) {
    ResourceType type = new ResourceType(group, version, resource, kind, namespaced, shortNames, hasStatus, hasScale,
        resetStatusOnCreate, allowCreateOnUpdate);
    BY_GROUP_RESOURCE.put(key(group, resource), type);
    BY_API_VERSION_KIND.put(key(type.apiVersion(), kind), type);
    return type;
  }

  private static String key(String a, String b) {
    return a + "\u0000" + b;
  }

  /** The type served at {@code group}/{@code version}/{@code resource}, if any. */
  public static Optional<ResourceType> find(String group, String version, String resource) {
    ResourceType type = BY_GROUP_RESOURCE.get(key(group, resource));
    return type != null && type.version().equals(version) ? Optional.of(type) : Optional.empty();
  }

  /** The type of objects with this {@code apiVersion} and {@code kind}, if served. */
  public static Optional<ResourceType> byKind(String apiVersion, String kind) {
    return Optional.ofNullable(BY_API_VERSION_KIND.get(key(apiVersion, kind)));
  }

  /** Every served type, in registration order. */
  public static List<ResourceType> all() {
    return List.copyOf(BY_GROUP_RESOURCE.values());
  }
}
