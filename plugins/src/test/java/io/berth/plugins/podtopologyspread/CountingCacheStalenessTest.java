package io.berth.plugins.podtopologyspread;

import static io.berth.plugins.podtopologyspread.PodTopologySpreadConcurrencyTest.cluster;
import static io.berth.plugins.podtopologyspread.PodTopologySpreadConcurrencyTest.incoming;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.listPlugin;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The plugin reuses per-node counts across cycles by NodeInfo generation: after nodes change
 * (new copies with pods added or removed), a long-lived plugin must decide exactly as a fresh
 * one that never counted before.
 */
class CountingCacheStalenessTest {
  private static Map<String, Status> filterAll(PodTopologySpread plugin, Pod pod,
      List<NodeInfo> infos) {
    CycleState state = new CycleState();
    assertThat(plugin.preFilter(state, pod, infos).status().isSuccess()).isTrue();
    Map<String, Status> out = new LinkedHashMap<>();
    for (NodeInfo n : infos) {
      out.put(n.nodeName(), plugin.filter(state, pod, n));
    }
    return out;
  }

  @Test
  void aLongLivedPluginAgreesWithAFreshOneAfterEveryChange() {
    List<NodeInfo> infos = cluster();
    Pod incoming = incoming();
    PodTopologySpread longLived = listPlugin(new TestHandle().withNodes(infos));
    filterAll(longLived, incoming, infos);
    Random random = new Random(42);
    for (int round = 0; round < 30; round++) {
      List<NodeInfo> next = new ArrayList<>(infos);
      for (int k = 0; k < 3; k++) {
        int i = random.nextInt(next.size());
        NodeInfo copy = next.get(i).snapshot();
        if (random.nextBoolean() || copy.pods().isEmpty()) {
          copy.addPod(PodInfo.of(pod("r" + round + "-" + k).node(copy.nodeName()).label("foo", "")
              .obj()));
        } else {
          copy.removePod(copy.pods().get(random.nextInt(copy.pods().size())).pod());
        }
        next.set(i, copy);
      }
      infos = next;
      PodTopologySpread fresh = listPlugin(new TestHandle().withNodes(infos));
      assertThat(filterAll(longLived, incoming, infos)).as("round %d", round)
          .isEqualTo(filterAll(fresh, incoming, infos));
    }
  }
}
