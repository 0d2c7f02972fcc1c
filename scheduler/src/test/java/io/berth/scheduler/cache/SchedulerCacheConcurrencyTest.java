package io.berth.scheduler.cache;

import static io.berth.scheduler.cache.CacheTestObjects.node;
import static io.berth.scheduler.cache.CacheTestObjects.onNode;
import static io.berth.scheduler.cache.CacheTestObjects.pod;
import static io.berth.scheduler.cache.CacheTestObjects.withAffinity;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.NodeInfo;
import io.berth.framework.PodInfo;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Informer threads adding, updating and removing pods, a node thread adding and removing nodes,
 * a scheduling thread assuming, binding, confirming and forgetting pods, while another thread
 * keeps updating one snapshot and checks every snapshot it sees. Each thread owns its pods (or
 * nodes) and keeps its own model of them; at the end the models together say what every node
 * must hold.
 */
class SchedulerCacheConcurrencyTest {
  private static final int NODES = 8;
  private static final int OPS = 2_000;

  private final SchedulerCache cache = new SchedulerCache(Duration.ofSeconds(30),
      new FakeInstantSource());

  private static String nodeName(int i) {
    return "n" + i;
  }

  private static String zone(int i) {
    return i % 3 == 0 ? "a" : i % 3 == 1 ? "b" : "c";
  }

  /** Pods of one informer thread: add, update (new requests), remove. Returns the live pods. */
  private Map<String, Pod> informer(int id, Random random) {
    Map<String, Pod> live = new HashMap<>();
    List<String> names = new ArrayList<>();
    for (int op = 0; op < OPS; op++) {
      int choice = random.nextInt(10);
      if (names.isEmpty() || choice < 4) {
        String name = "i" + id + "-" + op;
        Pod p = pod(name, nodeName(random.nextInt(NODES)), 1 + random.nextInt(500),
            1 + random.nextInt(64));
        if (random.nextInt(5) == 0) {
          p = withAffinity(p);
        }
        cache.addPod(p);
        live.put(name, p);
        names.add(name);
      } else if (choice < 7) {
        String name = names.get(random.nextInt(names.size()));
        Pod old = live.get(name);
        Pod updated = pod(name, old.getSpec().getNodeName(), 1 + random.nextInt(500),
            1 + random.nextInt(64));
        cache.updatePod(updated);
        live.put(name, updated);
      } else {
        String name = names.remove(random.nextInt(names.size()));
        cache.removePod(live.remove(name));
      }
    }
    return live;
  }

  /** The scheduling side: assume, finish binding, confirm (sometimes elsewhere), forget. */
  private Map<String, Pod> scheduler(Random random) {
    Map<String, Pod> live = new HashMap<>();
    List<String> assumed = new ArrayList<>();
    List<String> added = new ArrayList<>();
    for (int op = 0; op < OPS; op++) {
      int choice = random.nextInt(10);
      if (assumed.isEmpty() || choice < 4) {
        String name = "s-" + op;
        Pod p = pod(name, nodeName(random.nextInt(NODES)), 1 + random.nextInt(500),
            1 + random.nextInt(64));
        cache.assumePod(p);
        assertThat(cache.isAssumedPod(p)).isTrue();
        live.put(name, p);
        assumed.add(name);
      } else if (choice < 6) {
        Pod p = live.get(assumed.remove(random.nextInt(assumed.size())));
        cache.forgetPod(p);
        live.remove(p.getMetadata().getName());
      } else if (choice < 7) {
        cache.finishBinding(live.get(assumed.get(random.nextInt(assumed.size()))));
      } else if (choice < 9 || added.isEmpty()) {
        String name = assumed.remove(random.nextInt(assumed.size()));
        Pod bound = live.get(name);
        if (random.nextInt(5) == 0) {
          bound = onNode(bound, nodeName(random.nextInt(NODES)));
        }
        cache.addPod(bound);
        live.put(name, bound);
        added.add(name);
      } else {
        String name = added.remove(random.nextInt(added.size()));
        cache.removePod(live.remove(name));
      }
    }
    return live;
  }

  /** Flaps the upper half of the nodes. Returns the names of the nodes present at the end. */
  private Set<String> nodeFlapper(Random random) {
    Set<String> present = new HashSet<>();
    for (int i = 0; i < NODES; i++) {
      present.add(nodeName(i));
    }
    for (int op = 0; op < OPS / 4; op++) {
      int i = NODES / 2 + random.nextInt(NODES / 2);
      String name = nodeName(i);
      if (present.remove(name)) {
        cache.removeNode(node(name, zone(i)));
      } else if (random.nextBoolean()) {
        cache.addNode(node(name, zone(i)));
        present.add(name);
      }
      if (random.nextInt(4) == 0) {
        int j = random.nextInt(NODES / 2);
        cache.updateNode(node(nodeName(j), zone(j)));
      }
    }
    return present;
  }

  /**
   * What every snapshot must satisfy, whatever the interleaving. Plain checks rather than AssertJ:
   * this runs tens of thousands of times.
   */
  private static void checkConsistent(Snapshot snapshot) {
    Set<String> seen = new HashSet<>();
    int withAffinity = 0;
    for (NodeInfo info : snapshot.list()) {
      String name = info.nodeName();
      check(info.node().isPresent(), "listed node without Node object: " + name);
      check(seen.add(name), "listed twice: " + name);
      check(snapshot.get(name).orElse(null) == info, "list and map disagree on " + name);
      long cpu = 0;
      for (PodInfo pi : info.pods()) {
        cpu += pi.requests().milliCpu();
      }
      check(info.requested().milliCpu() == cpu, "requested cpu of " + name + " is "
          + info.requested().milliCpu() + ", its pods sum to " + cpu);
      if (!info.podsWithAffinity().isEmpty()) {
        withAffinity++;
      }
    }
    check(snapshot.havePodsWithAffinityList().size() == withAffinity,
        "havePodsWithAffinityList has " + snapshot.havePodsWithAffinityList().size()
            + " nodes, " + withAffinity + " have such pods");
    for (NodeInfo info : snapshot.havePodsWithAffinityList()) {
      check(snapshot.get(info.nodeName()).orElse(null) == info,
          "affinity list holds a stale copy of " + info.nodeName());
      check(!info.podsWithAffinity().isEmpty(), "no affinity pod on " + info.nodeName());
    }
  }

  private static void check(boolean condition, String message) {
    if (!condition) {
      throw new AssertionError(message);
    }
  }

  @Test
  void snapshotsStayConsistentUnderConcurrentEventsAndEndExact() throws Exception {
    for (int i = 0; i < NODES; i++) {
      cache.addNode(node(nodeName(i), zone(i)));
    }
    Snapshot snapshot = new Snapshot();
    ExecutorService pool = Executors.newFixedThreadPool(5);
    CountDownLatch start = new CountDownLatch(1);
    AtomicBoolean writersDone = new AtomicBoolean();
    AtomicInteger snapshotsTaken = new AtomicInteger();
    try {
      Future<Map<String, Pod>> informer1 = pool.submit(() -> {
        start.await();
        return informer(1, new Random(11));
      });
      Future<Map<String, Pod>> informer2 = pool.submit(() -> {
        start.await();
        return informer(2, new Random(22));
      });
      Future<Map<String, Pod>> scheduler = pool.submit(() -> {
        start.await();
        return scheduler(new Random(33));
      });
      Future<Set<String>> nodes = pool.submit(() -> {
        start.await();
        return nodeFlapper(new Random(44));
      });
      Future<?> snapshotter = pool.submit(() -> {
        start.await();
        while (!writersDone.get()) {
          cache.updateSnapshot(snapshot);
          checkConsistent(snapshot);
          cache.cleanupAssumedPods();
          snapshotsTaken.incrementAndGet();
          // a scheduling cycle's worth of pause, so the writers are not starved of the lock
          LockSupport.parkNanos(100_000);
        }
        return null;
      });
      start.countDown();
      Map<String, Pod> live = new HashMap<>(informer1.get(60, TimeUnit.SECONDS));
      live.putAll(informer2.get(60, TimeUnit.SECONDS));
      live.putAll(scheduler.get(60, TimeUnit.SECONDS));
      Set<String> presentNodes = nodes.get(60, TimeUnit.SECONDS);
      writersDone.set(true);
      snapshotter.get(60, TimeUnit.SECONDS);

      cache.updateSnapshot(snapshot);
      Snapshot fresh = new Snapshot();
      cache.updateSnapshot(fresh);

      assertThat(snapshotsTaken.get()).isPositive();
      checkConsistent(snapshot);
      assertThat(snapshot.list()).extracting(NodeInfo::nodeName)
          .containsExactlyInAnyOrderElementsOf(presentNodes)
          .containsExactlyElementsOf(fresh.list().stream().map(NodeInfo::nodeName).toList());
      for (String node : presentNodes) {
        List<Pod> onNode = live.values().stream()
            .filter(p -> p.getSpec().getNodeName().equals(node)).toList();
        NodeInfo info = snapshot.get(node).orElseThrow();
        assertThat(info.requested().milliCpu()).as("cpu on %s", node)
            .isEqualTo(onNode.stream().mapToLong(p -> PodInfo.of(p).requests().milliCpu()).sum());
        assertThat(info.requested().memory()).as("memory on %s", node)
            .isEqualTo(onNode.stream().mapToLong(p -> PodInfo.of(p).requests().memory()).sum());
        assertThat(info.pods()).extracting(PodInfo::name).containsExactlyInAnyOrderElementsOf(
            onNode.stream().map(p -> p.getMetadata().getName()).toList());
        assertThat(fresh.get(node).orElseThrow().requested()).isEqualTo(info.requested());
      }
      assertThat(cache.podCount()).isEqualTo(live.size());
      Set<String> expectedNodeInfos = new HashSet<>(presentNodes);
      live.values().forEach(p -> expectedNodeInfos.add(p.getSpec().getNodeName()));
      assertThat(cache.dump().nodes()).containsOnlyKeys(expectedNodeInfos);
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * {@link SchedulerCache#assumedUids} racing threads that assume (one by one, or all at once with
   * {@link SchedulerCache#assumePods}) and forget their own pods and
   * confirm others as added: a pod assumed throughout is always reported, a pod never assumed
   * (or confirmed by the informer) never is.
   */
  @Test
  void assumedUidsSeesEachPodAsAssumedOrNotUnderConcurrentAssumeAndForget() throws Exception {
    SchedulerCache cache = new SchedulerCache(Duration.ZERO);
    cache.addNode(node("n1"));
    List<Pod> always = new ArrayList<>();
    List<Pod> never = new ArrayList<>();
    List<Pod> churned = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      Pod a = pod("always-" + i, "n1", 1, 1);
      cache.assumePod(a);
      always.add(a);
      never.add(pod("never-" + i, "n1", 1, 1));
      churned.add(pod("churned-" + i, "n1", 1, 1));
    }
    List<Pod> asked = new ArrayList<>(always);
    asked.addAll(never);
    asked.addAll(churned);
    AtomicBoolean stop = new AtomicBoolean();
    List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> tasks = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        int first = w;
        tasks.add(pool.submit(() -> {
          for (int round = 0; round < 200 && !stop.get(); round++) {
            if (first == 0) {
              // one worker assumes its pods as a group cycle commits: all at once
              List<PodInfo> batch = new ArrayList<>();
              for (int i = first; i < churned.size(); i += 2) {
                batch.add(PodInfo.of(churned.get(i)));
              }
              cache.assumePods(batch);
            } else {
              for (int i = first; i < churned.size(); i += 2) {
                cache.assumePod(churned.get(i));
              }
            }
            for (int i = first; i < churned.size(); i += 2) {
              cache.forgetPod(churned.get(i));
            }
          }
          return null;
        }));
      }
      tasks.add(pool.submit(() -> {
        // the informer confirms and removes "never" pods: added, not assumed
        for (int round = 0; round < 200 && !stop.get(); round++) {
          for (Pod p : never) {
            cache.addPod(p);
          }
          for (Pod p : never) {
            cache.removePod(p);
          }
        }
        return null;
      }));
      tasks.add(pool.submit(() -> {
        for (int round = 0; round < 2_000; round++) {
          Set<String> uids = cache.assumedUids(asked);
          for (Pod p : always) {
            if (!uids.contains(p.getMetadata().getUid())) {
              violations.add(p.getMetadata().getName() + " not reported");
            }
          }
          for (Pod p : never) {
            if (uids.contains(p.getMetadata().getUid())) {
              violations.add(p.getMetadata().getName() + " reported");
            }
          }
        }
        stop.set(true);
        return null;
      }));
      for (Future<?> t : tasks) {
        t.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(violations).isEmpty();
    assertThat(cache.assumedUids(asked)).hasSize(always.size());
  }
}
