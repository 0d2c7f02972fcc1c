package io.berth.plugins.volumebinding;

import io.berth.framework.NodeSelectorMatcher;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.VolumeNodeAffinity;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PersistentVolume's compiled {@code spec.nodeAffinity.required}, as upstream's
 * {@code CheckNodeAffinity}: no affinity matches every node; an affinity that does not compile
 * matches none (upstream reports the parse error as a mismatch). Immutable and thread-safe.
 */
record VolumeAffinity(Optional<NodeSelectorMatcher> required, Optional<String> error) {
  private static final Logger LOG = LoggerFactory.getLogger(VolumeAffinity.class);
  static final VolumeAffinity ANY = new VolumeAffinity(Optional.empty(), Optional.empty());

  static VolumeAffinity of(PersistentVolume pv) {
    VolumeNodeAffinity affinity = pv.getSpec() == null ? null : pv.getSpec().getNodeAffinity();
    if (affinity == null || affinity.getRequired() == null) {
      return ANY;
    }
    try {
      return new VolumeAffinity(Optional.of(NodeSelectorMatcher.compile(affinity.getRequired(),
          "spec.nodeAffinity.required")), Optional.empty());
    } catch (IllegalArgumentException e) {
      LOG.debug("persistentvolume {} has an invalid node affinity: {}",
          pv.getMetadata().getName(), e.getMessage());
      return new VolumeAffinity(Optional.empty(), Optional.of(e.getMessage()));
    }
  }

  boolean matches(Node node) {
    if (error.isPresent()) {
      return false;
    }
    return required.isEmpty() || required.get().matches(node);
  }
}
