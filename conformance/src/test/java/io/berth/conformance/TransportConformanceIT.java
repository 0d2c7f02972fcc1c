package io.berth.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.component.ClientSettings;
import io.berth.component.KubeClients;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClient;
import io.vertx.core.Future;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The daemons' client transport ({@code KubeClients}) against the real kube-apiserver: HTTP/2 is negotiated, and
 * requests in flight at once share one connection, as client-go's do, where fabric8's default transport opens a
 * TLS connection per concurrent request. The requests go through the Vert.x client under the daemon's fabric8
 * client (its pool, its ALPN settings), to {@code /version}, as the admin.
 */
@ExtendWith(ControlPlaneExtension.class)
class TransportConformanceIT {

  private record Answer(HttpConnection connection, HttpVersion version, int status) {}

  @Test
  void concurrentRequestsShareOneHttp2Connection(ControlPlane plane) throws Exception {
    Config config = Config.fromKubeconfig(Files.readString(plane.kubeconfig("admin"), StandardCharsets.UTF_8));
    try (KubernetesClient client = KubeClients.create(config,
        new ClientSettings(Optional.empty(), -1, 0, "berth-transport-conformance"))) {
      HttpClient http = ((Vertx5HttpClient<?>) client.getHttpClient()).getHttpClient();
      String url = config.getMasterUrl().replaceAll("/$", "") + "/version";
      // authenticated, as the daemons are: kube-apiserver sends GOAWAY after each request of an anonymous HTTP/2
      // connection (its mitigation of HTTP/2 abuse by unauthenticated clients)
      String token = config.getAutoOAuthToken() != null ? config.getAutoOAuthToken() : config.getOauthToken();
      assertThat(token).isNotBlank();
      List<Future<Answer>> answers = new ArrayList<>();
      for (int i = 0; i < 32; i++) {
        answers.add(http.request(new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(url)
                .putHeader("Authorization", "Bearer " + token))
            .compose(request -> request.send().compose(response -> response.body()
                .map(body -> new Answer(request.connection(), response.version(), response.statusCode())))));
      }
      Map<HttpConnection, Boolean> connections = new IdentityHashMap<>();
      for (Future<Answer> future : answers) {
        Answer answer = future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.version()).isEqualTo(HttpVersion.HTTP_2);
        connections.put(answer.connection(), true);
      }
      assertThat(connections).hasSize(1);
      // and the fabric8 client on top works over it
      assertThat(client.getKubernetesVersion().getGitVersion()).startsWith("v1.");
    }
  }
}
