package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.NominatingInfo;
import io.berth.framework.PodInfo;
import io.berth.framework.QueuedPodInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class NominatorTest {
  private final QueueFixture f = new QueueFixture();
  private SchedulingQueue queue;

  @BeforeEach
  void setUp() {
    queue = f.build();
  }

  @Test
  void podsAreListedByTheirNominatedNode() {
    queue.addNominatedPod(PodInfo.of(TestPods.named("a")), NominatingInfo.override("n1"));
    queue.addNominatedPod(PodInfo.of(TestPods.named("b")), NominatingInfo.override("n1"));
    queue.addNominatedPod(PodInfo.of(TestPods.named("c")), NominatingInfo.override("n2"));

    assertThat(names(queue.nominatedPodsForNode("n1"))).containsExactlyInAnyOrder("a", "b");
    assertThat(names(queue.nominatedPodsForNode("n2"))).containsExactly("c");
    assertThat(queue.nominatedPodsForNode("n3")).isEmpty();
  }

  @Test
  void renominationMovesThePodAndOverrideWithAnEmptyNameClearsIt() {
    PodInfo a = PodInfo.of(TestPods.named("a"));
    queue.addNominatedPod(a, NominatingInfo.override("n1"));
    queue.addNominatedPod(a, NominatingInfo.override("n2"));
    assertThat(queue.nominatedPodsForNode("n1")).isEmpty();
    assertThat(names(queue.nominatedPodsForNode("n2"))).containsExactly("a");

    queue.addNominatedPod(a, NominatingInfo.override(""));

    assertThat(queue.nominatedPodsForNode("n2")).isEmpty();
    assertThat(queue.nominatedNodeName("uid-a")).isEmpty();
  }

  @Test
  void noopUsesTheStatusNominatedNodeName() {
    queue.addNominatedPod(PodInfo.of(TestPods.nominated("a", "n1")), NominatingInfo.NOOP);

    assertThat(names(queue.nominatedPodsForNode("n1"))).containsExactly("a");
  }

  @Test
  void addedPodWithStatusNominatedNodeNameIsNominated() {
    queue.add(TestPods.nominated("a", "n1"));

    assertThat(names(queue.nominatedPodsForNode("n1"))).containsExactly("a");
    assertThat(queue.nominatedNodeName("uid-a")).contains("n1");
  }

  @Test
  void updateKeepsAnInMemoryNominationTheStatusDoesNotShowYet() {
    Pod pod = TestPods.named("a");
    queue.add(pod);
    QueuedPodInfo p = f.popNow();
    queue.addNominatedPod(p.podInfo(), NominatingInfo.override("n1"));
    f.reject(p, "Fit");
    Pod relabeled = TestPods.relabeled(pod, "app", "web");

    queue.update(pod, relabeled);

    List<PodInfo> onN1 = queue.nominatedPodsForNode("n1");
    assertThat(onN1).hasSize(1);
    assertThat(onN1.get(0).pod()).as("current PodInfo").isSameAs(relabeled);
  }

  @Test
  void updateFollowsTheStatusNominatedNodeName() {
    Pod pod = TestPods.nominated("a", "n1");
    queue.add(pod);

    queue.update(pod, TestPods.withNominatedNode(pod, "n2"));

    assertThat(queue.nominatedPodsForNode("n1")).isEmpty();
    assertThat(names(queue.nominatedPodsForNode("n2"))).containsExactly("a");
  }

  @Test
  void deleteDropsTheNomination() {
    Pod pod = TestPods.nominated("a", "n1");
    queue.add(pod);

    queue.delete(pod);

    assertThat(queue.nominatedPodsForNode("n1")).isEmpty();
  }

  @Test
  void deleteNominatedPodIfExistsLeavesTheQueueAlone() {
    Pod pod = TestPods.nominated("a", "n1");
    queue.add(pod);

    queue.deleteNominatedPodIfExists(pod);

    assertThat(queue.nominatedPodsForNode("n1")).isEmpty();
    assertThat(f.where("a")).isEqualTo(QueueName.ACTIVE);
  }

  @Test
  void deleteNominatedPodsIfExistDropsEveryGivenNominationAndNoOther() {
    Pod a = TestPods.nominated("a", "n1");
    Pod b = TestPods.nominated("b", "n1");
    Pod c = TestPods.nominated("c", "n2");
    queue.add(a);
    queue.add(b);
    queue.add(c);

    queue.deleteNominatedPodsIfExist(List.of(a, c, TestPods.named("unknown")));

    assertThat(names(queue.nominatedPodsForNode("n1"))).containsExactly("b");
    assertThat(queue.nominatedPodsForNode("n2")).isEmpty();
    assertThat(f.where("a")).isEqualTo(QueueName.ACTIVE);
  }

  @Test
  void nominationOfAPodDeletedDuringItsAttemptIsIgnored() {
    Pod pod = TestPods.named("a");
    queue.add(pod);
    QueuedPodInfo p = f.popNow();
    queue.delete(pod);

    queue.addNominatedPod(p.podInfo(), NominatingInfo.override("n1"));

    assertThat(queue.nominatedPodsForNode("n1")).isEmpty();
  }

  @Test
  void boundPodIsNotNominated() {
    Pod bound = TestPods.pod("a").editSpec().withNodeName("n2").endSpec().build();

    queue.addNominatedPod(PodInfo.of(bound), NominatingInfo.override("n1"));

    assertThat(queue.nominatedPodsForNode("n1")).isEmpty();
  }

  private static List<String> names(List<PodInfo> pods) {
    return pods.stream().map(PodInfo::name).toList();
  }

  @Test
  void readersSeeWholeListsWhileWritersNominateAndDelete() throws Exception {
    int writers = 4;
    int podsPerWriter = 300;
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread reader = new Thread(() -> {
      try {
        while (!done.get()) {
          for (int n = 0; n < 4; n++) {
            List<PodInfo> pods = queue.nominatedPodsForNode("n" + n);
            for (PodInfo p : pods) {
              assertThat(p.pod().getMetadata().getName()).startsWith("w");
            }
          }
        }
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
      }
    });
    reader.start();
    Thread[] threads = new Thread[writers];
    for (int w = 0; w < writers; w++) {
      int id = w;
      threads[w] = new Thread(() -> {
        // odd writers delete in batches, as a group cycle's commit does
        List<Pod> batch = new java.util.ArrayList<>();
        for (int i = 0; i < podsPerWriter; i++) {
          PodInfo p = PodInfo.of(TestPods.named("w" + id + "-" + i));
          queue.addNominatedPod(p, NominatingInfo.override("n" + (i % 4)));
          if (i % 3 == 0) {
            if (id % 2 == 0) {
              queue.deleteNominatedPodIfExists(p.pod());
            } else {
              batch.add(p.pod());
            }
          }
          if (batch.size() == 7) {
            queue.deleteNominatedPodsIfExist(batch);
            batch.clear();
          }
        }
        queue.deleteNominatedPodsIfExist(batch);
      });
      threads[w].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    done.set(true);
    reader.join();
    assertThat(failure.get()).isNull();
    int total = 0;
    for (int n = 0; n < 4; n++) {
      total += queue.nominatedPodsForNode("n" + n).size();
    }
    assertThat(total).isEqualTo(writers * (podsPerWriter - podsPerWriter / 3));
  }
}
