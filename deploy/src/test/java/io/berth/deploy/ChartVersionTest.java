package io.berth.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/** The chart's appVersion and version are the Maven project version: one version for the code, image and chart. */
class ChartVersionTest {
  private static final ObjectMapper YAML = YAMLMapper.builder().build();

  @Test
  void appVersionAndVersionAreTheProjectVersion() throws IOException {
    JsonNode chart = YAML.readTree(Files.readString(DeployPaths.chart().resolve("Chart.yaml")));
    String projectVersion = DeployPaths.requiredProperty("berth.projectVersion");

    assertThat(chart.path("apiVersion").asString()).isEqualTo("v2");
    assertThat(chart.path("appVersion").asString()).as("Chart.yaml appVersion").isEqualTo(projectVersion);
    assertThat(chart.path("version").asString()).as("Chart.yaml version").isEqualTo(projectVersion);
  }

  @Test
  void renderedVersionLabelIsTheProjectVersion() {
    Rendered rendered = HelmRender.chart().documents();

    assertThat(rendered.documents()).allSatisfy(d -> assertThat(
        d.path("metadata").path("labels").path("app.kubernetes.io/version").asString())
        .isEqualTo(DeployPaths.requiredProperty("berth.projectVersion")));
  }
}
