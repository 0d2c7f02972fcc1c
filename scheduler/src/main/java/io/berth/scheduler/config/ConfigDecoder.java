package io.berth.scheduler.config;

import static io.berth.scheduler.config.FieldError.child;
import static io.berth.scheduler.config.FieldError.index;

import io.berth.framework.runtime.ExtensionPoint;
import io.berth.framework.runtime.PluginRef;
import io.berth.framework.runtime.PluginSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import tools.jackson.databind.JsonNode;

/**
 * Strict decoding of a parsed {@code kubescheduler.config.k8s.io/v1} document into a
 * {@link DecodedConfig}, like upstream's strict decoder: an unknown field, a value of the wrong
 * type, a wrong apiVersion or kind, or any scheduler extender is an error naming the field path.
 * Fields kube-scheduler v1.32 knows but Berth ignores ({@code enableProfiling},
 * {@code enableContentionProfiling}, {@code clientConnection.contentType},
 * {@code clientConnection.acceptContentTypes}) are type-checked and dropped. One instance per
 * document; confined to the loading thread.
 */
final class ConfigDecoder {
  static final String API_VERSION = "kubescheduler.config.k8s.io/v1";
  static final String KIND = "KubeSchedulerConfiguration";

  private static final List<String> ROOT_FIELDS = List.of("apiVersion", "kind", "parallelism",
      "leaderElection", "clientConnection", "enableProfiling", "enableContentionProfiling",
      "percentageOfNodesToScore", "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles",
      "extenders", "delayCacheUntilActive");
  private static final List<String> LEADER_ELECTION_FIELDS = List.of("leaderElect",
      "leaseDuration", "renewDeadline", "retryPeriod", "resourceLock", "resourceName",
      "resourceNamespace");
  private static final List<String> CLIENT_CONNECTION_FIELDS =
      List.of("kubeconfig", "acceptContentTypes", "contentType", "qps", "burst");
  private static final List<String> PROFILE_FIELDS =
      List.of("schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig");
  private static final List<String> PLUGINS_FIELDS = pluginsFields();
  private static final List<String> PLUGIN_SET_FIELDS = List.of("enabled", "disabled");
  private static final List<String> PLUGIN_FIELDS = List.of("name", "weight");
  private static final List<String> PLUGIN_CONFIG_FIELDS = List.of("name", "args");

  // confined to the loading thread
  private final List<FieldError> errors = new ArrayList<>();

  /** The problems found so far; the decoded value is meaningful only when this is empty. */
  List<FieldError> errors() {
    return Collections.unmodifiableList(errors);
  }

  DecodedConfig decode(JsonNode root) {
    if (root == null || root.isMissingNode() || root.isNull()) {
      errors.add(FieldError.document("the configuration is empty (want apiVersion: "
          + API_VERSION + ", kind: " + KIND + ")"));
      return DecodedConfig.empty();
    }
    if (!root.isObject()) {
      errors.add(FieldError.document("the configuration must be a " + KIND + " object, not "
          + root.getNodeType().name().toLowerCase(Locale.ROOT)));
      return DecodedConfig.empty();
    }
    // The type comes first: another version's fields would only add confusing unknown-field noise.
    if (!typeMatches(root)) {
      return DecodedConfig.empty();
    }
    checkFields(root, "", ROOT_FIELDS);
    bool(root, "", "enableProfiling");
    bool(root, "", "enableContentionProfiling");
    DecodedConfig decoded = new DecodedConfig(
        int32(root, "", "parallelism"),
        int32(root, "", "percentageOfNodesToScore"),
        int64(root, "", "podInitialBackoffSeconds"),
        int64(root, "", "podMaxBackoffSeconds"),
        leaderElection(root),
        clientConnection(root),
        bool(root, "", "delayCacheUntilActive").orElse(false),
        profiles(root));
    List<JsonNode> extenders = list(root, "", "extenders");
    if (!extenders.isEmpty()) {
      errors.add(FieldError.forbidden("extenders",
          "scheduler extenders are not supported by Berth; use plugins instead"));
    }
    return decoded;
  }

  private boolean typeMatches(JsonNode root) {
    int before = errors.size();
    Optional<String> apiVersion = string(root, "", "apiVersion");
    if (apiVersion.isEmpty() && errors.size() == before) {
      errors.add(FieldError.required("apiVersion", "want " + FieldError.render(API_VERSION)));
    } else if (apiVersion.isPresent() && !apiVersion.get().equals(API_VERSION)) {
      errors.add(FieldError.unsupported("apiVersion", apiVersion.get(), API_VERSION));
    }
    int afterApiVersion = errors.size();
    Optional<String> kind = string(root, "", "kind");
    if (kind.isEmpty() && errors.size() == afterApiVersion) {
      errors.add(FieldError.required("kind", "want " + FieldError.render(KIND)));
    } else if (kind.isPresent() && !kind.get().equals(KIND)) {
      errors.add(FieldError.unsupported("kind", kind.get(), KIND));
    }
    return errors.size() == before;
  }

  private DecodedConfig.LeaderElection leaderElection(JsonNode root) {
    Optional<JsonNode> node = object(root, "", "leaderElection", LEADER_ELECTION_FIELDS);
    if (node.isEmpty()) {
      return DecodedConfig.LeaderElection.EMPTY;
    }
    JsonNode le = node.get();
    String path = "leaderElection";
    return new DecodedConfig.LeaderElection(
        bool(le, path, "leaderElect"),
        duration(le, path, "leaseDuration"),
        duration(le, path, "renewDeadline"),
        duration(le, path, "retryPeriod"),
        string(le, path, "resourceLock").orElse(""),
        string(le, path, "resourceName").orElse(""),
        string(le, path, "resourceNamespace").orElse(""));
  }

  private DecodedConfig.ClientConnection clientConnection(JsonNode root) {
    Optional<JsonNode> node = object(root, "", "clientConnection", CLIENT_CONNECTION_FIELDS);
    if (node.isEmpty()) {
      return DecodedConfig.ClientConnection.EMPTY;
    }
    JsonNode cc = node.get();
    String path = "clientConnection";
    string(cc, path, "acceptContentTypes");
    string(cc, path, "contentType");
    return new DecodedConfig.ClientConnection(
        string(cc, path, "kubeconfig").orElse(""),
        number(cc, path, "qps"),
        int32(cc, path, "burst"));
  }

  private List<DecodedConfig.Profile> profiles(JsonNode root) {
    List<DecodedConfig.Profile> profiles = new ArrayList<>();
    List<JsonNode> nodes = list(root, "", "profiles");
    for (int i = 0; i < nodes.size(); i++) {
      String path = index("profiles", i);
      if (!isObject(nodes.get(i), path)) {
        continue;
      }
      JsonNode p = nodes.get(i);
      checkFields(p, path, PROFILE_FIELDS);
      Map<ExtensionPoint, PluginSet> plugins = new EnumMap<>(ExtensionPoint.class);
      PluginSet multiPoint = PluginSet.EMPTY;
      Optional<JsonNode> pluginsNode = object(p, path, "plugins", PLUGINS_FIELDS);
      if (pluginsNode.isPresent()) {
        String pluginsPath = child(path, "plugins");
        multiPoint = pluginSet(pluginsNode.get(), pluginsPath, "multiPoint").orElse(multiPoint);
        for (ExtensionPoint point : ExtensionPoint.values()) {
          pluginSet(pluginsNode.get(), pluginsPath, point.configName())
              .ifPresent(set -> plugins.put(point, set));
        }
      }
      profiles.add(new DecodedConfig.Profile(
          string(p, path, "schedulerName"),
          int32(p, path, "percentageOfNodesToScore"),
          multiPoint,
          plugins,
          pluginConfigs(p, path)));
    }
    return profiles;
  }

  private Optional<PluginSet> pluginSet(JsonNode plugins, String parent, String field) {
    Optional<JsonNode> node = object(plugins, parent, field, PLUGIN_SET_FIELDS);
    if (node.isEmpty()) {
      return Optional.empty();
    }
    String path = child(parent, field);
    List<PluginRef> enabled = new ArrayList<>();
    List<JsonNode> enabledNodes = list(node.get(), path, "enabled");
    for (int i = 0; i < enabledNodes.size(); i++) {
      String pluginPath = index(child(path, "enabled"), i);
      if (isObject(enabledNodes.get(i), pluginPath)) {
        checkFields(enabledNodes.get(i), pluginPath, PLUGIN_FIELDS);
        String name = string(enabledNodes.get(i), pluginPath, "name").orElse("");
        int weight = int32(enabledNodes.get(i), pluginPath, "weight").orElse(0);
        enabled.add(new PluginRef(name, weight));
      }
    }
    List<String> disabled = new ArrayList<>();
    List<JsonNode> disabledNodes = list(node.get(), path, "disabled");
    for (int i = 0; i < disabledNodes.size(); i++) {
      String pluginPath = index(child(path, "disabled"), i);
      if (isObject(disabledNodes.get(i), pluginPath)) {
        checkFields(disabledNodes.get(i), pluginPath, PLUGIN_FIELDS);
        int32(disabledNodes.get(i), pluginPath, "weight"); // allowed by the type, meaningless
        disabled.add(string(disabledNodes.get(i), pluginPath, "name").orElse(""));
      }
    }
    return Optional.of(new PluginSet(enabled, disabled));
  }

  private List<DecodedConfig.PluginConfig> pluginConfigs(JsonNode profile, String parent) {
    List<DecodedConfig.PluginConfig> configs = new ArrayList<>();
    List<JsonNode> nodes = list(profile, parent, "pluginConfig");
    for (int i = 0; i < nodes.size(); i++) {
      String path = index(child(parent, "pluginConfig"), i);
      if (!isObject(nodes.get(i), path)) {
        continue;
      }
      checkFields(nodes.get(i), path, PLUGIN_CONFIG_FIELDS);
      String name = string(nodes.get(i), path, "name").orElse("");
      Map<String, Object> args = Map.of();
      JsonNode argsNode = nodes.get(i).get("args");
      if (argsNode != null && !argsNode.isNull()) {
        if (argsNode.isObject()) {
          args = PluginArgs.fromTree(argsNode);
        } else {
          errors.add(FieldError.invalid(child(path, "args"), argsNode, "must be an object"));
        }
      }
      configs.add(new DecodedConfig.PluginConfig(name, args));
    }
    return configs;
  }

  // ---- typed field access: absent and null are "unset"; a wrong type is recorded and unset ----

  private void checkFields(JsonNode object, String path, List<String> known) {
    for (String name : object.propertyNames()) {
      if (!known.contains(name)) {
        errors.add(FieldError.unknownField(child(path, name), known));
      }
    }
  }

  private boolean isObject(JsonNode node, String path) {
    if (node.isObject()) {
      return true;
    }
    errors.add(FieldError.invalid(path, node, "must be an object"));
    return false;
  }

  private Optional<JsonNode> value(JsonNode object, String field) {
    JsonNode node = object.get(field);
    return node == null || node.isNull() ? Optional.empty() : Optional.of(node);
  }

  private Optional<JsonNode> object(JsonNode parent, String path, String field,
      List<String> known) {
    Optional<JsonNode> node = value(parent, field);
    if (node.isEmpty() || !isObject(node.get(), child(path, field))) {
      return Optional.empty();
    }
    checkFields(node.get(), child(path, field), known);
    return node;
  }

  private List<JsonNode> list(JsonNode parent, String path, String field) {
    Optional<JsonNode> node = value(parent, field);
    if (node.isEmpty()) {
      return List.of();
    }
    if (!node.get().isArray()) {
      errors.add(FieldError.invalid(child(path, field), node.get(), "must be a list"));
      return List.of();
    }
    List<JsonNode> items = new ArrayList<>();
    node.get().forEach(items::add);
    return items;
  }

  private Optional<String> string(JsonNode parent, String path, String field) {
    Optional<JsonNode> node = value(parent, field);
    if (node.isPresent() && !node.get().isString()) {
      errors.add(FieldError.invalid(child(path, field), node.get(), "must be a string"));
      return Optional.empty();
    }
    return node.map(JsonNode::stringValue);
  }

  private Optional<Boolean> bool(JsonNode parent, String path, String field) {
    Optional<JsonNode> node = value(parent, field);
    if (node.isPresent() && !node.get().isBoolean()) {
      errors.add(FieldError.invalid(child(path, field), node.get(), "must be true or false"));
      return Optional.empty();
    }
    return node.map(JsonNode::booleanValue);
  }

  private OptionalInt int32(JsonNode parent, String path, String field) {
    Optional<JsonNode> node = value(parent, field);
    if (node.isEmpty()) {
      return OptionalInt.empty();
    }
    if (!node.get().isIntegralNumber() || !node.get().canConvertToInt()) {
      errors.add(FieldError.invalid(child(path, field), node.get(), "must be a 32-bit integer"));
      return OptionalInt.empty();
    }
    return OptionalInt.of(node.get().intValue());
  }

  private OptionalLong int64(JsonNode parent, String path, String field) {
    Optional<JsonNode> node = value(parent, field);
    if (node.isEmpty()) {
      return OptionalLong.empty();
    }
    if (!node.get().isIntegralNumber() || !node.get().canConvertToLong()) {
      errors.add(FieldError.invalid(child(path, field), node.get(), "must be a 64-bit integer"));
      return OptionalLong.empty();
    }
    return OptionalLong.of(node.get().longValue());
  }

  private OptionalDouble number(JsonNode parent, String path, String field) {
    Optional<JsonNode> node = value(parent, field);
    if (node.isEmpty()) {
      return OptionalDouble.empty();
    }
    if (!node.get().isNumber()) {
      errors.add(FieldError.invalid(child(path, field), node.get(), "must be a number"));
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(node.get().doubleValue());
  }

  private Optional<Duration> duration(JsonNode parent, String path, String field) {
    Optional<JsonNode> node = value(parent, field);
    if (node.isEmpty()) {
      return Optional.empty();
    }
    Optional<Duration> parsed = node.get().isString()
        ? GoDuration.parse(node.get().stringValue())
        : Optional.empty();
    if (parsed.isEmpty()) {
      errors.add(FieldError.invalid(child(path, field), node.get(),
          "must be a duration string such as \"15s\", \"1m30s\" or \"500ms\""));
    }
    return parsed;
  }

  private static List<String> pluginsFields() {
    List<String> fields = new ArrayList<>();
    for (ExtensionPoint point : ExtensionPoint.values()) {
      fields.add(point.configName());
    }
    fields.add("multiPoint");
    return List.copyOf(fields);
  }
}
