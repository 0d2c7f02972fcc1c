package io.berth.plugins.nodeaffinity;

import io.berth.framework.NodeSelectorMatcher;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Map;
import java.util.Optional;

/**
 * NodeAffinity's plugin arguments, as upstream's {@code NodeAffinityArgs}: an optional
 * {@code addedAffinity} (a {@code v1.NodeAffinity}) that the scheduler enforces on every pod of
 * the profile in addition to the pod's own. Parsed and validated once by the plugin factory;
 * immutable and thread-safe afterwards.
 */
final class NodeAffinityArgs {
  static final String ADDED_AFFINITY = "addedAffinity";
  private static final String REQUIRED = ADDED_AFFINITY
      + ".requiredDuringSchedulingIgnoredDuringExecution";
  private static final String PREFERRED = ADDED_AFFINITY
      + ".preferredDuringSchedulingIgnoredDuringExecution";

  private final NodeSelectorMatcher addedNodeSelector; // null: no enforced required terms
  private final PreferredTerms addedPreferred; // null: no enforced preferred terms

  private NodeAffinityArgs(NodeSelectorMatcher addedNodeSelector, PreferredTerms addedPreferred) {
    this.addedNodeSelector = addedNodeSelector;
    this.addedPreferred = addedPreferred;
  }

  /**
   * Parses the pluginConfig args (a JSON-like map; empty when none). {@code apiVersion} and
   * {@code kind} are tolerated; any other key but {@code addedAffinity} is an error. Throws
   * {@link IllegalArgumentException} naming the field on invalid input, as upstream's
   * {@code ValidateNodeAffinityArgs}.
   */
  static NodeAffinityArgs parse(Map<String, Object> args) {
    for (String key : args.keySet()) {
      if (!ADDED_AFFINITY.equals(key) && !"apiVersion".equals(key) && !"kind".equals(key)) {
        throw new IllegalArgumentException("unknown field \"" + key + "\"");
      }
    }
    Object raw = args.get(ADDED_AFFINITY);
    if (raw == null) {
      return new NodeAffinityArgs(null, null);
    }
    if (!(raw instanceof Map)) {
      throw new IllegalArgumentException(ADDED_AFFINITY + ": Invalid value: " + raw
          + ": must be a NodeAffinity object");
    }
    io.fabric8.kubernetes.api.model.NodeAffinity affinity;
    try {
      affinity = Serialization.unmarshal(Serialization.asJson(raw),
          io.fabric8.kubernetes.api.model.NodeAffinity.class);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(ADDED_AFFINITY + ": Invalid value: " + e.getMessage(), e);
    }
    NodeSelectorMatcher required = null;
    NodeSelector ns = affinity.getRequiredDuringSchedulingIgnoredDuringExecution();
    if (ns != null) {
      LabelSyntax.validateSelector(ns, REQUIRED);
      required = NodeSelectorMatcher.compile(ns, REQUIRED);
    }
    PreferredTerms preferred = PreferredTerms.compile(
        affinity.getPreferredDuringSchedulingIgnoredDuringExecution(), PREFERRED).orElse(null);
    return new NodeAffinityArgs(required, preferred);
  }

  /** The enforced required node selector, if configured. */
  Optional<NodeSelectorMatcher> addedNodeSelector() {
    return Optional.ofNullable(addedNodeSelector);
  }

  /** The enforced preferred terms, if configured. */
  Optional<PreferredTerms> addedPreferred() {
    return Optional.ofNullable(addedPreferred);
  }
}
