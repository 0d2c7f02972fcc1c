package io.berth.scheduler.debug;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.ObjectEventHandler;
import io.berth.framework.ObjectLister;
import io.berth.framework.runtime.ListerProvider;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** A simulation's plugin handler is handed the pods listed now and never reaches the daemon's informer. */
class ReadOnlyListersTest {

  @Test
  void aHandlerGetsTheListedObjectsOnceAndIsNotRegistered() {
    List<Pod> pods = new ArrayList<>(List.of(pod("a"), pod("b")));
    AtomicInteger registered = new AtomicInteger();
    ListerProvider daemon = new ListerProvider() {
      @Override
      @SuppressWarnings("unchecked")
      public <T extends HasMetadata> ObjectLister<T> lister(Class<T> type) {
        return new ObjectLister<>() {
          @Override
          public List<T> list() {
            return (List<T>) List.copyOf(pods);
          }

          @Override
          public List<T> list(String namespace) {
            return list();
          }

          @Override
          public Optional<T> get(String namespace, String name) {
            return Optional.empty();
          }
        };
      }

      @Override
      public <T extends HasMetadata> BooleanSupplier addEventHandler(Class<T> type,
          ObjectEventHandler<T> handler) {
        registered.incrementAndGet();
        return () -> false;
      }
    };
    List<String> seen = new ArrayList<>();
    BooleanSupplier synced = new ReadOnlyListers(daemon).addEventHandler(Pod.class,
        new ObjectEventHandler<>() {
          @Override
          public void onAdd(Pod obj) {
            seen.add(obj.getMetadata().getName());
          }

          @Override
          public void onUpdate(Pod oldObj, Pod newObj) {
            seen.add("update " + newObj.getMetadata().getName());
          }

          @Override
          public void onDelete(Pod obj) {
            seen.add("delete " + obj.getMetadata().getName());
          }
        });
    pods.add(pod("c"));
    assertThat(seen).containsExactly("a", "b");
    assertThat(synced.getAsBoolean()).isTrue();
    assertThat(registered).as("the daemon's informer got no handler").hasValue(0);
    assertThat(new ReadOnlyListers(ListerProvider.NONE).addEventHandler(Pod.class, null).getAsBoolean())
        .as("no informers: nothing to hand").isTrue();
  }

  private static Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).endMetadata().build();
  }
}
