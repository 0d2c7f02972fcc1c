package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The experimental {@value ClientVertx#CLIENT_H2C} switch: the cluster's clients then speak HTTP/2 with prior
 * knowledge to the plain-HTTP server, and fabric8's calls work over it.
 */
class ClientH2cIT {

  /** The protocol a cluster client's request is answered with, the switch set to {@code h2c} while it starts. */
  private static HttpVersion protocolOfARequest(boolean h2c) throws Exception {
    String before = System.getProperty(ClientVertx.CLIENT_H2C);
    System.setProperty(ClientVertx.CLIENT_H2C, Boolean.toString(h2c));
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().start()) {
      KubernetesClient client = cluster.newClient();
      assertThat(client.namespaces().list().getItems()).extracting(n -> n.getMetadata().getName())
          .contains("default");
      io.vertx.core.http.HttpClient vertx = ((Vertx5HttpClient<?>) client.getHttpClient()).getHttpClient();
      String url = client.getMasterUrl().toString().replaceAll("/$", "") + "/api/v1/namespaces";
      HttpClientResponse response = vertx.request(new RequestOptions().setMethod(HttpMethod.GET)
          .setAbsoluteURI(url)).compose(r -> r.send()).toCompletionStage().toCompletableFuture()
          .get(30, TimeUnit.SECONDS);
      assertThat(response.statusCode()).isEqualTo(200);
      client.close();
      return response.version();
    } finally {
      if (before == null) {
        System.clearProperty(ClientVertx.CLIENT_H2C);
      } else {
        System.setProperty(ClientVertx.CLIENT_H2C, before);
      }
    }
  }

  @Test
  void withTheSwitchTheClientsSpeakHttp2() throws Exception {
    // without it they speak HTTP/1.1 (fabric8's default); every other test of the module runs that way
    assertThat(protocolOfARequest(true)).isEqualTo(HttpVersion.HTTP_2);
  }
}
