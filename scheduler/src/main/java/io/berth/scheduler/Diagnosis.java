package io.berth.scheduler;

import io.berth.framework.Code;
import io.berth.framework.NodeToStatus;
import io.berth.framework.Status;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Why a pod found no node: each rejected node's status, the plugins that rejected it (the only
 * ones whose queueing hints can bring it back), and the PreFilter/PostFilter messages. Confined to
 * the scheduling thread.
 */
public final class Diagnosis {
  private final NodeToStatus nodeToStatus = new NodeToStatus();
  private final Set<String> unschedulablePlugins = new LinkedHashSet<>();
  private final Set<String> pendingPlugins = new LinkedHashSet<>();
  private String preFilterMsg = "";
  private String postFilterMsg = "";
  // the plugin last added to unschedulablePlugins: most rejected nodes repeat it
  private String lastUnschedulable;

  public NodeToStatus nodeToStatus() {
    return nodeToStatus;
  }

  public Set<String> unschedulablePlugins() {
    return unschedulablePlugins;
  }

  public Set<String> pendingPlugins() {
    return pendingPlugins;
  }

  /** Records the plugin of a rejecting status (Pending goes to the pending set). */
  public void addPluginStatus(Status status) {
    if (status.plugin().isEmpty() || !status.isRejected()) {
      return;
    }
    if (status.code() == Code.PENDING) {
      pendingPlugins.add(status.plugin());
    } else if (!status.plugin().equals(lastUnschedulable)) {
      unschedulablePlugins.add(status.plugin());
      lastUnschedulable = status.plugin();
    }
  }

  public String preFilterMsg() {
    return preFilterMsg;
  }

  public void setPreFilterMsg(String msg) {
    this.preFilterMsg = msg;
  }

  public String postFilterMsg() {
    return postFilterMsg;
  }

  public void setPostFilterMsg(String msg) {
    this.postFilterMsg = msg;
  }
}
