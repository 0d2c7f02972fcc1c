package io.berth.scheduler.explain;

import io.berth.framework.NodeInfo;
import io.berth.framework.Resource;
import java.util.ArrayList;
import java.util.List;

/**
 * What a node lacks for a pod that NodeResourcesFit rejected: for each resource the rejection
 * names ("Insufficient cpu", "Too many pods"), the pod's request minus what the node has left
 * (allocatable minus requested), written as "needs 500m cpu more, 1Gi memory more", and the sum of
 * those amounts as shares of the node's allocatable (which ranks the nodes nearest to fitting).
 * Stateless.
 */
final class Shortfalls {
  private Shortfalls() {}

  /** The result: the text ("" when nothing is short) and the relative shortfall. */
  record Shortfall(String text, double share) {
  }

  static Shortfall of(Resource podRequest, NodeInfo node, List<String> reasons) {
    List<String> parts = new ArrayList<>();
    double share = 0;
    Resource alloc = node.allocatable();
    Resource used = node.requested();
    for (String reason : reasons) {
      if (reason.equals("Too many pods")) {
        long free = alloc.allowedPodNumber() - node.pods().size();
        long need = 1 - free;
        if (need > 0) {
          parts.add(need + (need == 1 ? " pod slot" : " pod slots") + " more");
          share += alloc.allowedPodNumber() == 0 ? 1 : (double) need / alloc.allowedPodNumber();
        }
        continue;
      }
      if (!reason.startsWith("Insufficient ")) {
        continue;
      }
      String name = reason.substring("Insufficient ".length());
      long need = podRequest.get(name) - (alloc.get(name) - used.get(name));
      if (need <= 0) {
        continue;
      }
      parts.add(format(name, need) + " " + name + " more");
      long a = alloc.get(name);
      share += a <= 0 ? 1 : (double) need / a;
    }
    return new Shortfall(parts.isEmpty() ? "" : "needs " + String.join(", ", parts), share);
  }

  /** An amount as Kubernetes writes quantities: cpu in m or cores, bytes in Ki/Mi/Gi. */
  static String format(String resource, long amount) {
    if (resource.equals(Resource.CPU)) {
      return amount % 1000 == 0 ? Long.toString(amount / 1000) : amount + "m";
    }
    if (resource.equals(Resource.MEMORY) || resource.equals(Resource.EPHEMERAL_STORAGE)
        || resource.startsWith("hugepages-")) {
      String[] units = {"Ki", "Mi", "Gi", "Ti"};
      long v = amount;
      String unit = "";
      for (String u : units) {
        // a smaller unit while it reads well (under five digits) and the bigger one is inexact;
        // rounding up so that "needs" never understates
        if (v < 1024 || (v % 1024 != 0 && v < 10240)) {
          break;
        }
        v = (v + 1023) / 1024;
        unit = u;
      }
      return v + unit;
    }
    return Long.toString(amount);
  }
}
