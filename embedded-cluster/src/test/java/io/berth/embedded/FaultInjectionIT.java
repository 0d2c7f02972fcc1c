package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.embedded.fault.RequestRecord;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Injected failures and latency per verb and resource, and the request log. */
class FaultInjectionIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  @AfterEach
  void clear() {
    CLUSTER.cluster().faults().clear();
  }

  @Test
  void theNextRequestsOfAVerbAndResourceFailWithTheGivenCode() {
    KubernetesClient client = CLUSTER.client();
    CLUSTER.cluster().faults().failNext("create", "pods", 2, 503);
    assertThatThrownBy(() -> client.pods().resource(Fixtures.pod("f1")).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(503));
    client.configMaps().resource(new io.fabric8.kubernetes.api.model.ConfigMapBuilder().withNewMetadata()
        .withName("unaffected").endMetadata().build()).create();
    assertThatThrownBy(() -> client.pods().resource(Fixtures.pod("f2")).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(503));
    assertThat(client.pods().resource(Fixtures.pod("f3")).create()).isNotNull();
  }

  @Test
  void subresourceFaultsMatchOnlyTheSubresource() {
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(Fixtures.pod("sub")).create();
    CLUSTER.cluster().faults().failNext("create", "pods/binding", 1, 500);
    assertThat(client.pods().resource(Fixtures.pod("sub-2")).create()).isNotNull();
    String binding = "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"sub\"},"
        + "\"target\":{\"kind\":\"Node\",\"name\":\"n1\"}}";
    String url = CLUSTER.cluster().url() + "/api/v1/namespaces/default/pods/sub/binding";
    assertThatThrownBy(() -> client.raw(url, "POST", binding)).isInstanceOf(KubernetesClientException.class);
    assertThat(client.pods().withName("sub").get().getSpec().getNodeName()).isNull();
    assertThat(client.raw(url, "POST", binding)).contains("Success");
  }

  @Test
  void latencyDelaysTheMatchingResponses() {
    KubernetesClient client = CLUSTER.client();
    client.pods().resource(Fixtures.pod("slow")).create();
    CLUSTER.cluster().faults().addLatency("get", "pods", Duration.ofMillis(400));
    long start = System.nanoTime();
    assertThat(client.pods().withName("slow").get()).isNotNull();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(350));
  }

  @Test
  void theRequestLogRecordsVerbResourceSubresourceAndNamespace() {
    KubernetesClient client = CLUSTER.client();
    CLUSTER.cluster().requestLog().clear();
    client.pods().resource(Fixtures.pod("logged")).create();
    client.pods().withName("logged").get();
    client.pods().inNamespace("kube-system").list();
    assertThat(CLUSTER.cluster().requestLog().entries()).extracting(RequestRecord::verb,
        RequestRecord::resourcePath, RequestRecord::namespace).contains(
        org.assertj.core.groups.Tuple.tuple("create", "pods", "default"),
        org.assertj.core.groups.Tuple.tuple("get", "pods", "default"),
        org.assertj.core.groups.Tuple.tuple("list", "pods", "kube-system"));
  }
}
