package io.berth.embedded.defaults;

import static io.berth.embedded.defaults.JsonFields.defaultInt;
import static io.berth.embedded.defaults.JsonFields.defaultPointer;
import static io.berth.embedded.defaults.JsonFields.defaultString;
import static io.berth.embedded.defaults.JsonFields.existingObject;
import static io.berth.embedded.defaults.JsonFields.objects;

import java.util.List;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The defaults of a v1 PodSpec wherever it appears (a Pod, and every pod template), from
 * {@code pkg/apis/core/v1/defaults.go} and the generated defaulters that walk into containers, probes
 * and volumes: {@code SetDefaults_PodSpec}, {@code _Container}, {@code _EphemeralContainer},
 * {@code _Probe}, {@code _HTTPGetAction}, {@code _ObjectFieldSelector}, {@code _Volume} and the volume
 * sources' {@code defaultMode}s, and the declarative {@code protocol: TCP} of container ports.
 * Pod-only defaults are in {@link PodDefaults}. Mutates the given tree; stateless, thread-safe.
 */
final class PodSpecDefaults {

  static final String DEFAULT_SCHEDULER_NAME = "default-scheduler";
  static final int DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
  static final String TERMINATION_MESSAGE_PATH = "/dev/termination-log";
  /** 0644, the {@code defaultMode} of secret, configMap, downwardAPI and projected volumes. */
  static final int DEFAULT_VOLUME_MODE = 0644;
  static final int DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;

  private static final List<String> CONTAINER_LISTS = List.of("initContainers", "containers", "ephemeralContainers");
  private static final List<String> PROBES = List.of("livenessProbe", "readinessProbe", "startupProbe");

  // the image reference grammar of github.com/distribution/reference (regexp.go)
  private static final String PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
  private static final String DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
  private static final String DOMAIN = "(?:" + DOMAIN_COMPONENT + "(?:\\." + DOMAIN_COMPONENT + ")*"
      + "|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?";
  private static final Pattern IMAGE_REFERENCE = Pattern.compile(
      "(?:" + DOMAIN + "/)?" + PATH_COMPONENT + "(?:/" + PATH_COMPONENT + ")*"
          + "(?::(?<tag>[\\w][\\w.-]{0,127}))?"
          + "(?:@(?<digest>[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?");

  // image -> its default pull policy: pods repeat a few images and the reference pattern is costly per container;
  // bounded (new images beyond it are parsed each time); thread-safe
  private static final int PULL_POLICY_CAPACITY = 4096;
  private static final java.util.concurrent.ConcurrentHashMap<String, String> PULL_POLICIES =
      new java.util.concurrent.ConcurrentHashMap<>();

  private PodSpecDefaults() {}

  /** {@code SetDefaults_PodSpec} and everything nested in it. */
  static void applyToPodSpec(ObjectNode spec) {
    defaultString(spec, "dnsPolicy", "ClusterFirst");
    defaultString(spec, "restartPolicy", "Always");
    if (JsonFields.isNil(spec, "securityContext")) {
      spec.putObject("securityContext");
    }
    defaultPointer(spec, "terminationGracePeriodSeconds", DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS);
    defaultString(spec, "schedulerName", DEFAULT_SCHEDULER_NAME);
    for (String list : CONTAINER_LISTS) {
      for (ObjectNode container : objects(spec, list)) {
        applyToContainer(container);
      }
    }
    for (ObjectNode volume : objects(spec, "volumes")) {
      applyToVolume(volume);
    }
  }

  /** {@code SetDefaults_Container} (also used for ephemeral containers) and its nested defaults. */
  static void applyToContainer(ObjectNode container) {
    if (JsonFields.isEmptyString(container, "imagePullPolicy")) {
      container.put("imagePullPolicy", pullPolicyFor(JsonFields.string(container, "image")));
    }
    defaultString(container, "terminationMessagePath", TERMINATION_MESSAGE_PATH);
    defaultString(container, "terminationMessagePolicy", "File");
    for (ObjectNode port : objects(container, "ports")) {
      defaultString(port, "protocol", "TCP");
    }
    for (String name : PROBES) {
      ObjectNode probe = existingObject(container, name);
      if (probe != null) {
        applyToProbe(probe);
      }
    }
    ObjectNode lifecycle = existingObject(container, "lifecycle");
    if (lifecycle != null) {
      for (String hook : List.of("postStart", "preStop")) {
        applyToHttpGet(existingObject(existingObject(lifecycle, hook), "httpGet"));
      }
    }
    for (ObjectNode env : objects(container, "env")) {
      applyToFieldRef(existingObject(existingObject(env, "valueFrom"), "fieldRef"));
    }
  }

  private static void applyToProbe(ObjectNode probe) {
    defaultInt(probe, "timeoutSeconds", 1);
    defaultInt(probe, "periodSeconds", 10);
    defaultInt(probe, "successThreshold", 1);
    defaultInt(probe, "failureThreshold", 3);
    applyToHttpGet(existingObject(probe, "httpGet"));
  }

  private static void applyToHttpGet(ObjectNode httpGet) {
    if (httpGet != null) {
      defaultString(httpGet, "path", "/");
      defaultString(httpGet, "scheme", "HTTP");
    }
  }

  private static void applyToFieldRef(ObjectNode fieldRef) {
    if (fieldRef != null) {
      defaultString(fieldRef, "apiVersion", "v1");
    }
  }

  /** {@code SetDefaults_Volume} (no source means an emptyDir) and the volume sources' defaults. */
  static void applyToVolume(ObjectNode volume) {
    boolean hasSource = volume.properties().stream()
        .anyMatch(e -> !e.getKey().equals("name") && !e.getValue().isNull());
    if (!hasSource) {
      volume.putObject("emptyDir");
      return;
    }
    for (String source : List.of("secret", "configMap", "downwardAPI", "projected")) {
      ObjectNode object = existingObject(volume, source);
      if (object != null) {
        defaultPointer(object, "defaultMode", DEFAULT_VOLUME_MODE);
      }
    }
    ObjectNode hostPath = existingObject(volume, "hostPath");
    if (hostPath != null) {
      defaultPointer(hostPath, "type", "");
    }
    applyToDownwardApiItems(existingObject(volume, "downwardAPI"));
    ObjectNode projected = existingObject(volume, "projected");
    for (ObjectNode projection : objects(projected, "sources")) {
      applyToDownwardApiItems(existingObject(projection, "downwardAPI"));
      ObjectNode token = existingObject(projection, "serviceAccountToken");
      if (token != null) {
        defaultPointer(token, "expirationSeconds", DEFAULT_TOKEN_EXPIRATION_SECONDS);
      }
    }
    ObjectNode claimTemplate = existingObject(existingObject(volume, "ephemeral"), "volumeClaimTemplate");
    ObjectNode claimSpec = existingObject(claimTemplate, "spec");
    if (claimSpec != null) {
      defaultPointer(claimSpec, "volumeMode", "Filesystem");
    }
  }

  private static void applyToDownwardApiItems(JsonNode downwardApi) {
    for (ObjectNode item : objects(downwardApi, "items")) {
      applyToFieldRef(existingObject(item, "fieldRef"));
    }
  }

  /**
   * The default {@code imagePullPolicy} for an image reference, as {@code SetDefaults_Container}
   * derives it with {@code parsers.ParseImageName}: {@code Always} when the tag is {@code latest} or
   * there is neither tag nor digest; {@code IfNotPresent} otherwise, including for references that do
   * not parse (upstream ignores the parse error and finds no tag).
   */
  static String pullPolicyFor(String image) {
    String known = PULL_POLICIES.get(image);
    if (known != null) {
      return known;
    }
    String policy = parsePullPolicy(image);
    if (PULL_POLICIES.size() < PULL_POLICY_CAPACITY) {
      PULL_POLICIES.putIfAbsent(image, policy);
    }
    return policy;
  }

  private static String parsePullPolicy(String image) {
    var matcher = IMAGE_REFERENCE.matcher(image);
    if (!matcher.matches()) {
      return "IfNotPresent";
    }
    String tag = matcher.group("tag");
    String digest = matcher.group("digest");
    if (tag == null && digest == null) {
      tag = "latest";
    }
    return "latest".equals(tag) ? "Always" : "IfNotPresent";
  }
}
