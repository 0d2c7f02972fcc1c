package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The TLS listener: the fabric8 client through the cluster's config and kubeconfig, CRUD and watches. */
class TlsIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(
      () -> EmbeddedCluster.builder().tls(true).rbac(true));

  @Test
  void clientsTrustTheServingCertificateAndWatchOverTls() throws Exception {
    assertThat(CLUSTER.cluster().url()).startsWith("https://127.0.0.1:");
    KubernetesClient client = CLUSTER.client();
    List<String> seen = new CopyOnWriteArrayList<>();
    try (Watch w = client.pods().inNamespace("default").watch(new Watcher<Pod>() {
      @Override
      public void eventReceived(Action action, Pod pod) {
        seen.add(action + " " + pod.getMetadata().getName());
      }

      @Override
      public void onClose(WatcherException cause) {
      }
    })) {
      client.pods().inNamespace("default").resource(Fixtures.pod("tls")).create();
      Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> seen.contains("ADDED tls"));
    }
    String kubeconfig = Files.readString(CLUSTER.cluster().kubeconfig());
    assertThat(kubeconfig).contains("certificate-authority-data: ");
    try (KubernetesClient fromFile = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig))
        .build()) {
      assertThat(fromFile.pods().inNamespace("default").withName("tls").get()).isNotNull();
    }
    try (KubernetesClient sa = CLUSTER.cluster().newClient(CLUSTER.cluster().authentication()
        .serviceAccountToken("default", "nobody"))) {
      try {
        sa.pods().inNamespace("default").list();
        throw new AssertionError("expected 403");
      } catch (KubernetesClientException e) {
        assertThat(e.getCode()).isEqualTo(403);
        assertThat(e.getStatus().getMessage()).contains("User \"system:serviceaccount:default:nobody\" cannot list");
      }
    }
  }
}
