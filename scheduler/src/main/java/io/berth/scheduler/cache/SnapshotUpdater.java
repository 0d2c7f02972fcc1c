package io.berth.scheduler.cache;

import io.berth.framework.NodeInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The incremental snapshot algorithm of upstream's UpdateSnapshot. The cache's NodeInfos are
 * linked most recently changed first, with generations strictly decreasing from the head, so the
 * ones changed since the snapshot was last updated are exactly the prefix whose generation is above
 * the snapshot's: only those are copied. The node list keeps its order (NodeTree's zone-interleaved
 * order as of the last rebuild) and is rebuilt only when nodes came or went; a node joins or leaves
 * the affinity lists as its copy is put (appended, so their order is not the tree's), and the
 * used-PVC set is rebuilt only when a node's PVCs changed. A
 * node deleted while pods remain keeps its NodeInfo in the cache but leaves the tree and the
 * snapshot.
 *
 * <p>Stateless; {@link #update} runs under the cache's lock on the scheduling thread.
 */
final class SnapshotUpdater {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotUpdater.class);

  private SnapshotUpdater() {}

  static void update(CachedNodeInfos nodes, NodeTree nodeTree, Snapshot snapshot) {
    boolean updateAllLists = false;
    boolean updateDerivedLists = false;
    boolean changed = false;
    for (NodeInfo info : nodes.changedSince(snapshot.generation())) {
      if (info.node().isEmpty()) {
        continue; // deleted node still holding pods: not schedulable, not in snapshots
      }
      changed = true;
      NodeInfo copy = info.snapshot();
      NodeInfo existing = snapshot.put(copy);
      if (existing == null) {
        updateAllLists = true;
        continue;
      }
      // the affinity lists were updated by put(); only the used-PVC set needs a rebuild
      updateDerivedLists = updateDerivedLists
          || !existing.pvcRefCounts().keySet().equals(copy.pvcRefCounts().keySet());
    }
    if (nodes.size() > 0) {
      snapshot.setGeneration(nodes.headGeneration());
    }
    // deleted nodes leave the tree (though their NodeInfo may stay while pods remain)
    if (snapshot.nodeInfoMapSize() > nodeTree.numNodes()) {
      snapshot.nodeNames().removeIf(name -> {
        NodeInfo info = nodes.get(name);
        return info == null || info.node().isEmpty();
      });
      updateAllLists = true;
    }
    if (changed || updateAllLists) {
      snapshot.bumpVersion();
    }
    if (updateAllLists) {
      snapshot.rebuildLists(nodeTree.list());
    } else if (updateDerivedLists) {
      snapshot.rebuildDerivedLists();
    }
    if (snapshot.numNodes() != nodeTree.numNodes()) {
      String message = "snapshot state is not consistent, length of NodeInfoList="
          + snapshot.numNodes() + " not equal to length of nodes in tree=" + nodeTree.numNodes()
          + ", length of NodeInfoMap=" + snapshot.nodeInfoMapSize()
          + ", length of nodes in cache=" + nodes.size() + ", trying to recover";
      LOG.error(message);
      snapshot.rebuildLists(nodeTree.list());
      throw new IllegalStateException(message);
    }
  }
}
