package io.berth.embedded;

import io.berth.embedded.auth.BootstrapPolicy;
import io.berth.embedded.auth.DecisionLog;
import io.berth.embedded.auth.RbacAuthorizer;
import io.berth.embedded.auth.TokenAuthenticator;
import io.berth.embedded.controllers.GarbageCollector;
import io.berth.embedded.fault.FaultInjector;
import io.berth.embedded.fault.RequestLog;
import io.berth.embedded.kubelet.KubeletSettings;
import io.berth.embedded.kubelet.SimulatedKubelet;
import io.berth.embedded.server.ApiServer;
import io.berth.embedded.server.DefaultServerHooks;
import io.berth.embedded.server.Json;
import io.berth.embedded.server.ObjectStore;
import io.berth.embedded.server.ApiException;
import io.berth.embedded.server.ResourceOperations;
import io.berth.embedded.server.ResourceType;
import io.berth.embedded.server.ResourceTypes;
import io.berth.embedded.server.StoredObject;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * An in-process Kubernetes API server with simulated nodes and kubelet, for integration tests and the simulator.
 * It completes the fabric8 mock server (whose HTTP/WebSocket transport it uses) with the API server behaviour the
 * daemons rely on: binding and eviction, watches that resume from a resourceVersion with bookmarks and 410 Gone,
 * pagination, label and field selectors, JSON merge and strategic merge patches, status subresources, garbage
 * collection, API defaults, graceful pod deletion, discovery for kubectl, bearer-token authentication and
 * (with {@link Builder#rbac(boolean)}) RBAC authorization with a record of every decision. Start with
 * {@link #builder()}; close to stop.
 *
 * <p>Security: {@link #authentication()} issues tokens (an admin token, ServiceAccount tokens, tokens of any user);
 * {@link #writeKubeconfig(Path, String)} and {@link #newClient(String)} connect as a token's user. With RBAC off
 * (the default) requests are neither authenticated nor authorized, exactly as before, while TokenReview and the
 * access reviews still answer from the issued tokens and the stored RBAC objects. With RBAC on, the cluster's own
 * {@link #client()}, {@link #newClient()} and {@link #kubeconfig()} use the admin token, an unknown token is
 * refused with 401, a request without one is {@code system:anonymous}, every request is authorized by
 * {@link #authorizer()}, and upstream's default discovery, basic-user, public-info-viewer, auth-delegator and
 * cluster-admin ClusterRoles (and their default bindings) are stored at start. The server speaks plain HTTP unless
 * {@link Builder#tls(boolean)}: the fabric8 client sends a kubeconfig's token over either, but kubectl (client-go)
 * applies credentials only over TLS, so with RBAC on and without TLS kubectl is {@code system:anonymous}.
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
  private final boolean rbac;
  // double-checked under this
  private volatile KubernetesClient client;
  // the Vert.x every client of newClient() runs on, closed after them
  private final ClientVertx clientVertx;
  // the JSON mapping every client of newClient() uses (thread-safe): its (de)serializers are built once per
  // cluster, not once per client (each a few hundred ms of CPU, holding the client's event loops meanwhile)
  private final KubernetesSerialization clientSerialization = new KubernetesSerialization();

  private EmbeddedCluster(Builder b) {
    this.clientVertx = new ClientVertx(Math.max(1, Runtime.getRuntime().availableProcessors()),
        !b.tls && Boolean.getBoolean(ClientVertx.CLIENT_H2C));
    this.server = new ApiServer(new ApiServer.Settings(b.host, b.port, b.historyCapacity, b.bookmarkInterval,
        b.defaultWatchTimeout, Duration.ofMinutes(5), 100_000), new DefaultServerHooks(b.clock), b.clock,
        new ApiServer.Security(b.rbac, b.decisionCapacity, b.tls));
    this.rbac = b.rbac;
    ResourceOperations ops = server.operations();
    this.garbageCollector = new GarbageCollector(ops, server.customTypes()::all);
    this.kubelet = new SimulatedKubelet(ops, b.kubelet);
    this.nodes = new SimulatedNodes(ops);
    bootstrap(ops);
    if (rbac) {
      BootstrapPolicy.clusterRoles().forEach(r -> ops.create(ResourceTypes.CLUSTER_ROLES, "", r));
      BootstrapPolicy.clusterRoleBindings().forEach(r -> ops.create(ResourceTypes.CLUSTER_ROLE_BINDINGS, "", r));
    }
    server.start();
    this.kubeconfig = writeInitialKubeconfig(b.kubeconfig, rbac ? server.tokens().adminToken() : null);
    LOG.info("embedded API server listening on {} (kubeconfig {}, RBAC {})", server.url(), kubeconfig,
        rbac ? "on" : "off");
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

  private Path writeInitialKubeconfig(Path requested, String token) {
    try {
      Path file = requested != null ? requested : Files.createTempFile("berth-embedded-", ".kubeconfig");
      if (requested == null) {
        file.toFile().deleteOnExit();
      }
      return writeKubeconfig(file, token);
    } catch (IOException e) {
      throw new UncheckedIOException("could not write the embedded cluster's kubeconfig", e);
    }
  }

  /**
   * Writes a kubeconfig for this cluster that authenticates with {@code token} (none when null), e.g. a
   * ServiceAccount's from {@code authentication().serviceAccountToken(ns, name)}, so that a daemon process runs as
   * that user. Returns {@code file}.
   */
  public Path writeKubeconfig(Path file, String token) {
    String user = token == null ? "{}" : "\n      token: " + token;
    String ca = server.servingCertificate().map(c -> "\n    certificate-authority-data: " + c.certificateBase64())
        .orElse("");
    String yaml = """
        apiVersion: v1
        kind: Config
        clusters:
        - name: berth-embedded
          cluster:
            server: %s%s
        contexts:
        - name: berth-embedded
          context:
            cluster: berth-embedded
            user: berth
            namespace: default
        current-context: berth-embedded
        users:
        - name: berth
          user: %s
        """.formatted(server.url(), ca, user);
    try {
      Files.writeString(file, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException("could not write a kubeconfig to " + file, e);
    }
    return file;
  }

  /**
   * Writes a kubeconfig for this cluster that authenticates as ServiceAccount {@code namespace}/{@code name} (its
   * token from {@link TokenAuthenticator#serviceAccountToken}), for a daemon process that must run with the
   * ServiceAccount's permissions. Returns {@code file}.
   */
  public Path writeServiceAccountKubeconfig(Path file, String namespace, String name) {
    return writeKubeconfig(file, server.tokens().serviceAccountToken(namespace, name));
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The API server's base URL ({@code http://127.0.0.1:PORT}, or {@code https://} with TLS). */
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

  /**
   * A fabric8 client configuration for this cluster (namespace {@code default}), not reading ~/.kube; with the
   * admin token when RBAC is on.
   */
  public Config clientConfig() {
    return clientConfig(rbac ? server.tokens().adminToken() : null);
  }

  /** A fabric8 client configuration for this cluster that authenticates with {@code token} (none when null). */
  public Config clientConfig(String token) {
    ConfigBuilder config = new ConfigBuilder(Config.empty()).withMasterUrl(url()).withNamespace("default")
        .withRequestRetryBackoffLimit(0).withConnectionTimeout(10_000).withRequestTimeout(30_000);
    if (token != null) {
      config.withOauthToken(token);
    }
    server.servingCertificate().ifPresent(c -> config.withCaCertData(c.certificateBase64()));
    return config.build();
  }

  /**
   * A new client for this cluster (as admin when RBAC is on); the caller closes it. The clients the cluster builds
   * share one Vert.x instance with as many event loops as cores (fabric8 otherwise starts one per client), closed
   * with the cluster, and one fabric8 {@link KubernetesSerialization} (so a kind registered through one client's
   * serialization is known to the others).
   */
  public KubernetesClient newClient() {
    return newClient(clientConfig());
  }

  /** A new client for this cluster that authenticates with {@code token} (none when null); the caller closes it. */
  public KubernetesClient newClient(String token) {
    return newClient(clientConfig(token));
  }

  private KubernetesClient newClient(Config config) {
    return new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(clientVertx.factory())
        .withKubernetesSerialization(clientSerialization).build();
  }

  /** The bearer tokens the cluster accepts; issue ServiceAccount and user tokens here. */
  public TokenAuthenticator authentication() {
    return server.tokens();
  }

  /**
   * The RBAC authorizer: its {@code decisions()}, {@code denials()} and {@code rulesUsed(origin)} record every
   * authorization decision (requests when RBAC is on, access reviews always), bounded by
   * {@link Builder#decisionCapacity(int)}.
   */
  public RbacAuthorizer authorizer() {
    return server.authorizer();
  }

  /** Whether RBAC is enforced on requests ({@link Builder#rbac(boolean)}). */
  public boolean rbacEnabled() {
    return rbac;
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

  /**
   * Creates {@code objects}, all of one built-in kind, straight in the store in one atomic write: each gets what a
   * create over HTTP gives it (generated names, system metadata, API defaults, validation) and its ADDED event is
   * sent to every watcher, in list order, without an HTTP request per object. For simulations that load thousands of
   * pods at once; nodes have {@link SimulatedNodes#addAll}. All or nothing: when one object is refused, none is
   * stored and the {@link ApiException} names the object (its index, namespace and name) and the field.
   *
   * @throws IllegalArgumentException when the objects are of several kinds or of a kind the server does not serve
   */
  public List<StoredObject> createAll(List<? extends HasMetadata> objects) {
    if (objects.isEmpty()) {
      return List.of();
    }
    HasMetadata first = objects.get(0);
    ResourceType type = ResourceTypes.byKind(first.getApiVersion(), first.getKind()).orElseThrow(() ->
        new IllegalArgumentException("the embedded cluster serves no built-in " + first.getApiVersion() + " "
            + first.getKind()));
    List<ObjectNode> trees = new ArrayList<>(objects.size());
    for (HasMetadata o : objects) {
      if (!type.kind().equals(o.getKind()) || !type.apiVersion().equals(o.getApiVersion())) {
        throw new IllegalArgumentException("createAll takes objects of one kind: " + type.apiVersion() + " "
            + type.kind() + " first, then " + o.getApiVersion() + " " + o.getKind() + " "
            + o.getMetadata().getName());
      }
      trees.add(Json.toTree(o));
    }
    return server.operations().createAll(type, "", trees);
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
    clientVertx.close();
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
    private boolean rbac;
    private int decisionCapacity = DecisionLog.DEFAULT_CAPACITY;
    private boolean tls;

    private Builder() {
    }

    /**
     * Whether requests are authenticated and authorized by RBAC (off by default: every request is served). See
     * {@link EmbeddedCluster} for what changes when on.
     */
    public Builder rbac(boolean enabled) {
      this.rbac = enabled;
      return this;
    }

    /**
     * Whether the server listens with TLS (a new self-signed certificate, trusted by {@link #clientConfig()} and
     * the kubeconfigs the cluster writes) instead of plain HTTP; off by default. Needed for kubectl (client-go) to
     * send a kubeconfig's token.
     */
    public Builder tls(boolean enabled) {
      this.tls = enabled;
      return this;
    }

    /** How many authorization decisions are kept (the oldest are dropped beyond); 100,000 by default. */
    public Builder decisionCapacity(int decisions) {
      if (decisions < 1) {
        throw new IllegalArgumentException("decisionCapacity must be positive, got " + decisions);
      }
      this.decisionCapacity = decisions;
      return this;
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
