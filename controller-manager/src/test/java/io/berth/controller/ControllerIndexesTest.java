package io.berth.controller;

import static io.berth.controller.PodFixture.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.informer.Cache;
import io.berth.informer.Indexer;
import io.berth.informer.SharedIndexInformer;
import io.berth.informer.SharedInformerFactory;
import io.berth.informer.ThreadSafeStore;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The pod {@code podControllerUID} and {@code orphanPodLabels} indexes and {@link ControllerIndexes#podsToClaim}
 * over them.
 */
class ControllerIndexesTest {

  private final ThreadSafeStore<Pod> pods = new ThreadSafeStore<>(Map.of(
      Indexer.NAMESPACE_INDEX, Cache::metaNamespaceIndex,
      ControllerIndexes.POD_CONTROLLER_UID_INDEX, ControllerIndexes.byPodControllerUid(),
      ControllerIndexes.ORPHAN_POD_LABELS_INDEX, ControllerIndexes.byOrphanPodLabels()));

  private static ReplicaSet rs(String name, String namespace) {
    return new ReplicaSetBuilder().withNewMetadata().withName(name).withNamespace(namespace).withUid("uid-" + name)
        .endMetadata().build();
  }

  /** What a claim by {@code rs} with selector {@code app=<name>} looks at. */
  private List<String> toClaim(ReplicaSet rs) {
    return names(ControllerIndexes.podsToClaim(pods, rs.getMetadata(), Selector.fromSet(Map.of("app",
        rs.getMetadata().getName()))));
  }

  private static List<String> names(List<Pod> list) {
    return list.stream().map(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName()).toList();
  }

  @Test
  void aControlledPodIsIndexedUnderItsControllersUidAndAnOrphanUnderItsNamespacesOrphanKey() {
    ReplicaSet web = rs("web", "default");
    Pod owned = pod("owned").controlledBy(web, GroupVersionKind.REPLICA_SET).build();
    Pod orphan = pod("orphan").namespace("other").build();
    Pod merelyOwned = new PodBuilder(pod("merely-owned").build()).editMetadata()
        .withOwnerReferences(new OwnerReferenceBuilder().withKind("ReplicaSet").withName("web").withUid("uid-web")
            .withController(false).build())
        .endMetadata().build();

    assertThat(ControllerIndexes.byPodControllerUid().index(owned)).containsExactly("uid-web");
    assertThat(ControllerIndexes.byPodControllerUid().index(orphan)).containsExactly("_ORPHAN_POD/other");
    assertThat(ControllerIndexes.byPodControllerUid().index(merelyOwned))
        .as("an ownerReference without controller: true does not make a controller").containsExactly(
            "_ORPHAN_POD/default");
  }

  @Test
  void anOwnerGetsItsPodsAndTheOrphansOfItsNamespaceButNotOtherControllersPodsOrOtherNamespaces() {
    ReplicaSet web = rs("web", "default");
    ReplicaSet api = rs("api", "default");
    pods.add(pod("web-1").controlledBy(web, GroupVersionKind.REPLICA_SET).build());
    pods.add(pod("web-2").label("app", "strayed").controlledBy(web, GroupVersionKind.REPLICA_SET).build());
    pods.add(pod("api-1").label("app", "web").controlledBy(api, GroupVersionKind.REPLICA_SET).build());
    pods.add(pod("orphan").label("app", "web").build());
    pods.add(pod("orphan-api").label("app", "api").build());
    pods.add(pod("orphan-batch").label("app", "batch").build());
    pods.add(pod("orphan-elsewhere").namespace("other").label("app", "web").build());
    pods.add(pod("stray").namespace("other").controlledBy(web, GroupVersionKind.REPLICA_SET).build());

    assertThat(toClaim(web)).as("its pods, matching or not, and the orphans labelled app=web")
        .containsExactlyInAnyOrder("default/web-1", "default/web-2", "default/orphan");
    assertThat(toClaim(api)).containsExactlyInAnyOrder("default/api-1", "default/orphan-api");
    assertThat(toClaim(rs("batch", "other"))).isEmpty();
    ReplicaSet webElsewhere = new ReplicaSetBuilder(rs("web", "other")).editMetadata().withUid("uid-web-other")
        .endMetadata().build();
    assertThat(toClaim(webElsewhere)).as("not web's stray pod in its namespace")
        .containsExactly("other/orphan-elsewhere");
  }

  @Test
  void anOrphanIsIndexedUnderEachOfItsLabelsAndAControlledPodUnderNone() {
    ReplicaSet web = rs("web", "default");
    Pod orphan = pod("orphan").label("tier", "front").build();
    assertThat(ControllerIndexes.byOrphanPodLabels().index(orphan))
        .containsExactlyInAnyOrder("default/app=web", "default/tier=front");
    assertThat(ControllerIndexes.byOrphanPodLabels().index(pod("owned").controlledBy(web,
        GroupVersionKind.REPLICA_SET).build())).isEmpty();
    assertThat(ControllerIndexes.byOrphanPodLabels().index(pod("bare").labels(Map.of()).build())).isEmpty();
  }

  @Test
  void aSelectorWithoutAnEqualityOrInRequirementGetsEveryOrphanOfTheNamespace() throws Exception {
    pods.add(pod("orphan-web").label("app", "web").build());
    pods.add(pod("orphan-unlabelled").labels(Map.of()).build());
    pods.add(pod("orphan-elsewhere").namespace("other").build());
    Selector exists = Selector.fromLabelSelector(new LabelSelectorBuilder().withMatchExpressions(
        new LabelSelectorRequirementBuilder().withKey("app").withOperator("Exists").build()).build());
    assertThat(names(ControllerIndexes.podsToClaim(pods, rs("web", "default").getMetadata(), exists)))
        .containsExactlyInAnyOrder("default/orphan-web", "default/orphan-unlabelled");
  }

  @Test
  void anInRequirementGetsTheOrphansCarryingAnyOfItsValues() throws Exception {
    pods.add(pod("a").label("app", "a").build());
    pods.add(pod("b").label("app", "b").build());
    pods.add(pod("c").label("app", "c").build());
    Selector in = Selector.fromLabelSelector(new LabelSelectorBuilder().withMatchExpressions(
        new LabelSelectorRequirementBuilder().withKey("app").withOperator("In").withValues("a", "b").build())
        .build());
    assertThat(names(ControllerIndexes.podsToClaim(pods, rs("web", "default").getMetadata(), in)))
        .containsExactlyInAnyOrder("default/a", "default/b");
  }

  /*
   * Whatever the pods, a claim over podsToClaim decides exactly what a claim over the whole namespace decides: the
   * left-out pods are all ones the claim would ignore.
   */
  @Test
  void everyPodLeftOutIsOneAClaimOverTheWholeNamespaceIgnores() {
    ReplicaSet web = rs("web", "default");
    ReplicaSet api = rs("api", "default");
    Selector selector = Selector.fromSet(Map.of("app", "web"));
    java.util.Random random = new java.util.Random(7);
    for (int i = 0; i < 300; i++) {
      PodFixture p = pod("p" + i).namespace(random.nextInt(4) == 0 ? "other" : "default")
          .labels(Map.of("app", List.of("web", "api", "batch").get(random.nextInt(3))));
      int owner = random.nextInt(3);
      if (owner == 1) {
        p.controlledBy(web, GroupVersionKind.REPLICA_SET);
      } else if (owner == 2) {
        p.controlledBy(api, GroupVersionKind.REPLICA_SET);
      }
      pods.add(p.build());
    }
    Set<String> candidates = new HashSet<>(names(ControllerIndexes.podsToClaim(pods, web.getMetadata(), selector)));
    int considered = 0;
    for (Pod p : pods.byIndex(Indexer.NAMESPACE_INDEX, "default")) {
      ControllerRefManager.Decision decision = ControllerRefManager.decide(web, p,
          selector.matches(p.getMetadata().getLabels()));
      boolean listed = candidates.contains("default/" + p.getMetadata().getName());
      if (decision != ControllerRefManager.Decision.IGNORE) {
        assertThat(listed).as("%s (%s) must be a candidate", p.getMetadata().getName(), decision).isTrue();
        considered++;
      }
    }
    assertThat(considered).isPositive();
    assertThat(candidates).allMatch(n -> n.startsWith("default/"));
  }

  @Test
  void adoptionMovesAPodFromTheOrphanKeysToItsOwnerAndReleaseMovesItBack() {
    ReplicaSet web = rs("web", "default");
    ReplicaSet other = rs("other", "default");
    Selector selector = Selector.fromSet(Map.of("app", "web"));
    pods.add(pod("p").build());
    assertThat(names(ControllerIndexes.podsToClaim(pods, other.getMetadata(), selector)))
        .containsExactly("default/p");

    pods.update(pod("p").controlledBy(web, GroupVersionKind.REPLICA_SET).resourceVersion("2").build());
    assertThat(toClaim(web)).containsExactly("default/p");
    assertThat(ControllerIndexes.podsToClaim(pods, other.getMetadata(), selector))
        .as("once adopted by web, no one else sees it").isEmpty();
    assertThat(pods.byIndex(ControllerIndexes.POD_CONTROLLER_UID_INDEX, "_ORPHAN_POD/default")).isEmpty();
    assertThat(pods.byIndex(ControllerIndexes.ORPHAN_POD_LABELS_INDEX, "default/app=web")).isEmpty();

    pods.update(pod("p").resourceVersion("3").build());
    assertThat(names(ControllerIndexes.podsToClaim(pods, other.getMetadata(), selector)))
        .containsExactly("default/p");
    assertThat(pods.byIndex(ControllerIndexes.POD_CONTROLLER_UID_INDEX, "uid-web")).isEmpty();

    pods.delete(pods.getByKey("default/p").orElseThrow());
    assertThat(toClaim(web)).isEmpty();
    assertThat(pods.listIndexFuncValues(ControllerIndexes.POD_CONTROLLER_UID_INDEX)).isEmpty();
    assertThat(pods.listIndexFuncValues(ControllerIndexes.ORPHAN_POD_LABELS_INDEX)).isEmpty();
  }

  @Test
  void withoutTheIndexesTheLookupFailsRatherThanMissingPods() {
    ThreadSafeStore<Pod> plain = ThreadSafeStore.withNamespaceIndex();
    assertThatThrownBy(() -> ControllerIndexes.podsToClaim(plain, rs("web", "default").getMetadata(),
        Selector.fromSet(Map.of("app", "web")))).isInstanceOf(IllegalArgumentException.class);
  }

  /*
   * Writers adopt pods (all labelled app=web) into one of two owners, release them and delete and re-create them
   * while readers look the owners up: every read lists each pod at most once (a pod moving between the owner's key
   * and the orphan keys between two lookups included), and every pod it lists is the owner's or an orphan. At the
   * end each owner's list is exactly what the writers left.
   */
  @Test
  void lookupsStayConsistentWhileWritersAdoptReleaseAndDeletePods() throws Exception {
    ReplicaSet a = rs("a", "default");
    ReplicaSet b = rs("b", "default");
    Selector selector = Selector.fromSet(Map.of("app", "web"));
    int writers = 4;
    int podsPerWriter = 50;
    int operations = 4_000;
    ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger badReads = new AtomicInteger();
    AtomicInteger reads = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    // final owner per pod name ("" for orphan, null for deleted), one map per writer, confined to it
    List<Map<String, String>> finalOwners = new ArrayList<>();
    try {
      List<Future<?>> writes = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        Map<String, String> mine = new java.util.HashMap<>();
        finalOwners.add(mine);
        int writer = w;
        writes.add(pool.submit(() -> {
          go.await();
          java.util.Random random = new java.util.Random(writer);
          for (int op = 0; op < operations; op++) {
            String name = "w" + writer + "-" + random.nextInt(podsPerWriter);
            int action = random.nextInt(4);
            if (action == 0) {
              pods.getByKey("default/" + name).ifPresent(pods::delete);
              mine.put(name, null);
              continue;
            }
            PodFixture p = pod(name).resourceVersion(String.valueOf(op));
            if (action == 1) {
              p.controlledBy(a, GroupVersionKind.REPLICA_SET);
              mine.put(name, "a");
            } else if (action == 2) {
              p.controlledBy(b, GroupVersionKind.REPLICA_SET);
              mine.put(name, "b");
            } else {
              mine.put(name, "");
            }
            pods.update(p.build());
          }
          return null;
        }));
      }
      List<Future<?>> readers = new ArrayList<>();
      for (ReplicaSet owner : List.of(a, b)) {
        readers.add(pool.submit(() -> {
          go.await();
          while (writing.get()) {
            List<Pod> seen = ControllerIndexes.podsToClaim(pods, owner.getMetadata(), selector);
            Set<String> unique = new HashSet<>();
            for (Pod p : seen) {
              String controller = OwnerReferences.controllerOf(p).map(r -> r.getUid()).orElse("");
              if (!unique.add(p.getMetadata().getName())
                  || !(controller.isEmpty() || controller.equals(owner.getMetadata().getUid()))) {
                badReads.incrementAndGet();
              }
            }
            reads.incrementAndGet();
          }
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : writes) {
        f.get(60, TimeUnit.SECONDS);
      }
      writing.set(false);
      for (Future<?> f : readers) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(reads.get()).isPositive();
    assertThat(badReads.get()).isZero();
    for (String owner : List.of("a", "b")) {
      Set<String> expected = new HashSet<>();
      for (Map<String, String> mine : finalOwners) {
        mine.forEach((name, o) -> {
          if (o != null && (o.equals(owner) || o.isEmpty())) {
            expected.add("default/" + name);
          }
        });
      }
      assertThat(names(ControllerIndexes.podsToClaim(pods, rs(owner, "default").getMetadata(), selector)))
          .as("owner %s", owner).containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  @Test
  void controllersSharingAnInformerAddTheIndexOnceEvenConcurrently() throws Exception {
    KubernetesClient client = new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder().withMasterUrl("http://127.0.0.1:9").build()).build();
    try {
      SharedInformerFactory factory = new SharedInformerFactory(client);
      SharedIndexInformer<Pod> informer = factory.informerFor(Pod.class);
      int threads = 8;
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      CountDownLatch go = new CountDownLatch(1);
      try {
        List<Future<?>> calls = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
          calls.add(pool.submit(() -> {
            go.await();
            ControllerIndexes.ensurePodControllerUidIndex(informer);
            return null;
          }));
        }
        go.countDown();
        for (Future<?> f : calls) {
          f.get(30, TimeUnit.SECONDS); // a second addIndexers of the same name would throw here
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(informer.getIndexer().getIndexers()).containsKey(ControllerIndexes.POD_CONTROLLER_UID_INDEX);
      factory.shutdown();
    } finally {
      client.close();
    }
  }
}
