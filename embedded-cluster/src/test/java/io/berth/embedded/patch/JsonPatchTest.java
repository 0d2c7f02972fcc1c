package io.berth.embedded.patch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

class JsonPatchTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static ObjectNode deployment() {
    return (ObjectNode) JSON.readTree("""
        {"apiVersion":"apps/v1","kind":"Deployment",
         "metadata":{"name":"web","resourceVersion":"7","labels":{"app":"web"}},
         "spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"app","image":"app:v1"}]}}}}
        """);
  }

  @Test
  void appliesOperationsInOrderAsFabric8EditSendsThem() {
    ObjectNode patched = JsonPatch.apply(deployment(), JSON.readTree("""
        [{"op":"test","path":"/metadata/resourceVersion","value":"7"},
         {"op":"replace","path":"/spec/replicas","value":5},
         {"op":"add","path":"/metadata/labels/app.kubernetes.io~1name","value":"web"},
         {"op":"replace","path":"/spec/template/spec/containers/0/image","value":"app:v2"},
         {"op":"add","path":"/spec/template/spec/containers/-","value":{"name":"side","image":"s:1"}},
         {"op":"remove","path":"/metadata/labels/app"}]
        """));

    assertThat(patched.at("/spec/replicas").asInt()).isEqualTo(5);
    assertThat(patched.at("/metadata/labels")).isEqualTo(JSON.readTree("{\"app.kubernetes.io/name\":\"web\"}"));
    assertThat(patched.at("/spec/template/spec/containers/0/image").asString()).isEqualTo("app:v2");
    assertThat(patched.at("/spec/template/spec/containers/1/name").asString()).isEqualTo("side");
  }

  @Test
  void moveAndCopyOperationsWork() {
    ObjectNode patched = JsonPatch.apply(deployment(), JSON.readTree("""
        [{"op":"copy","from":"/metadata/labels","path":"/spec/template/metadata"},
         {"op":"move","from":"/spec/replicas","path":"/spec/oldReplicas"}]
        """));

    assertThat(patched.at("/spec/template/metadata/app").asString()).isEqualTo("web");
    assertThat(patched.at("/spec/oldReplicas").asInt()).isEqualTo(2);
    assertThat(patched.at("/spec").has("replicas")).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"6\"}]",
      "[{\"op\":\"replace\",\"path\":\"/spec/paused\",\"value\":true}]",
      "[{\"op\":\"remove\",\"path\":\"/spec/paused\"}]",
      "[{\"op\":\"add\",\"path\":\"/status/replicas\",\"value\":1}]",
      "[{\"op\":\"add\",\"path\":\"/spec/template/spec/containers/5\",\"value\":{}}]",
      "[{\"op\":\"frobnicate\",\"path\":\"/spec\"}]",
      "[{\"op\":\"add\",\"path\":\"/spec/x\"}]",
      "[{\"op\":\"copy\",\"from\":\"/nope\",\"path\":\"/spec/x\"}]",
  })
  void operationThatCannotApplyIsUnprocessable(String patch) {
    assertThatThrownBy(() -> JsonPatch.apply(deployment(), JSON.readTree(patch)))
        .isInstanceOfSatisfying(PatchException.class,
            e -> assertThat(e.status()).isEqualTo(PatchException.Status.UNPROCESSABLE_ENTITY));
  }

  @Test
  void failedTestLeavesNothingApplied() {
    ObjectNode original = deployment();

    assertThatThrownBy(() -> JsonPatch.apply(original, JSON.readTree("""
        [{"op":"replace","path":"/spec/replicas","value":9},
         {"op":"test","path":"/spec/replicas","value":2}]
        """))).isInstanceOf(PatchException.class).hasMessageContaining("Expected value");

    assertThat(original).isEqualTo(deployment());
  }

  @Test
  void bodyThatIsNotAnArrayIsABadRequest() {
    assertThatThrownBy(() -> JsonPatch.apply(deployment(), JSON.readTree("{\"op\":\"add\"}")))
        .isInstanceOfSatisfying(PatchException.class,
            e -> assertThat(e.status().code()).isEqualTo(400));
  }

  @Test
  void replacingTheRootWithANonObjectIsUnprocessable() {
    assertThatThrownBy(() -> JsonPatch.apply(deployment(), JSON.readTree("[{\"op\":\"replace\",\"path\":\"\",\"value\":3}]")))
        .isInstanceOfSatisfying(PatchException.class,
            e -> assertThat(e.status().code()).isEqualTo(422));
  }

  @Test
  void targetIsNotMutated() {
    ObjectNode original = deployment();

    JsonNode patched = JsonPatch.apply(original, JSON.readTree("[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":3}]"));

    assertThat(original.at("/spec/replicas").asInt()).isEqualTo(2);
    assertThat(patched.at("/spec/replicas").asInt()).isEqualTo(3);
  }
}
