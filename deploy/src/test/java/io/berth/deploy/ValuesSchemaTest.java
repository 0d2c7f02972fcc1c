package io.berth.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.FeatureGates;
import io.berth.plugins.InTreeRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** values.schema.json follows the code: its plugin names are Berth's in-tree plugins, its gates Berth's gates. */
class ValuesSchemaTest {

  private static JsonNode schema() throws IOException {
    return Rendered.JSON.readTree(Files.readString(DeployPaths.chart().resolve("values.schema.json")));
  }

  @Test
  void pluginNameEnumIsTheInTreeRegistry() throws IOException {
    List<String> names = new ArrayList<>();
    schema().path("definitions").path("pluginName").path("enum").forEach(n -> names.add(n.asString()));

    assertThat(names).containsExactlyInAnyOrderElementsOf(InTreeRegistry.create().names());
  }

  @Test
  void featureGatesAreTheSchedulersGates() throws IOException {
    JsonNode gates = schema().path("properties").path("scheduler").path("properties").path("featureGates");

    assertThat(gates.path("additionalProperties").asBoolean(true)).isFalse();
    assertThat(gates.path("properties").propertyNames())
        .containsExactlyInAnyOrderElementsOf(FeatureGates.known().keySet());
  }

  @Test
  void topLevelAndDaemonObjectsRejectUnknownKeys() throws IOException {
    JsonNode schema = schema();

    assertThat(schema.path("$schema").asString()).isEqualTo("http://json-schema.org/draft-07/schema#");
    for (JsonNode object : List.of(schema, schema.path("properties").path("scheduler"),
        schema.path("properties").path("controllerManager"),
        schema.path("properties").path("scheduler").path("properties").path("config"),
        schema.path("definitions").path("profile"), schema.path("definitions").path("pluginConfig"))) {
      assertThat(object.path("additionalProperties").asBoolean(true)).as("additionalProperties of %s",
          object.path("properties").propertyNames()).isFalse();
    }
  }
}
