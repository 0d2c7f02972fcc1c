package io.berth.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ControllerRegistryTest {

  private static final ControllerFactory NONE = context -> {
    throw new UnsupportedOperationException();
  };

  @Test
  void namesAreSortedAndFactoriesFound() {
    ControllerRegistry registry = new ControllerRegistry().register("replicaset", NONE).register("deployment", NONE);
    assertThat(registry.names()).containsExactly("deployment", "replicaset");
    assertThat(registry.factory("replicaset")).containsSame(NONE);
    assertThat(registry.factory("statefulset")).isEmpty();
  }

  @Test
  void aNameIsRegisteredOnce() {
    ControllerRegistry registry = new ControllerRegistry().register("replicaset", NONE);
    assertThatThrownBy(() -> registry.register("replicaset", NONE)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("already registered");
  }

  @Test
  void namesMustBeUsableInTheControllersFlag() {
    ControllerRegistry registry = new ControllerRegistry();
    for (String bad : List.of("", "*", "-replicaset", "Replica", "a,b", "a b", "x-")) {
      assertThatThrownBy(() -> registry.register(bad, NONE)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void theBuiltInRegistryIsANewInstanceEachTime() {
    ControllerRegistry a = ControllerRegistry.builtIn();
    a.register("only-here", NONE);
    assertThat(ControllerRegistry.builtIn().names()).doesNotContain("only-here");
  }

  @Test
  void concurrentRegistrationsAreAllKeptAndDuplicatesRejectedOnce() throws Exception {
    ControllerRegistry registry = new ControllerRegistry();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        String name = "c" + (i % 100); // every name twice
        results.add(pool.submit(() -> {
          go.await();
          try {
            registry.register(name, NONE);
            return true;
          } catch (IllegalArgumentException e) {
            return false;
          }
        }));
      }
      go.countDown();
      int accepted = 0;
      for (Future<Boolean> f : results) {
        accepted += f.get(10, TimeUnit.SECONDS) ? 1 : 0;
      }
      assertThat(accepted).isEqualTo(100);
      assertThat(registry.names()).hasSize(100);
    } finally {
      pool.shutdownNow();
    }
  }
}
