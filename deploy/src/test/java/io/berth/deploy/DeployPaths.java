package io.berth.deploy;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where deploy/ and its parts are: the module directory comes from the system property {@code berth.deployDir}
 * (set by the POM), else the working directory when it is deploy/ or the repository root. Stateless.
 */
final class DeployPaths {
  private DeployPaths() {}

  /** The deploy/ directory. */
  static Path deployDir() {
    String fromPom = System.getProperty("berth.deployDir");
    if (fromPom != null && !fromPom.isBlank()) {
      return Path.of(fromPom).toAbsolutePath().normalize();
    }
    Path cwd = Path.of("").toAbsolutePath();
    if (Files.isDirectory(cwd.resolve("helm/berth"))) {
      return cwd;
    }
    if (Files.isDirectory(cwd.resolve("deploy/helm/berth"))) {
      return cwd.resolve("deploy");
    }
    throw new IllegalStateException("cannot find deploy/ from " + cwd + "; set -Dberth.deployDir");
  }

  /** The repository root: the build context of the Dockerfile. */
  static Path repositoryRoot() {
    return deployDir().getParent();
  }

  /** The chart, deploy/helm/berth. */
  static Path chart() {
    return deployDir().resolve("helm/berth");
  }

  /** The rendered manifests, deploy/manifests. */
  static Path manifests() {
    return deployDir().resolve("manifests");
  }

  /** A values file of the tests (src/test/resources/values). */
  static Path testValues(String name) {
    return deployDir().resolve("src/test/resources/values").resolve(name);
  }

  /** A system property the POM sets; fails naming it when it is missing. */
  static String requiredProperty(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException("system property " + name + " is not set: run the tests through Maven");
    }
    return value;
  }
}
