package io.berth.conformance;

import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Resolves a {@link ControlPlane} parameter (in {@code @BeforeAll}, a constructor or a test), starting it once per
 * test JVM in the root store, which closes it (conformance/down) after the last test. The scripts' folder and the
 * state directory come from failsafe's system properties {@code berth.conformanceDir} and
 * {@code berth.conformanceRunDir}. Thread-safe: JUnit's store computes the value once.
 */
public final class ControlPlaneExtension implements ParameterResolver {

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == ControlPlane.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context.getRoot().getStore(ExtensionContext.Namespace.create(ControlPlaneExtension.class))
        .getOrComputeIfAbsent(ControlPlane.class, key -> {
          Path scripts = Path.of(System.getProperty("berth.conformanceDir", "."));
          Path runDir = Path.of(System.getProperty("berth.conformanceRunDir", "target/control-plane"))
              .toAbsolutePath();
          try {
            return ControlPlane.start(scripts, runDir);
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          }
        }, ControlPlane.class);
  }
}
