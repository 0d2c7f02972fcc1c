package io.berth.scheduler.cache;

import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The names of the cache's nodes grouped by zone (region and zone labels), listed round-robin
 * across zones so that the scheduler's node iteration, and its sampling of a fraction of the
 * nodes, spreads over zones. Zones keep the order in which they were first seen; nodes keep
 * their insertion order within a zone. As upstream's nodeTree (pkg/scheduler/backend/cache).
 *
 * <p>Not thread-safe: owned by {@link SchedulerCache} and only used under its lock.
 */
final class NodeTree {
  static final String LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone";
  static final String LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region";
  static final String LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone";
  static final String LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region";

  private static final Logger LOG = LoggerFactory.getLogger(NodeTree.class);

  // Node names per zone key, in insertion order. Guarded by the cache's lock (as every field).
  private final Map<String, List<String>> tree = new HashMap<>();
  // Every key of tree, in the order the zones were first seen.
  private final List<String> zones = new ArrayList<>();
  private int numNodes;

  /**
   * The zone key of a node: region and zone from the topology labels, falling back to the
   * deprecated failure-domain labels; "" when the node has neither. The NUL separator cannot occur
   * in a label value, so distinct (region, zone) pairs never collide.
   */
  static String zoneKey(Node node) {
    Map<String, String> labels = node.getMetadata() == null ? null : node.getMetadata().getLabels();
    if (labels == null) {
      return "";
    }
    String zone = labels.containsKey(LABEL_TOPOLOGY_ZONE)
        ? labels.get(LABEL_TOPOLOGY_ZONE) : labels.getOrDefault(LABEL_FAILURE_DOMAIN_BETA_ZONE, "");
    String region = labels.containsKey(LABEL_TOPOLOGY_REGION)
        ? labels.get(LABEL_TOPOLOGY_REGION)
        : labels.getOrDefault(LABEL_FAILURE_DOMAIN_BETA_REGION, "");
    zone = zone == null ? "" : zone;
    region = region == null ? "" : region;
    if (region.isEmpty() && zone.isEmpty()) {
      return "";
    }
    return region + ":\u0000:" + zone;
  }

  /** Adds the node to its zone; a node already in that zone is left alone (and logged). */
  void addNode(Node node) {
    String zone = zoneKey(node);
    String name = node.getMetadata().getName();
    List<String> names = tree.get(zone);
    if (names == null) {
      names = new ArrayList<>();
      tree.put(zone, names);
      zones.add(zone);
    } else if (names.contains(name)) {
      LOG.info("Did not add node {} to the NodeTree because it already exists", name);
      return;
    }
    names.add(name);
    numNodes++;
  }

  /** Removes the node from the zone its labels name; returns false when it was not there. */
  boolean removeNode(Node node) {
    String zone = zoneKey(node);
    String name = node.getMetadata().getName();
    List<String> names = tree.get(zone);
    if (names == null || !names.remove(name)) {
      LOG.error("Did not remove node {} from the NodeTree because it was not found in zone {}",
          name, printable(zone));
      return false;
    }
    if (names.isEmpty()) {
      tree.remove(zone);
      zones.remove(zone);
    }
    numNodes--;
    return true;
  }

  /** Moves the node to its new zone when the zone labels changed; otherwise does nothing. */
  void updateNode(Node oldNode, Node newNode) {
    String oldZone = oldNode == null ? "" : zoneKey(oldNode);
    if (oldZone.equals(zoneKey(newNode))) {
      return;
    }
    if (oldNode != null) {
      removeNode(oldNode); // like upstream, whether the old node was there does not matter
    }
    addNode(newNode);
  }

  int numNodes() {
    return numNodes;
  }

  /**
   * All node names, round-robin across zones: the first node of every zone, then the second of
   * every zone that has one, and so on. Zones a (a1, a2, a3) and b (b1, b2) give a1 b1 a2 b2 a3.
   */
  List<String> list() {
    List<String> out = new ArrayList<>(numNodes);
    for (int index = 0; out.size() < numNodes; index++) {
      boolean any = false;
      for (String zone : zones) {
        List<String> names = tree.get(zone);
        if (index < names.size()) {
          out.add(names.get(index));
          any = true;
        }
      }
      if (!any) {
        // cannot happen while numNodes counts the names in tree; never loop forever if it does
        LOG.error("NodeTree: all zones exhausted after {} of {} nodes", out.size(), numNodes);
        break;
      }
    }
    return out;
  }

  private static String printable(String zone) {
    return zone.replace("\u0000", "");
  }
}
