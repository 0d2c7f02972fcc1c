package io.berth.conformance;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The side-by-side's floor: a "scheduler" that does no scheduling. It watches the pending pods of one
 * {@code schedulerName} and, for each, POSTs a {@code v1.Binding} to the next node in round-robin order and then a
 * {@code Scheduled} events.k8s.io/v1 Event, the two writes kube-scheduler and Berth make per pod. What it reaches on
 * the real control plane is what the API server, etcd, kwok and the harness leave for any scheduler on this machine:
 * no scheduler that makes the same requests can bind faster than this floor binds. The nodes are read once at start
 * and must all have room (scheduler_perf's shape does: 5 pods per node of 40 by CPU).
 *
 * <p>A CLI main run as its own process by {@link SideBySideRun} ({@code --kubeconfig FILE --scheduler-name NAME});
 * it runs until killed. The informer's handler only starts requests; at most {@value #IN_FLIGHT} are in flight, held
 * by a semaphore; a failed binding is logged and retried once, then left.
 */
public final class NullBinder {

  private static final Logger LOG = LoggerFactory.getLogger(NullBinder.class);
  private static final int IN_FLIGHT = 64;
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private final KubernetesClient client;
  private final HttpClient http;
  private final String base;
  private final List<String> nodes;
  private final AtomicLong next = new AtomicLong();
  private final Semaphore inFlight = new Semaphore(IN_FLIGHT);
  private final String instance = "bind-only-" + ProcessHandle.current().pid();

  private NullBinder(KubernetesClient client) {
    this.client = client;
    this.http = client.getHttpClient();
    String url = client.getMasterUrl().toString();
    this.base = url.endsWith("/") ? url : url + "/";
    this.nodes = client.nodes().list().getItems().stream().map(n -> n.getMetadata().getName()).sorted().toList();
    if (nodes.isEmpty()) {
      throw new IllegalStateException("bind-only: the cluster has no nodes to bind to");
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4 || !args[0].equals("--kubeconfig") || !args[2].equals("--scheduler-name")) {
      System.err.println("usage: NullBinder --kubeconfig FILE --scheduler-name NAME");
      System.exit(2);
    }
    Config config = Config.fromKubeconfig(Files.readString(Path.of(args[1]), StandardCharsets.UTF_8));
    config.setMaxConcurrentRequests(IN_FLIGHT);
    config.setMaxConcurrentRequestsPerHost(IN_FLIGHT);
    KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
    NullBinder binder = new NullBinder(client);
    client.pods().inAnyNamespace().withFields(Map.of("spec.schedulerName", args[3], "spec.nodeName", ""))
        .inform(new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod pod) {
            binder.bind(pod, 0);
          }

          @Override
          public void onUpdate(Pod oldPod, Pod newPod) {
            // a pending pod's update changes nothing here
          }

          @Override
          public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
            // bound (it left the selector) or deleted
          }
        });
    LOG.info("bind-only: binding the pods of schedulerName {} to {} nodes, round robin", args[3],
        binder.nodes.size());
    new CountDownLatch(1).await();
  }

  private void bind(Pod pod, int attempt) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    String node = nodes.get((int) (next.getAndIncrement() % nodes.size()));
    inFlight.acquireUninterruptibly();
    post(base + "api/v1/namespaces/" + ns + "/pods/" + name + "/binding", binding(pod, node))
        .thenCompose(bound -> {
          if (bound.isSuccessful()) {
            return post(base + "apis/events.k8s.io/v1/namespaces/" + ns + "/events", scheduledEvent(pod, node));
          }
          LOG.warn("bind-only: binding {}/{} to {}: HTTP {}: {}", ns, name, node, bound.code(), bound.body());
          if (attempt == 0 && bound.code() != 409) {
            CompletableFuture.runAsync(() -> bind(pod, 1));
          }
          return CompletableFuture.completedFuture(bound);
        })
        .whenComplete((answer, error) -> {
          inFlight.release();
          if (error != null) {
            LOG.warn("bind-only: {}/{}: {}", ns, name, error.toString());
          } else if (!answer.isSuccessful() && answer.request().uri().getPath().endsWith("/events")) {
            LOG.warn("bind-only: the Scheduled event of {}/{}: HTTP {}: {}", ns, name, answer.code(), answer.body());
          }
        });
  }

  private CompletableFuture<HttpResponse<String>> post(String uri, String json) {
    HttpRequest request = http.newHttpRequestBuilder().uri(URI.create(uri)).post("application/json", json).build();
    return http.sendAsync(request, String.class);
  }

  /** The v1 Binding of {@code pod} to {@code node}, with the pod's UID as a precondition. */
  private static String binding(Pod pod, String node) {
    ObjectNode b = JSON.createObjectNode().put("apiVersion", "v1").put("kind", "Binding");
    b.putObject("metadata").put("name", pod.getMetadata().getName())
        .put("namespace", pod.getMetadata().getNamespace()).put("uid", pod.getMetadata().getUid());
    b.putObject("target").put("kind", "Node").put("name", node);
    return JSON.writeValueAsString(b);
  }

  /** The events.k8s.io/v1 {@code Scheduled} event both schedulers write, with this binder as reporter. */
  private String scheduledEvent(Pod pod, String node) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    ObjectNode e = JSON.createObjectNode().put("apiVersion", "events.k8s.io/v1").put("kind", "Event");
    e.putObject("metadata").put("name", name + "." + Long.toHexString(System.nanoTime())).put("namespace", ns);
    e.put("eventTime", MICRO_TIME.format(Instant.now())).put("reportingController", "bind-only")
        .put("reportingInstance", instance).put("action", "Binding").put("reason", "Scheduled").put("type", "Normal")
        .put("note", "Successfully assigned " + ns + "/" + name + " to " + node);
    e.putObject("regarding").put("apiVersion", "v1").put("kind", "Pod").put("namespace", ns).put("name", name)
        .put("uid", pod.getMetadata().getUid());
    return JSON.writeValueAsString(e);
  }
}
