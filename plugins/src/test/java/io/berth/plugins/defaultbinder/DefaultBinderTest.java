package io.berth.plugins.defaultbinder;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

/** The Binding body DefaultBinder writes by hand reads back as the Binding fabric8 would have sent. */
class DefaultBinderTest {
  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  @Test
  void theBindingBodyNamesThePodItsUidAndTheNode() {
    Binding b = JSON.unmarshal(DefaultBinder.bindingJson("ns", "web-0", "3f1c-uid", "node-7"), Binding.class);
    assertThat(b.getApiVersion()).isEqualTo("v1");
    assertThat(b.getKind()).isEqualTo("Binding");
    assertThat(b.getMetadata().getNamespace()).isEqualTo("ns");
    assertThat(b.getMetadata().getName()).isEqualTo("web-0");
    assertThat(b.getMetadata().getUid()).isEqualTo("3f1c-uid");
    assertThat(b.getTarget().getKind()).isEqualTo("Node");
    assertThat(b.getTarget().getName()).isEqualTo("node-7");
  }

  @Test
  void stringsAreEscapedAndAMissingUidIsLeftOut() {
    String odd = "a\"b\\c\nd\u0001";
    Binding b = JSON.unmarshal(DefaultBinder.bindingJson("ns", odd, null, odd), Binding.class);
    assertThat(b.getMetadata().getName()).isEqualTo(odd);
    assertThat(b.getTarget().getName()).isEqualTo(odd);
    assertThat(b.getMetadata().getUid()).isNull();
    assertThat(DefaultBinder.bindingJson("ns", "p", null, "n")).doesNotContain("uid");
  }

  /** An ApiCacher whose bindings end as the test says, without running the request. */
  private static io.berth.framework.ApiCacher cacher(
      java.util.concurrent.CompletableFuture<io.berth.framework.ApiCacher.Outcome> result,
      java.util.List<String> bound) {
    return new io.berth.framework.ApiCacher() {
      @Override
      public java.util.concurrent.CompletionStage<Outcome> patchPodStatus(
          io.fabric8.kubernetes.api.model.Pod pod,
          java.util.Optional<io.fabric8.kubernetes.api.model.PodCondition> condition,
          io.berth.framework.NominatingInfo nominating) {
        throw new AssertionError("no patches");
      }

      @Override
      public java.util.concurrent.CompletionStage<Outcome> bindPod(
          io.fabric8.kubernetes.api.model.Pod pod, String nodeName,
          java.util.function.Supplier<io.berth.framework.Status> binding) {
        bound.add(pod.getMetadata().getName() + "->" + nodeName);
        return result;
      }
    };
  }

  private static io.fabric8.kubernetes.api.model.Pod pod() {
    return new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata().withName("web-0")
        .withNamespace("ns").withUid("u").endMetadata().build();
  }

  @Test
  void withTheDispatcherTheBindingIsQueuedAndItsFailureIsTheStatus() {
    java.util.List<String> bound = new java.util.ArrayList<>();
    var failed = new java.util.concurrent.CompletableFuture<io.berth.framework.ApiCacher.Outcome>();
    failed.completeExceptionally(new io.berth.framework.StatusException(
        io.berth.framework.Status.error("binding pod ns/web-0 to node n1: HTTP 409: conflict")));
    var handle = new io.berth.framework.testing.TestHandle().withApiCacher(cacher(failed, bound));
    var binder = (DefaultBinder) DefaultBinder.create(java.util.Map.of(), handle);

    var status = binder.bind(new io.berth.framework.CycleState(), pod(), "n1");

    assertThat(bound).containsExactly("web-0->n1");
    assertThat(status.isSuccess()).isFalse();
    assertThat(status.message()).isEqualTo("binding pod ns/web-0 to node n1: HTTP 409: conflict");
  }

  @Test
  void withTheDispatcherASkippedOrOverwrittenBindingIsSuccessAsUpstream() {
    for (var outcome : io.berth.framework.ApiCacher.Outcome.values()) {
      var handle = new io.berth.framework.testing.TestHandle().withApiCacher(cacher(
          java.util.concurrent.CompletableFuture.completedFuture(outcome),
          new java.util.ArrayList<>()));
      var binder = (DefaultBinder) DefaultBinder.create(java.util.Map.of(), handle);

      assertThat(binder.bind(new io.berth.framework.CycleState(), pod(), "n1").isSuccess())
          .as(outcome.name()).isTrue();
    }
  }
}
