package io.berth.embedded;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that starts one {@link EmbeddedCluster} per test class and stops it after the class. Use it
 * with {@code @ExtendWith(EmbeddedClusterExtension.class)} for the defaults, or as
 * {@code @RegisterExtension static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() ->
 * EmbeddedCluster.builder()...)} to configure it. Test methods and constructors may take an {@link EmbeddedCluster}
 * or a {@link KubernetesClient} parameter (the cluster's shared client).
 *
 * <p>Not thread-safe itself: JUnit calls its callbacks from one thread per class.
 */
public final class EmbeddedClusterExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

  private final Supplier<EmbeddedCluster.Builder> builder;
  private EmbeddedCluster cluster;

  public EmbeddedClusterExtension() {
    this(EmbeddedCluster::builder);
  }

  public EmbeddedClusterExtension(Supplier<EmbeddedCluster.Builder> builder) {
    this.builder = builder;
  }

  /** The running cluster (between beforeAll and afterAll). */
  public EmbeddedCluster cluster() {
    if (cluster == null) {
      throw new IllegalStateException("the embedded cluster is not running: use the extension on a test class");
    }
    return cluster;
  }

  /** Shorthand for {@code cluster().client()}. */
  public KubernetesClient client() {
    return cluster().client();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    JulBridge.install();
    cluster = builder.get().start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (cluster != null) {
      cluster.close();
      cluster = null;
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext extension) {
    Class<?> type = parameter.getParameter().getType();
    return type == EmbeddedCluster.class || type == KubernetesClient.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext extension)
      throws ParameterResolutionException {
    Class<?> type = parameter.getParameter().getType();
    return type == EmbeddedCluster.class ? cluster() : cluster().client();
  }
}
