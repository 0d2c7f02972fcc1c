package io.berth.scheduler.cache;

import io.berth.framework.ImageStateSummary;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.Node;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The images present across the cluster: for every image name (each name and tag a node
 * reports), its size and the set of nodes that have it. The cache derives each node's
 * {@link ImageStateSummary} map from it, with {@code numNodes} counted at that moment. The size is
 * the one reported by the first node that had the image, as upstream's imageStates.
 *
 * <p>Not thread-safe: owned by {@link SchedulerCache} and only used under its lock.
 */
final class ImageStates {
  private static final class ImageState {
    final long size;
    final Set<String> nodes = new HashSet<>();

    ImageState(long size) {
      this.size = size;
    }
  }

  // Guarded by the cache's lock. An entry with no node left is removed, so size() counts the
  // distinct images on the cluster's nodes.
  private final Map<String, ImageState> byName = new HashMap<>();

  /** Records the node's images; returns the node's summaries. */
  Map<String, ImageStateSummary> addNode(Node node) {
    String nodeName = node.getMetadata().getName();
    for (ContainerImage image : images(node)) {
      long size = image.getSizeBytes() == null ? 0 : image.getSizeBytes();
      for (String name : names(image)) {
        byName.computeIfAbsent(name, n -> new ImageState(size)).nodes.add(nodeName);
      }
    }
    return summaries(node);
  }

  /** Forgets the node's images; an image on no node any more is dropped. */
  void removeNode(Node node) {
    String nodeName = node.getMetadata().getName();
    for (ContainerImage image : images(node)) {
      for (String name : names(image)) {
        ImageState state = byName.get(name);
        if (state != null && state.nodes.remove(nodeName) && state.nodes.isEmpty()) {
          byName.remove(name);
        }
      }
    }
  }

  /** The summaries of the images the node reports, with the current node counts. */
  Map<String, ImageStateSummary> summaries(Node node) {
    Map<String, ImageStateSummary> out = new HashMap<>();
    for (ContainerImage image : images(node)) {
      for (String name : names(image)) {
        ImageState state = byName.get(name);
        if (state != null) {
          out.putIfAbsent(name, new ImageStateSummary(state.size, state.nodes.size()));
        }
      }
    }
    return out;
  }

  /** Whether every summary still carries the image's current node count. */
  boolean upToDate(Map<String, ImageStateSummary> summaries) {
    for (Map.Entry<String, ImageStateSummary> e : summaries.entrySet()) {
      ImageState state = byName.get(e.getKey());
      int numNodes = state == null ? 0 : state.nodes.size();
      if (numNodes != e.getValue().numNodes()) {
        return false;
      }
    }
    return true;
  }

  /** Number of distinct image names on the cluster's nodes. */
  int size() {
    return byName.size();
  }

  private static List<ContainerImage> images(Node node) {
    if (node.getStatus() == null || node.getStatus().getImages() == null) {
      return List.of();
    }
    return node.getStatus().getImages();
  }

  private static List<String> names(ContainerImage image) {
    return image.getNames() == null ? List.of() : image.getNames();
  }
}
