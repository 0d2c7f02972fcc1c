package io.berth.framework;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PodInfoTest {
  private static Pod pod(String name, String cpu) {
    return new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).endMetadata()
        .withNewSpec().addNewContainer().withName("c").withNewResources()
        .addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec().build();
  }

  @Test
  void theSamePodObjectGetsItsDerivedInfoAgain() {
    Pod pod = pod("p", "250m");
    PodInfo first = PodInfo.of(pod);
    assertThat(PodInfo.of(pod)).isSameAs(first);
    assertThat(first.requests().milliCpu()).isEqualTo(250);
  }

  @Test
  void priorityAndUidAreThePodsOwnAlsoForTheAssumedCopy() {
    Pod unset = pod("p", "250m");
    assertThat(PodInfo.of(unset).priority()).isZero();
    assertThat(PodInfo.of(unset).uid()).isNull();
    Pod pod = new PodBuilder(unset).editMetadata().withUid("u-1").endMetadata().editSpec()
        .withPriority(-7).endSpec().build();
    PodInfo info = PodInfo.of(pod);
    assertThat(info.priority()).isEqualTo(-7);
    assertThat(info.uid()).isEqualTo("u-1");
    PodInfo assumed = info.forAssumed(new PodBuilder(pod).editSpec().withNodeName("n1").endSpec().build());
    assertThat(assumed.priority()).isEqualTo(-7);
    assertThat(assumed.uid()).isEqualTo("u-1");
  }

  @Test
  void anEqualButDistinctPodIsDerivedForItself() {
    Pod pod = pod("p", "250m");
    Pod copy = new PodBuilder(pod).build();
    PodInfo a = PodInfo.of(pod);
    PodInfo b = PodInfo.of(copy);
    assertThat(b.pod()).isSameAs(copy);
    assertThat(a.pod()).isSameAs(pod);
    assertThat(b.requests().milliCpu()).isEqualTo(250);
  }

  @Test
  void manyThreadsDerivingManyPodsEachGetTheirOwnPodsInfo() throws Exception {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      pods.add(pod("p" + i, (i + 1) + "m"));
    }
    AtomicInteger wrong = new AtomicInteger();
    Thread[] threads = new Thread[4];
    for (int t = 0; t < threads.length; t++) {
      threads[t] = new Thread(() -> {
        for (int round = 0; round < 5; round++) {
          for (int i = 0; i < pods.size(); i++) {
            PodInfo info = PodInfo.of(pods.get(i));
            if (info.pod() != pods.get(i) || info.requests().milliCpu() != i + 1) {
              wrong.incrementAndGet();
            }
          }
        }
      });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(wrong.get()).isZero();
  }
}
