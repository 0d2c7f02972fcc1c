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
}
