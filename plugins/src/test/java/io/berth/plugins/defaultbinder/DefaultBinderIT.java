package io.berth.plugins.defaultbinder;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.embedded.EmbeddedClusterExtension;
import io.berth.framework.BindPlugin;
import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * DefaultBinder over real HTTP against the embedded API server: a bound pod gets its node, and every refusal (404
 * pod gone, 409 already bound or another uid, 403, an injected 4xx) is an Error status carrying the server's code
 * and message, as before the answer's body stopped being read on success.
 */
class DefaultBinderIT {
  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  private static BindPlugin binder(KubernetesClient client) {
    return (BindPlugin) DefaultBinder.create(Map.of(), new TestHandle().withClient(client));
  }

  private static Pod create(KubernetesClient client, String name) {
    return client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName(name)
        .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("busybox").endContainer()
        .endSpec().build()).create();
  }

  @Test
  void bindsThePodToTheNode() {
    KubernetesClient client = CLUSTER.client();
    Pod pod = create(client, "bind-ok");
    Status status = binder(client).bind(new CycleState(), pod, "node-a");
    assertThat(status.isSuccess()).as(status.message()).isTrue();
    assertThat(client.pods().inNamespace("default").withName("bind-ok").get().getSpec().getNodeName())
        .isEqualTo("node-a");
  }

  @Test
  void aPodThatIsGoneIsAnErrorWithTheServers404() {
    KubernetesClient client = CLUSTER.client();
    Pod pod = create(client, "bind-gone");
    client.pods().inNamespace("default").withName("bind-gone").withGracePeriod(0).delete();
    Status status = binder(client).bind(new CycleState(), pod, "node-a");
    assertThat(status.code()).isEqualTo(Code.ERROR);
    assertThat(status.message()).contains("default/bind-gone").contains("HTTP 404").contains("not found");
  }

  @Test
  void aSecondBindingIsAnErrorWithTheServers409AndLeavesTheFirstNode() {
    KubernetesClient client = CLUSTER.client();
    Pod pod = create(client, "bind-twice");
    BindPlugin binder = binder(client);
    assertThat(binder.bind(new CycleState(), pod, "node-a").isSuccess()).isTrue();
    Status again = binder.bind(new CycleState(), pod, "node-b");
    assertThat(again.code()).isEqualTo(Code.ERROR);
    assertThat(again.message()).contains("HTTP 409").contains("already assigned to node \\\"node-a\\\"");
    assertThat(client.pods().inNamespace("default").withName("bind-twice").get().getSpec().getNodeName())
        .isEqualTo("node-a");
  }

  @Test
  void aPodRecreatedUnderTheSameNameIsNotBoundByTheOldUid() {
    KubernetesClient client = CLUSTER.client();
    Pod old = create(client, "bind-uid");
    client.pods().inNamespace("default").withName("bind-uid").withGracePeriod(0).delete();
    create(client, "bind-uid");
    Status status = binder(client).bind(new CycleState(), old, "node-a");
    assertThat(status.message()).contains("HTTP 409").contains("UID in precondition");
    assertThat(client.pods().inNamespace("default").withName("bind-uid").get().getSpec().getNodeName()).isNull();
  }

  @Test
  void refusalsCarryTheServersCodeAndMessage() {
    KubernetesClient client = CLUSTER.client();
    Pod pod = create(client, "bind-refused");
    BindPlugin binder = binder(client);
    for (int code : new int[] {403, 422}) {
      CLUSTER.cluster().faults().failNext("create", "pods/binding", 1, code);
      Status status = binder.bind(new CycleState(), pod, "node-a");
      assertThat(status.code()).isEqualTo(Code.ERROR);
      assertThat(status.message()).contains("HTTP " + code).contains("injected fault: " + code);
    }
    assertThat(client.pods().inNamespace("default").withName("bind-refused").get().getSpec().getNodeName())
        .isNull();
    assertThat(binder.bind(new CycleState(), pod, "node-a").isSuccess()).isTrue();
  }
}
