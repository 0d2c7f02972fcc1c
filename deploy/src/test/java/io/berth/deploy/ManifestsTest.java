package io.berth.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * deploy/manifests/ holds the chart rendered for users without Helm (release "berth", namespace "kube-system"),
 * and must equal a fresh render. To regenerate them after changing the chart:
 *
 * <pre>
 * mvn -B -ntp -pl deploy -am test -Dtest=ManifestsTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dberth.updateManifests=true
 * </pre>
 */
class ManifestsTest {
  private static final Logger LOG = LoggerFactory.getLogger(ManifestsTest.class);

  /** One file of deploy/manifests: its name, how it is rendered, and the helm command that renders it. */
  record Manifest(String file, String helmFlags, UnaryOperator<HelmRender> values) {
    String header() {
      return "# Generated from deploy/helm/berth; do not edit. The same as:\n"
          + "#   helm template " + HelmRender.RELEASE + " deploy/helm/berth --namespace " + HelmRender.NAMESPACE
          + helmFlags + "\n"
          + "# Regenerate with: mvn -B -ntp -pl deploy -am test -Dtest=ManifestsTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false -Dberth.updateManifests=true\n"
          + "# Apply with: kubectl apply --server-side -f deploy/manifests/" + file + "\n";
    }

    String render() {
      return header() + values.apply(HelmRender.chart()).call();
    }
  }

  static final List<Manifest> MANIFESTS = List.of(
      new Manifest("berth-scheduler.yaml", "", r -> r),
      new Manifest("berth-all.yaml", " --set controllerManager.enabled=true",
          r -> r.set("controllerManager.enabled", "true")));

  @Test
  void manifestsEqualAFreshRender() throws IOException {
    boolean update = Boolean.parseBoolean(System.getProperty("berth.updateManifests", "false"));
    for (Manifest manifest : MANIFESTS) {
      Path file = DeployPaths.manifests().resolve(manifest.file());
      String fresh = manifest.render();
      if (update) {
        Files.createDirectories(file.getParent());
        Files.writeString(file, fresh, StandardCharsets.UTF_8);
        LOG.info("wrote {}", file);
      }
      assertThat(file).as("%s (regenerate: -Dberth.updateManifests=true)", file).exists();
      assertThat(Files.readString(file, StandardCharsets.UTF_8))
          .as("%s differs from a fresh render; regenerate with -Dberth.updateManifests=true", file)
          .isEqualTo(fresh);
    }
  }

  @Test
  void manifestsHoldTheDocumentedObjects() throws IOException {
    Rendered scheduler = Rendered.parse(Files.readString(DeployPaths.manifests().resolve("berth-scheduler.yaml")));
    Rendered all = Rendered.parse(Files.readString(DeployPaths.manifests().resolve("berth-all.yaml")));

    assertThat(scheduler.ids()).contains("Deployment/berth-scheduler")
        .doesNotContain("Deployment/berth-controller-manager");
    assertThat(all.ids()).contains("Deployment/berth-scheduler", "Deployment/berth-controller-manager")
        .noneMatch(id -> id.startsWith("ServiceMonitor/"));
    assertThat(all.documents()).allSatisfy(d -> {
      if (!Rendered.CLUSTER_SCOPED.contains(Rendered.kind(d))) {
        assertThat(d.path("metadata").path("namespace").asString()).as(Rendered.id(d))
            .isEqualTo(HelmRender.NAMESPACE);
      }
    });
  }
}
