package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** JSON merge, strategic merge and JSON patches on the main resource and on status, as clients send them. */
class PatchIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  private static Pod twoContainers(String name) {
    return new PodBuilder(Fixtures.pod(name, Map.of("app", "patch", "drop", "me"))).editSpec()
        .addNewContainer().withName("sidecar").withImage("busybox:1.36").endContainer().endSpec().build();
  }

  @Test
  void jsonMergePatchNullRemovesTheKey() {
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(twoContainers("merge")).create();
    Pod patched = client.pods().withName("merge").patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"metadata\":{\"labels\":{\"drop\":null,\"added\":\"yes\"}}}");
    assertThat(patched.getMetadata().getLabels()).doesNotContainKey("drop").containsEntry("added", "yes")
        .containsEntry("app", "patch");
  }

  @Test
  void strategicMergePatchMergesContainersByName() {
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(twoContainers("smp")).create();
    Pod patched = client.pods().withName("smp").patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
        "{\"spec\":{\"containers\":[{\"name\":\"sidecar\",\"image\":\"busybox:1.37\"}]}}");
    assertThat(patched.getSpec().getContainers()).extracting(Container::getName, Container::getImage)
        .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("main", "nginx:1.27"),
            org.assertj.core.groups.Tuple.tuple("sidecar", "busybox:1.37"));
  }

  @Test
  void strategicMergePatchDeletesAContainerWithTheDirective() {
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(twoContainers("smp-delete")).create();
    Pod patched = client.pods().withName("smp-delete").patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
        "{\"spec\":{\"containers\":[{\"name\":\"sidecar\",\"$patch\":\"delete\"}]}}");
    assertThat(patched.getSpec().getContainers()).extracting(Container::getName).containsExactly("main");
  }

  @Test
  void strategicMergePatchOnStatusMergesConditionsByType() {
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(Fixtures.pod("conditions")).create();
    client.pods().withName("conditions").subresource("status").patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
        "{\"status\":{\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\"}]}}");
    Pod patched = client.pods().withName("conditions").subresource("status")
        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"}]}}");
    assertThat(patched.getStatus().getConditions()).extracting(PodCondition::getType)
        .containsExactlyInAnyOrder("PodScheduled", "Ready");
  }

  @Test
  void strategicMergePatchMergesOwnerReferencesByUid() {
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(new PodBuilder(Fixtures.pod("owned")).editMetadata().addNewOwnerReference()
        .withApiVersion("v1").withKind("ConfigMap").withName("a").withUid("uid-a").endOwnerReference()
        .endMetadata().build()).create();
    Pod patched = client.pods().withName("owned").patch(PatchContext.of(PatchType.STRATEGIC_MERGE),
        "{\"metadata\":{\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"rs\","
            + "\"uid\":\"uid-rs\",\"controller\":true,\"blockOwnerDeletion\":true}]}}");
    assertThat(patched.getMetadata().getOwnerReferences()).extracting(OwnerReference::getUid)
        .containsExactlyInAnyOrder("uid-a", "uid-rs");
  }

  @Test
  void jsonPatchFromEditApplies() {
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(Fixtures.pod("json-patch")).create();
    Pod edited = client.pods().withName("json-patch").edit(p -> new PodBuilder(p).editMetadata()
        .addToAnnotations("edited", "by-json-patch").endMetadata().build());
    assertThat(edited.getMetadata().getAnnotations()).containsEntry("edited", "by-json-patch");
    assertThat(CLUSTER.cluster().requestLog().count("patch", "pods")).isPositive();
  }

  @Test
  void anUnknownPatchContentTypeIsUnsupportedMediaType() {
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(Fixtures.pod("media")).create();
    var http = java.net.http.HttpClient.newHttpClient();
    var response = assertThatNoException(() -> http.send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create(CLUSTER.cluster().url() + "/api/v1/namespaces/default/pods/media"))
        .method("PATCH", java.net.http.HttpRequest.BodyPublishers.ofString("{}"))
        .header("Content-Type", "application/x-unknown").build(), java.net.http.HttpResponse.BodyHandlers.ofString()));
    assertThat(response.statusCode()).isEqualTo(415);
    assertThat(response.body()).contains("UnsupportedMediaType");
  }

  @Test
  void aPatchThatCannotApplyIsUnprocessable() {
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(Fixtures.pod("bad-json-patch")).create();
    assertThatThrownBy(() -> client.pods().withName("bad-json-patch").patch(PatchContext.of(PatchType.JSON),
        "[{\"op\":\"remove\",\"path\":\"/metadata/annotations/missing\"}]"))
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(422));
  }

  private static <T> T assertThatNoException(java.util.concurrent.Callable<T> call) {
    try {
      return call.call();
    } catch (Exception e) {
      throw new AssertionError("unexpected exception", e);
    }
  }
}
