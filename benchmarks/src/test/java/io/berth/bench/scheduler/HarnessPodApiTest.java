package io.berth.bench.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.framework.PodStatusPatch;
import io.berth.informer.ResourceEventHandler;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class HarnessPodApiTest {
  /** Records the events as "update name rv" / "delete name". */
  private static final class Recorder implements ResourceEventHandler<Pod> {
    final List<String> events = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void onUpdate(Pod oldObj, Pod newObj) {
      events.add("update " + newObj.getMetadata().getName() + " "
          + newObj.getMetadata().getResourceVersion());
    }

    @Override
    public void onDelete(Pod obj, boolean finalStateUnknown) {
      events.add("delete " + obj.getMetadata().getName());
    }
  }

  @Test
  void patchesMergeConditionsAndNominationsAndDeletesRemoveThePod() throws Exception {
    Map<String, Pod> current = new ConcurrentHashMap<>();
    Pod p = PerfObjects.pod("perf", "p", b -> b);
    current.put("perf/p", p);
    Recorder recorder = new Recorder();
    try (HarnessPodApi api = new HarnessPodApi(current, () -> recorder)) {
      assertThat(api.patchStatus(p, PodStatusPatch.condition(new PodConditionBuilder()
          .withType("DisruptionTarget").withStatus("True").build()))).isTrue();
      assertThat(api.patchStatus(p, PodStatusPatch.nominatedNodeName("n1"))).isTrue();
      assertThat(api.patchStatus(p, PodStatusPatch.condition(new PodConditionBuilder()
          .withType("DisruptionTarget").withStatus("False").build()))).isTrue();
      Pod patched = current.get("perf/p");
      assertThat(patched.getStatus().getNominatedNodeName()).isEqualTo("n1");
      assertThat(patched.getStatus().getConditions()).singleElement()
          .satisfies(c -> assertThat(c.getStatus()).isEqualTo("False"));
      assertThat(api.delete(p)).isTrue();
      assertThat(api.delete(p)).isFalse();
      assertThat(api.patchStatus(p, PodStatusPatch.nominatedNodeName(""))).isFalse();
      await().atMost(Duration.ofSeconds(5)).until(() -> recorder.events.size() == 4);
      assertThat(recorder.events.get(3)).isEqualTo("delete p");
      assertThat(api.deletions()).isEqualTo(1);
      assertThat(api.patches()).isEqualTo(3);
    }
  }

  @Test
  void concurrentWritersLoseNoChangeAndEventsOfOnePodKeepTheirOrder() throws Exception {
    Map<String, Pod> current = new ConcurrentHashMap<>();
    int pods = 8;
    int patchesPerPod = 200;
    for (int i = 0; i < pods; i++) {
      current.put("perf/p" + i, PerfObjects.pod("perf", "p" + i, b -> b));
    }
    Recorder recorder = new Recorder();
    try (HarnessPodApi api = new HarnessPodApi(current, () -> recorder)) {
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        Thread th = new Thread(() -> {
          for (int i = 0; i < patchesPerPod / 4; i++) {
            for (int n = 0; n < pods; n++) {
              api.patchStatus(current.get("perf/p" + n), PodStatusPatch.nominatedNodeName("x"));
            }
          }
        });
        threads.add(th);
        th.start();
      }
      for (Thread th : threads) {
        th.join();
      }
      await().atMost(Duration.ofSeconds(10))
          .until(() -> recorder.events.size() == pods * patchesPerPod);
      assertThat(api.patches()).isEqualTo((long) pods * patchesPerPod);
      // per pod, the watch delivers resource versions in increasing order
      for (int n = 0; n < pods; n++) {
        String prefix = "update p" + n + " ";
        long last = 0;
        for (String e : List.copyOf(recorder.events)) {
          if (e.startsWith(prefix)) {
            long rv = Long.parseLong(e.substring(prefix.length()));
            assertThat(rv).isGreaterThan(last);
            last = rv;
          }
        }
      }
    }
  }
}
