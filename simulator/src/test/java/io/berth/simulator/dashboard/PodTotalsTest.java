package io.berth.simulator.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class PodTotalsTest {

  private static Pod pod(String ns, String name, String node, String cpu, String phase, String group) {
    PodBuilder b = new PodBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
        .withNewSpec().withNodeName(node).addNewContainer().withName("c").withImage("i")
        .withNewResources().withRequests(Map.of("cpu", new Quantity(cpu), "memory", new Quantity("1Mi")))
        .endResources().endContainer().endSpec().withNewStatus().withPhase(phase).endStatus();
    if (group != null) {
      b.editMetadata().withLabels(Map.of(DashboardData.POD_GROUP_LABEL, group)).endMetadata();
    }
    return b.build();
  }

  @Test
  void eachEventReplacesThePodsContribution() {
    PodTotals t = new PodTotals();
    Pod pending = pod("b", "p", null, "500m", "Pending", "g");
    t.onAdd(pending, true);
    t.onAdd(pod("a", "q", null, "1", "Pending", null), true);
    t.onAdd(pod("a", "on", "n1", "250m", "Running", null), true);
    PodTotals.View v = t.view(10);
    assertThat(v.pods()).isEqualTo(3);
    assertThat(v.pendingCount()).isEqualTo(2);
    assertThat(v.pending()).extracting(k -> k[0] + "/" + k[1]).containsExactly("a/q", "b/p");
    assertThat(v.nodes()).containsOnlyKeys("n1");
    assertThat(v.nodes().get("n1")).isEqualTo(new PodTotals.NodeTotal(1, 250, 1 << 20));
    assertThat(v.groups().get("b/g")).isEqualTo(new PodTotals.GroupTotal(1, 0, 0));

    Pod bound = pod("b", "p", "n1", "500m", "Running", "g");
    t.onUpdate(pending, bound);
    v = t.view(1);
    assertThat(v.pendingCount()).isEqualTo(1);
    assertThat(v.pending()).extracting(k -> k[1]).containsExactly("q");
    assertThat(v.nodes().get("n1")).isEqualTo(new PodTotals.NodeTotal(2, 750, 2 << 20));
    assertThat(v.running()).isEqualTo(2);
    assertThat(v.boundPods()).isEqualTo(2);
    assertThat(v.groups().get("b/g")).isEqualTo(new PodTotals.GroupTotal(1, 1, 1));

    Pod done = pod("b", "p", "n1", "500m", "Succeeded", "g");
    t.onUpdate(bound, done);
    v = t.view(10);
    assertThat(v.nodes().get("n1")).isEqualTo(new PodTotals.NodeTotal(1, 250, 1 << 20));
    assertThat(v.groups()).doesNotContainKey("b/g");
    assertThat(v.pods()).isEqualTo(3);

    t.onDelete(done, false);
    t.onDelete(pod("a", "on", "n1", "250m", "Running", null), true);
    v = t.view(10);
    assertThat(v.nodes()).isEmpty();
    assertThat(v.pods()).isEqualTo(1);
    assertThat(v.running()).isZero();
    assertThat(v.pendingCount()).isEqualTo(1);
  }

  @Test
  void readersSeeConsistentTotalsWhileTheHandlerWrites() throws Exception {
    PodTotals t = new PodTotals();
    int pods = 600;
    AtomicBoolean writing = new AtomicBoolean(true);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch start = new CountDownLatch(1);
    try {
      Future<?> writer = pool.submit(() -> {
        start.await();
        for (int i = 0; i < pods; i++) {
          Pod p = pod("ns", "p" + i, null, "100m", "Pending", "g");
          t.onAdd(p, false);
          Pod b = pod("ns", "p" + i, "n" + (i % 7), "100m", "Running", "g");
          t.onUpdate(p, b);
          if (i % 3 == 0) {
            t.onDelete(b, false);
          }
        }
        writing.set(false);
        return null;
      });
      List<Future<?>> readers = new ArrayList<>();
      for (int r = 0; r < 3; r++) {
        readers.add(pool.submit(() -> {
          start.await();
          while (writing.get()) {
            PodTotals.View v = t.view(5);
            int onNodes = v.nodes().values().stream().mapToInt(PodTotals.NodeTotal::pods).sum();
            // one event is applied whole or not at all: the totals agree with each other
            assertThat(onNodes).isEqualTo(v.boundPods());
            assertThat(v.boundPods() + v.pendingCount()).isEqualTo(v.pods());
            assertThat(v.nodes().values()).allSatisfy(n -> assertThat(n.cpuMillis()).isEqualTo(100L * n.pods()));
            Thread.yield();
          }
          return null;
        }));
      }
      start.countDown();
      writer.get(60, TimeUnit.SECONDS);
      for (Future<?> f : readers) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    PodTotals.View v = t.view(0);
    int kept = pods - (pods + 2) / 3;
    assertThat(v.pods()).isEqualTo(kept);
    assertThat(v.boundPods()).isEqualTo(kept);
    assertThat(v.running()).isEqualTo(kept);
    assertThat(v.groups().get("ns/g")).isEqualTo(new PodTotals.GroupTotal(kept, kept, kept));
  }
}
