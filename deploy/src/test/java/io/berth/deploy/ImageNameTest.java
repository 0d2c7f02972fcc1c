package io.berth.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/** The chart's default image is the image the Maven property berth.image names (deploy/pom.xml). */
class ImageNameTest {
  private static final ObjectMapper YAML = YAMLMapper.builder().build();

  @Test
  void chartDefaultImageRepositoryIsTheMavenProperty() throws IOException {
    JsonNode values = YAML.readTree(Files.readString(DeployPaths.chart().resolve("values.yaml")));

    assertThat(values.path("image").path("repository").asString())
        .isEqualTo(DeployPaths.requiredProperty("berth.image.repository"));
    // an empty tag means the chart's appVersion, i.e. the project version
    assertThat(values.path("image").path("tag").asString()).isEmpty();
  }

  @Test
  void renderedImageIsTheMavenPropertyForBothDaemons() {
    Rendered rendered = HelmRender.chart().values(DeployPaths.testValues("both-daemons.yaml")).documents();

    assertThat(rendered.ofKind("Deployment")).hasSize(2).allSatisfy(d -> assertThat(
        d.path("spec").path("template").path("spec").path("containers").path(0).path("image").asString())
        .isEqualTo(DeployPaths.requiredProperty("berth.image")));
  }

  @Test
  void dockerfileDocumentsTheSameImageName() throws IOException {
    assertThat(Files.readString(DeployPaths.deployDir().resolve("Dockerfile")))
        .contains("-t " + DeployPaths.requiredProperty("berth.image") + " .");
  }
}
