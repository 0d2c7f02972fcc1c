package io.berth.embedded.server;

import io.berth.embedded.auth.DecisionLog;
import io.berth.embedded.auth.RbacAuthorizer;
import io.berth.embedded.auth.StoreRbacPolicySource;
import io.berth.embedded.auth.TokenAuthenticator;
import io.berth.embedded.fault.FaultInjector;
import io.berth.embedded.fault.RequestLog;
import java.time.Clock;
import java.time.Duration;

/**
 * The embedded API server assembled: store, operations, watch hub, dispatcher and transport. Start once, stop
 * once. Thread-safe after start.
 */
public final class ApiServer {

  /** Tuning of the server; immutable. */
  public record Settings(String host, int port, int historyCapacity, Duration bookmarkInterval,
      Duration defaultWatchTimeout, Duration continueTokenTtl, int requestLogCapacity) {

    public static Settings defaults() {
      return new Settings("127.0.0.1", 0, 100_000, Duration.ofSeconds(10), Duration.ofMinutes(30),
          Duration.ofMinutes(5), 100_000);
    }
  }

  /**
   * Authentication, authorization and transport: whether RBAC is enforced on requests, how many authorization
   * decisions are kept, and whether the server listens with TLS (a self-signed {@link ServingCertificate}) instead
   * of plain HTTP. Immutable.
   */
  public record Security(boolean rbac, int decisionCapacity, boolean tls) {

    public Security(boolean rbac, int decisionCapacity) {
      this(rbac, decisionCapacity, false);
    }

    /** RBAC not enforced (every request served, as without security), the default decision capacity, no TLS. */
    public static Security disabled() {
      return new Security(false, DecisionLog.DEFAULT_CAPACITY, false);
    }
  }

  private final ObjectStore store;
  private final ResourceOperations operations;
  private final WatchHub watches;
  private final CustomResourceTypes customTypes = new CustomResourceTypes();
  private final FaultInjector faults = new FaultInjector();
  private final RequestLog requestLog;
  private final Settings settings;
  private final Clock clock;
  private final ServerHooks hooks;
  private final AccessControl access;
  private final ServingCertificate certificate;
  private ApiTransport transport;
  private int port;

  public ApiServer(Settings settings, ServerHooks hooks, Clock clock) {
    this(settings, hooks, clock, Security.disabled());
  }

  public ApiServer(Settings settings, ServerHooks hooks, Clock clock, Security security) {
    this.settings = settings;
    this.clock = clock;
    this.hooks = hooks;
    this.store = new ObjectStore(settings.historyCapacity());
    this.operations = new ResourceOperations(store, hooks, clock);
    store.addListener(customTypes);
    this.watches = new WatchHub(store, settings.bookmarkInterval(), settings.defaultWatchTimeout());
    this.requestLog = new RequestLog(settings.requestLogCapacity());
    faults.setWatchDropper(watches::closeAll);
    RbacAuthorizer authorizer = new RbacAuthorizer(new StoreRbacPolicySource(store), clock,
        security.decisionCapacity());
    this.access = new AccessControl(new TokenAuthenticator(), authorizer, security.rbac());
    this.certificate = security.tls() ? ServingCertificate.selfSigned(settings.host()) : null;
  }

  /** Starts listening; returns the bound port. */
  public synchronized int start() {
    if (transport != null) {
      throw new IllegalStateException("the API server is already started");
    }
    ApiDispatcher dispatcher = new ApiDispatcher(operations, watches, customTypes, new Discovery(customTypes),
        new ListPager(clock, settings.continueTokenTtl(), 256), faults, requestLog, access);
    transport = new ApiTransport(dispatcher);
    port = transport.start(settings.host(), settings.port(), certificate);
    return port;
  }

  public synchronized void stop() {
    watches.shutdown();
    if (transport != null) {
      transport.stop();
      transport = null;
    }
  }

  public int port() {
    return port;
  }

  public String url() {
    return (certificate != null ? "https://" : "http://") + settings.host() + ":" + port;
  }

  /** The serving certificate when the server listens with TLS. */
  public java.util.Optional<ServingCertificate> servingCertificate() {
    return java.util.Optional.ofNullable(certificate);
  }

  public ObjectStore store() {
    return store;
  }

  public ResourceOperations operations() {
    return operations;
  }

  public WatchHub watches() {
    return watches;
  }

  public FaultInjector faults() {
    return faults;
  }

  public RequestLog requestLog() {
    return requestLog;
  }

  /** The bearer tokens requests are authenticated with. */
  public TokenAuthenticator tokens() {
    return access.tokens();
  }

  /** The RBAC authorizer and its decision record. */
  public RbacAuthorizer authorizer() {
    return access.authorizer();
  }

  /** Whether RBAC is enforced on requests. */
  public boolean rbacEnforced() {
    return access.enforcing();
  }

  /** The types served because CustomResourceDefinitions define them. */
  public CustomResourceTypes customTypes() {
    return customTypes;
  }

  public ServerHooks hooks() {
    return hooks;
  }
}
