package io.berth.scheduler.cache;

import static io.berth.scheduler.cache.CacheTestObjects.node;
import static io.berth.scheduler.cache.CacheTestObjects.onNode;
import static io.berth.scheduler.cache.CacheTestObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.NodeInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AssumedPodsTest {
  private static final Duration TTL = Duration.ofSeconds(30);

  private final FakeInstantSource clock = new FakeInstantSource();
  private SchedulerCache cache;

  @BeforeEach
  void setUp() {
    cache = new SchedulerCache(TTL, clock);
    cache.addNode(node("n1"));
    cache.addNode(node("n2"));
  }

  private NodeInfo nodeInfo(String name) {
    return cache.dump().nodes().get(name);
  }

  @Test
  void assumedPodCountsOnItsNodeAtOnce() {
    cache.assumePod(pod("p", "n1", 500, 100));

    assertThat(cache.isAssumedPod(pod("p", "n1", 500, 100))).isTrue();
    assertThat(nodeInfo("n1").requested().milliCpu()).isEqualTo(500);
    assertThat(nodeInfo("n1").requested().memory()).isEqualTo(100L << 20);
    assertThat(nodeInfo("n2").requested().milliCpu()).isZero();
  }

  @Test
  void assumedUidsNamesOnlyTheAssumedAmongThePodsAskedAbout() {
    Pod assumed = pod("a", "n1", 100, 10);
    Pod added = pod("b", "n2", 100, 10);
    Pod confirmed = pod("c", "n1", 100, 10);
    cache.assumePod(assumed);
    cache.addPod(added);
    cache.assumePod(confirmed);
    cache.addPod(confirmed); // the informer saw its binding: no longer assumed

    assertThat(cache.assumedUids(java.util.List.of(assumed, added, confirmed,
        pod("unknown", "n1", 1, 1)))).containsExactly("uid-a");
    assertThat(cache.assumedUids(java.util.List.of())).isEmpty();
  }

  @Test
  void assumePodsAssumesAllOrNone() {
    Pod a = pod("a", "n1", 100, 10);
    Pod b = pod("b", "n2", 200, 10);
    Pod c = pod("c", "n1", 300, 10);
    cache.assumePod(c);
    assertThatThrownBy(() -> cache.assumePods(java.util.List.of(io.berth.framework.PodInfo.of(a),
        io.berth.framework.PodInfo.of(b), io.berth.framework.PodInfo.of(c))))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("default/c");
    assertThat(cache.isAssumedPod(a)).isFalse();
    assertThat(cache.isAssumedPod(b)).isFalse();
    assertThat(nodeInfo("n2").requested().milliCpu()).isZero();
    assertThatThrownBy(() -> cache.assumePods(java.util.List.of(io.berth.framework.PodInfo.of(a),
        io.berth.framework.PodInfo.of(a)))).isInstanceOf(IllegalStateException.class);
    assertThat(cache.isAssumedPod(a)).isFalse();

    cache.assumePods(java.util.List.of(io.berth.framework.PodInfo.of(a),
        io.berth.framework.PodInfo.of(b)));
    assertThat(cache.assumedUids(java.util.List.of(a, b, c))).containsExactlyInAnyOrder("uid-a",
        "uid-b", "uid-c");
    assertThat(nodeInfo("n1").requested().milliCpu()).isEqualTo(400);
    assertThat(nodeInfo("n2").requested().milliCpu()).isEqualTo(200);
  }

  @Test
  void assumedPodExpiresOnlyAfterBindingFinishedAndTtlPassed() {
    Pod p = pod("p", "n1", 500, 100);
    cache.assumePod(p);

    clock.advance(TTL.multipliedBy(10));
    assertThat(cache.cleanupAssumedPods()).as("binding still running").isZero();
    assertThat(cache.isAssumedPod(p)).isTrue();

    cache.finishBinding(p);
    clock.advance(TTL);
    assertThat(cache.cleanupAssumedPods()).as("deadline reached, not passed").isZero();
    assertThat(cache.isAssumedPod(p)).isTrue();

    clock.advance(Duration.ofMillis(1));
    assertThat(cache.cleanupAssumedPods()).isEqualTo(1);
    assertThat(cache.isAssumedPod(p)).isFalse();
    assertThat(cache.getPod(p)).isEmpty();
    assertThat(nodeInfo("n1").requested().milliCpu()).isZero();
    assertThat(cache.podCount()).isZero();
  }

  @Test
  void zeroTtlNeverExpires() {
    SchedulerCache noExpiry = new SchedulerCache(Duration.ZERO, clock);
    noExpiry.addNode(node("n1"));
    Pod p = pod("p", "n1", 500, 100);
    noExpiry.assumePod(p);
    noExpiry.finishBinding(p);

    clock.advance(Duration.ofDays(365));

    assertThat(noExpiry.cleanupAssumedPods()).isZero();
    assertThat(noExpiry.isAssumedPod(p)).isTrue();
  }

  @Test
  void informerAddConfirmsAssumedPodWithoutDoubleCounting() {
    Pod assumed = pod("p", "n1", 500, 100);
    cache.assumePod(assumed);
    cache.finishBinding(assumed);

    Pod bound = pod("p", "n1", 500, 100);
    cache.addPod(bound);

    assertThat(cache.isAssumedPod(bound)).isFalse();
    assertThat(cache.getPod(bound)).containsSame(bound);
    assertThat(nodeInfo("n1").requested().milliCpu()).isEqualTo(500);
    assertThat(nodeInfo("n1").pods()).hasSize(1);
    assertThat(cache.podCount()).isEqualTo(1);

    clock.advance(TTL.multipliedBy(2));
    assertThat(cache.cleanupAssumedPods()).as("a confirmed pod never expires").isZero();
    assertThat(nodeInfo("n1").requested().milliCpu()).isEqualTo(500);
  }

  @Test
  void informerAddOnAnotherNodeMovesTheAssumedPod() {
    Pod assumed = pod("p", "n1", 500, 100);
    cache.assumePod(assumed);

    cache.addPod(onNode(assumed, "n2"));

    assertThat(nodeInfo("n1").requested().milliCpu()).isZero();
    assertThat(nodeInfo("n1").pods()).isEmpty();
    assertThat(nodeInfo("n2").requested().milliCpu()).isEqualTo(500);
    assertThat(cache.getPod(assumed).orElseThrow().getSpec().getNodeName()).isEqualTo("n2");
    assertThat(cache.isAssumedPod(assumed)).isFalse();
  }

  @Test
  void forgetFreesTheNodesRequestedResources() {
    Pod keep = pod("keep", "n1", 200, 10);
    cache.addPod(keep);
    Pod p = pod("p", "n1", 500, 100);
    cache.assumePod(p);
    assertThat(nodeInfo("n1").requested().milliCpu()).isEqualTo(700);

    cache.forgetPod(p);

    assertThat(nodeInfo("n1").requested().milliCpu()).isEqualTo(200);
    assertThat(nodeInfo("n1").requested().memory()).isEqualTo(10L << 20);
    assertThat(nodeInfo("n1").pods()).extracting(pi -> pi.name()).containsExactly("keep");
    assertThat(cache.getPod(p)).isEmpty();
    assertThat(cache.isAssumedPod(p)).isFalse();
  }

  @Test
  void forgetOfPodOnAnotherNodeThrowsAndKeepsIt() {
    Pod p = pod("p", "n1", 500, 100);
    cache.assumePod(p);

    assertThatThrownBy(() -> cache.forgetPod(onNode(p, "n2")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("was assumed on n2 but assigned to n1");
    assertThat(cache.isAssumedPod(p)).isTrue();
    assertThat(nodeInfo("n1").requested().milliCpu()).isEqualTo(500);
  }

  @Test
  void forgetOfAddedOrUnknownPodThrows() {
    Pod added = pod("added", "n1", 500, 100);
    cache.addPod(added);

    assertThatThrownBy(() -> cache.forgetPod(added))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("wasn't assumed");
    assertThatThrownBy(() -> cache.forgetPod(pod("unknown", "n1", 1, 1)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("wasn't assumed");
    assertThat(nodeInfo("n1").requested().milliCpu()).isEqualTo(500);
  }

  @Test
  void assumingAPodAlreadyInTheCacheThrows() {
    Pod p = pod("p", "n1", 500, 100);
    cache.assumePod(p);
    cache.addPod(pod("q", "n1", 100, 100));

    assertThatThrownBy(() -> cache.assumePod(p))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("can't be assumed");
    assertThatThrownBy(() -> cache.assumePod(pod("q", "n2", 100, 100)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("can't be assumed");
    assertThat(nodeInfo("n1").requested().milliCpu()).isEqualTo(600);
    assertThat(nodeInfo("n2").requested().milliCpu()).isZero();
  }

  @Test
  void assumingAPodWithoutNodeOrUidIsRejected() {
    assertThatThrownBy(() -> cache.assumePod(pod("p", null, 1, 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spec.nodeName");
    Pod noUid = pod("p", "n1", 1, 1);
    noUid.getMetadata().setUid(null);
    assertThatThrownBy(() -> cache.assumePod(noUid))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty UID");
    assertThat(cache.podCount()).isZero();
  }

  @Test
  void finishBindingOfAPodThatIsNotAssumedDoesNothing() {
    Pod added = pod("added", "n1", 500, 100);
    cache.addPod(added);
    cache.finishBinding(added);
    cache.finishBinding(pod("unknown", "n1", 1, 1));
    clock.advance(TTL.multipliedBy(2));

    assertThat(cache.cleanupAssumedPods()).isZero();
    assertThat(cache.getPod(added)).isPresent();
  }

  @Test
  void expiredPodOnDeletedNodeTakesItsNodeInfoAlong() {
    Pod p = pod("p", "n1", 500, 100);
    cache.assumePod(p);
    cache.finishBinding(p);
    cache.removeNode(node("n1"));
    assertThat(cache.nodeCount()).isEqualTo(2);

    clock.advance(TTL.plusSeconds(1));
    cache.cleanupAssumedPods();

    assertThat(cache.nodeCount()).isEqualTo(1);
    assertThat(cache.dump().nodes()).containsOnlyKeys("n2");
  }

  @Test
  void startedCacheExpiresAssumedPodsOnItsOwn() {
    Pod p = pod("p", "n1", 500, 100);
    cache.assumePod(p);
    cache.finishBinding(p);
    clock.advance(TTL.plusSeconds(1));

    cache.start();
    try {
      Awaitility.await().atMost(Duration.ofSeconds(10))
          .until(() -> !cache.isAssumedPod(p));
      assertThat(nodeInfo("n1").requested().milliCpu()).isZero();
    } finally {
      cache.close();
    }
  }

  @Test
  void dumpListsAssumedPodsByUid() {
    cache.assumePod(pod("a", "n1", 1, 1));
    cache.addPod(pod("b", "n2", 1, 1));

    CacheDump dump = cache.dump();

    assertThat(dump.assumedPods()).containsExactly("uid-a");
    assertThat(dump.nodes()).containsOnlyKeys("n1", "n2");
    dump.nodes().get("n1").addPod(io.berth.framework.PodInfo.of(pod("c", "n1", 7, 7)));
    assertThat(nodeInfo("n1").requested().milliCpu()).as("dump holds copies").isEqualTo(1);
  }
}
