package io.berth.informer;

import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * fabric8's mock API server in mixed mode: requests matching an expectation
 * ({@code server.expect().get().withPath(...)}, method and full path including the query) get the
 * scripted answer, everything else goes to the CRUD dispatcher. Keeps a log of every request.
 * Not thread-safe beyond what the mock server itself guarantees: use from the test thread.
 */
final class MockApiServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(MockApiServer.class);

  final KubernetesMockServer server;
  final NamespacedKubernetesClient client;

  private final List<String> requests = new ArrayList<>();

  MockApiServer() {
    Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
        new KubernetesMixedDispatcher(responses), false);
    server.init();
    client = server.createClient();
  }

  /** Every request received so far, as "METHOD path?query". */
  List<String> requests() throws InterruptedException {
    RecordedRequest request;
    while ((request = server.takeRequest(1, TimeUnit.MILLISECONDS)) != null) {
      requests.add(request.getMethod() + " " + request.getPath());
    }
    return new ArrayList<>(requests);
  }

  /** Requests whose path starts with {@code prefix} ("GET /api/v1/pods?"). */
  List<String> requests(String prefix) throws InterruptedException {
    return requests().stream().filter(r -> r.startsWith(prefix)).toList();
  }

  static String watchPath(String collection, String resourceVersion) {
    return collection + "?allowWatchBookmarks=true&resourceVersion=" + resourceVersion
        + "&timeoutSeconds=300&watch=true";
  }

  /**
   * Closes the client, then the server. The mock's shutdown waits at most 10 s for Vert.x to close its HTTP
   * server and throws when that wait fails (seen once in CI on a loaded 2-core machine, after every assertion of
   * the test had passed): that is a failure of the third-party server's teardown, not of the behaviour under test,
   * so it is logged with its cause instead of failing the test; the next test starts its own server on a new port.
   */
  @Override
  public void close() {
    client.close();
    try {
      server.destroy();
    } catch (IllegalStateException e) {
      LOG.warn("fabric8 mock server did not shut down cleanly", e);
    }
  }
}
