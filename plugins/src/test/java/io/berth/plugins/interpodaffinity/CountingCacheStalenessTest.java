package io.berth.plugins.interpodaffinity;

import static io.berth.plugins.interpodaffinity.Fixtures.NAMESPACES;
import static io.berth.plugins.interpodaffinity.Fixtures.in;
import static io.berth.plugins.interpodaffinity.Fixtures.pod;
import static io.berth.plugins.interpodaffinity.Fixtures.term;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The plugin reuses per-node contributions across cycles by NodeInfo generation: after nodes
 * change (new copies with pods added or removed, some with anti-affinity), a long-lived plugin
 * must decide and score exactly as a fresh one.
 */
class CountingCacheStalenessTest {
  private static Map<String, String> decide(InterPodAffinity plugin, Pod pod, List<NodeInfo> infos) {
    CycleState state = new CycleState();
    Map<String, String> out = new LinkedHashMap<>();
    Status pre = plugin.preFilter(state, pod, infos).status();
    out.put("preFilter", pre.toString());
    if (pre.isSuccess()) {
      for (NodeInfo n : infos) {
        out.put(n.nodeName(), plugin.filter(state, pod, n).toString());
      }
    }
    Status preScore = plugin.preScore(state, pod, infos);
    out.put("preScore", preScore.toString());
    if (preScore.isSuccess()) {
      for (NodeInfo n : infos) {
        out.put("score " + n.nodeName(), String.valueOf(plugin.score(state, pod, n)));
      }
    }
    return out;
  }

  private static InterPodAffinity plugin(TestHandle handle) {
    return new InterPodAffinity(InterPodAffinityArgs.DEFAULTS, handle,
        handle.lister(Namespace.class), handle.parallelizer());
  }

  @Test
  void aLongLivedPluginAgreesWithAFreshOneAfterEveryChange() {
    List<NodeInfo> infos = InterPodAffinityConcurrencyTest.cluster(7);
    Pod incoming = InterPodAffinityConcurrencyTest.incoming();
    TestHandle longLivedHandle = new TestHandle().withNodes(infos).withObjects(NAMESPACES);
    InterPodAffinity longLived = plugin(longLivedHandle);
    decide(longLived, incoming, infos);
    Random random = new Random(11);
    String[] apps = {"db", "queue", "cache", "web"};
    for (int round = 0; round < 30; round++) {
      List<NodeInfo> next = new ArrayList<>(infos);
      for (int k = 0; k < 3; k++) {
        int i = random.nextInt(next.size());
        NodeInfo copy = next.get(i).snapshot();
        if (random.nextBoolean() || copy.pods().isEmpty()) {
          Fixtures.PodMaker maker = pod().node(copy.nodeName())
              .label("app", apps[random.nextInt(apps.length)]);
          if (random.nextBoolean()) {
            maker.antiAffinity(term("hostname", in("app", "web")));
          }
          copy.addPod(PodInfo.of(maker.obj()));
        } else {
          copy.removePod(copy.pods().get(random.nextInt(copy.pods().size())).pod());
        }
        next.set(i, copy);
      }
      infos = next;
      longLivedHandle.withNodes(infos);
      InterPodAffinity fresh = plugin(new TestHandle().withNodes(infos).withObjects(NAMESPACES));
      assertThat(decide(longLived, incoming, infos)).as("round %d", round)
          .isEqualTo(decide(fresh, incoming, infos));
    }
  }
}
