package io.berth.embedded;

import io.berth.embedded.controllers.GarbageCollector;
import io.berth.embedded.fault.FaultInjector;
import io.berth.embedded.fault.RequestLog;
import io.berth.embedded.kubelet.KubeletSettings;
import io.berth.embedded.kubelet.SimulatedKubelet;
import io.berth.embedded.server.ApiServer;
import io.berth.embedded.server.DefaultServerHooks;
import io.berth.embedded.server.Json;
import io.berth.embedded.server.ObjectStore;
import io.berth.embedded.server.ResourceOperations;
import io.berth.embedded.server.ResourceTypes;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * An in-process Kubernetes API server with simulated nodes and kubelet, for integration tests and the simulator.
 * It completes the fabric8 mock server (whose HTTP/WebSocket transport it uses) with the API server behaviour the
 * daemons rely on: binding and eviction, watches that resume from a resourceVersion with bookmarks and 410 Gone,
 * pagination, label and field selectors, JSON merge and strategic merge patches, status subresources, garbage
 * collection, API defaults, graceful pod deletion, discovery for kubectl. Start with {@link #builder()}; close to
 * stop.
 *
 * <p>Thread-safe after {@link Builder#start()}. {@link #client()} is shared and closed with the cluster.
 */
public final class EmbeddedCluster implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedCluster.class);

  /** Namespaces that exist from the start, as in a new cluster. */
  public static final List<String> INITIAL_NAMESPACES =
      List.of("default", "kube-system", "kube-public", "kube-node-lease");

  private final ApiServer server;
  private final GarbageCollector garbageCollector;
  private final SimulatedKubelet kubelet;
  private final SimulatedNodes nodes;
  private final Path kubeconfig;
  private volatile KubernetesClient client;

  private EmbeddedCluster(Builder b) {
    this.server = new ApiServer(new ApiServer.Settings(b.host, b.port, b.historyCapacity, b.bookmarkInterval,
        b.defaultWatchTimeout, Duration.ofMinutes(5), 100_000), new DefaultServerHooks(b.clock), b.clock);
    ResourceOperations ops = server.operations();
    this.garbageCollector = new GarbageCollector(ops);
    this.kubelet = new SimulatedKubelet(ops, b.kubelet);
    this.nodes = new SimulatedNodes(ops);
    bootstrap(ops);
    server.start();
    this.kubeconfig = writeKubeconfig(b.kubeconfig);
    LOG.info("embedded API server listening on {} (kubeconfig {})", server.url(), kubeconfig);
  }

  private static void bootstrap(ResourceOperations ops) {
    for (String ns : INITIAL_NAMESPACES) {
      ObjectNode namespace = Json.object();
      namespace.putObject("metadata").put("name", ns);
      ops.create(ResourceTypes.NAMESPACES, "", namespace);
    }
    createPriorityClass(ops, "system-node-critical", 2_000_001_000);
    createPriorityClass(ops, "system-cluster-critical", 2_000_000_000);
  }

  private static void createPriorityClass(ResourceOperations ops, String name, int value) {
    ObjectNode pc = Json.object();
    pc.putObject("metadata").put("name", name);
    pc.put("value", value);
    pc.put("description", "Used for system critical pods that must run in the cluster.");
    pc.put("preemptionPolicy", "PreemptLowerPriority");
    ops.create(ResourceTypes.PRIORITY_CLASSES, "", pc);
  }

  private Path writeKubeconfig(Path requested) {
    try {
      Path file = requested != null ? requested : Files.createTempFile("berth-embedded-", ".kubeconfig");
      if (requested == null) {
        file.toFile().deleteOnExit();
      }
      String yaml = """
          apiVersion: v1
          kind: Config
          clusters:
          - name: berth-embedded
            cluster:
              server: %s
          contexts:
          - name: berth-embedded
            context:
              cluster: berth-embedded
              user: berth
              namespace: default
          current-context: berth-embedded
          users:
          - name: berth
            user: {}
          """.formatted(server.url());
      Files.writeString(file, yaml);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("could not write the embedded cluster's kubeconfig", e);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The API server's base URL ({@code http://127.0.0.1:PORT}). */
  public String url() {
    return server.url();
  }

  public int port() {
    return server.port();
  }

  /** A kubeconfig file pointing at this cluster, for kubectl and the daemons. */
  public Path kubeconfig() {
    return kubeconfig;
  }

  /** A fabric8 client configuration for this cluster (namespace {@code default}), not reading ~/.kube. */
  public Config clientConfig() {
    return new ConfigBuilder(Config.empty()).withMasterUrl(url()).withNamespace("default")
        .withRequestRetryBackoffLimit(0).withConnectionTimeout(10_000).withRequestTimeout(30_000).build();
  }

  /** A new client for this cluster; the caller closes it. */
  public KubernetesClient newClient() {
    return new KubernetesClientBuilder().withConfig(clientConfig()).build();
  }

  /** A client shared by the callers of this method, closed with the cluster. */
  public KubernetesClient client() {
    KubernetesClient c = client;
    if (c == null) {
      synchronized (this) {
        if (client == null) {
          client = newClient();
        }
        c = client;
      }
    }
    return c;
  }

  public SimulatedNodes nodes() {
    return nodes;
  }

  public SimulatedKubelet kubelet() {
    return kubelet;
  }

  public FaultInjector faults() {
    return server.faults();
  }

  public RequestLog requestLog() {
    return server.requestLog();
  }

  /** The storage, for assertions and benchmarks that bypass HTTP. */
  public ObjectStore store() {
    return server.store();
  }

  /** The server's write operations, for in-process callers that bypass HTTP. */
  public ResourceOperations operations() {
    return server.operations();
  }

  /** Drops the watch history, so that every watch resuming from an older resourceVersion gets 410 Gone. */
  public void compactHistory() {
    server.store().compactHistory();
  }

  public ApiServer server() {
    return server;
  }

  @Override
  public void close() {
    KubernetesClient c = client;
    if (c != null) {
      c.close();
    }
    kubelet.close();
    garbageCollector.close();
    server.stop();
  }

  /** Options for a new cluster; not thread-safe. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port;
    private int historyCapacity = 20_000;
    private Duration bookmarkInterval = Duration.ofSeconds(10);
    private Duration defaultWatchTimeout = Duration.ofMinutes(30);
    private KubeletSettings kubelet = KubeletSettings.defaults();
    private Clock clock = Clock.systemUTC();
    private Path kubeconfig;

    private Builder() {
    }

    /** Port to listen on; 0 (the default) picks a free one. */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    public Builder host(String host) {
      this.host = host;
      return this;
    }

    /** How many events per resource type a watch can resume through before it gets 410 Gone. */
    public Builder historyCapacity(int events) {
      this.historyCapacity = events;
      return this;
    }

    /** How often watches that allow bookmarks get one. */
    public Builder bookmarkInterval(Duration interval) {
      this.bookmarkInterval = interval;
      return this;
    }

    /** How long a watch without {@code timeoutSeconds} lasts. */
    public Builder defaultWatchTimeout(Duration timeout) {
      this.defaultWatchTimeout = timeout;
      return this;
    }

    public Builder kubelet(KubeletSettings settings) {
      this.kubelet = settings;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** Where to write the kubeconfig; a temporary file by default. */
    public Builder kubeconfig(Path file) {
      this.kubeconfig = file;
      return this;
    }

    public EmbeddedCluster start() {
      return new EmbeddedCluster(this);
    }
  }
}
