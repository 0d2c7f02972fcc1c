package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * The global default PriorityClass a pod create resolves (remembered between PriorityClass writes): every class
 * write is seen by the next create, and creates racing class writes on 4 threads each get a default that existed.
 */
class GlobalDefaultPriorityClassTest {

  private final ResourceOperations ops = new ResourceOperations(new ObjectStore(100_000),
      new DefaultServerHooks(Clock.systemUTC()), Clock.systemUTC());

  GlobalDefaultPriorityClassTest() {
    ObjectNode ns = Json.object();
    ns.putObject("metadata").put("name", "default");
    ops.create(ResourceTypes.NAMESPACES, "", ns);
  }

  private void putClass(String name, int value, boolean globalDefault) {
    ObjectNode pc = Json.object();
    pc.put("apiVersion", "scheduling.k8s.io/v1").put("kind", "PriorityClass");
    pc.putObject("metadata").put("name", name);
    pc.put("value", value).put("globalDefault", globalDefault);
    if (ops.store().get(ResourceTypes.PRIORITY_CLASSES, "", name).isPresent()) {
      ops.update(ResourceTypes.PRIORITY_CLASSES, "", name, pc, false);
    } else {
      ops.create(ResourceTypes.PRIORITY_CLASSES, "", pc);
    }
  }

  private ObjectNode createPod(String name) {
    ObjectNode pod = Json.object();
    pod.putObject("metadata").put("name", name);
    pod.putObject("spec").putArray("containers").addObject().put("name", "c").put("image", "pause");
    return ops.create(ResourceTypes.PODS, "default", pod).tree();
  }

  private static String className(ObjectNode pod) {
    return Json.text(pod, "spec", "priorityClassName");
  }

  @Test
  void everyPriorityClassWriteIsSeenByTheNextCreate() {
    assertThat(className(createPod("a"))).isNull();
    putClass("low", 10, true);
    ObjectNode b = createPod("b");
    assertThat(className(b)).isEqualTo("low");
    assertThat(b.path("spec").path("priority").asInt()).isEqualTo(10);
    putClass("lower", 5, true);
    assertThat(className(createPod("c"))).isEqualTo("lower");
    ops.delete(ResourceTypes.PRIORITY_CLASSES, "", "lower", DeleteOptions.withGracePeriod(0));
    assertThat(className(createPod("d"))).isEqualTo("low");
    putClass("low", 10, false);
    assertThat(className(createPod("e"))).isNull();
  }

  @Test
  void aRemovalThatFindsNothingDoesNotHideTheNextClassWrite() {
    putClass("plain", 1, false);
    ops.store().write(() -> ops.store().remove(ResourceTypes.PRIORITY_CLASSES, "", "never-stored"));
    // a create refused after admission (no containers): it looks the default up and stores nothing
    ObjectNode invalid = Json.object();
    invalid.putObject("metadata").put("name", "invalid");
    invalid.putObject("spec");
    assertThatThrownBy(() -> ops.create(ResourceTypes.PODS, "default", invalid))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(422));
    // this class write takes the next resourceVersion, the one the missed removal did not use
    putClass("first", 7, true);
    assertThat(className(createPod("a"))).isEqualTo("first");
  }

  @Test
  void createsRacingClassWritesGetADefaultThatExisted() throws Exception {
    putClass("base", 1, true);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    AtomicBoolean toggling = new AtomicBoolean(true);
    CountDownLatch go = new CountDownLatch(1);
    // the class writes start once every creator has created a pod, so that they overlap whatever the load
    CountDownLatch creating = new CountDownLatch(4);
    List<Future<List<String>>> creators = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int id = t;
      creators.add(pool.submit(() -> {
        go.await();
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 20 || toggling.get(); i++) {
          seen.add(className(createPod("p-" + id + "-" + i)));
          creating.countDown();
        }
        return seen;
      }));
    }
    go.countDown();
    assertThat(creating.await(1, TimeUnit.MINUTES)).isTrue();
    for (int round = 0; round < 200; round++) {
      putClass("override", 0, round % 2 == 0);
    }
    toggling.set(false);
    List<String> all = new ArrayList<>();
    for (Future<List<String>> f : creators) {
      all.addAll(f.get(2, TimeUnit.MINUTES));
    }
    pool.shutdown();
    assertThat(all).isNotEmpty().allMatch(c -> c.equals("base") || c.equals("override"));
    // the last write left "override" without globalDefault: from now on every create gets "base"
    assertThat(className(createPod("after"))).isEqualTo("base");
    putClass("override", 0, true);
    assertThat(className(createPod("after-2"))).isEqualTo("override");
  }
}
