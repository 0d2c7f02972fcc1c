package io.berth.embedded.patch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

class PatchTypeTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static ObjectNode pod() {
    return (ObjectNode) JSON.readTree("""
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"web"}},
         "spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1"}]}}""");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "application/json-patch+json                     | JSON_PATCH",
      "application/merge-patch+json                    | MERGE_PATCH",
      "application/strategic-merge-patch+json          | STRATEGIC_MERGE_PATCH",
      "application/apply-patch+yaml                    | APPLY_PATCH",
      "Application/Merge-Patch+JSON; charset=utf-8     | MERGE_PATCH",
  })
  void contentTypeSelectsThePatchType(String header, PatchType expected) {
    assertThat(PatchType.fromContentType(header)).contains(expected);
  }

  @ParameterizedTest
  @ValueSource(strings = {"application/json", "text/plain", "application/apply-patch+cbor", ""})
  void unknownContentTypeHasNoPatchType(String header) {
    assertThat(PatchType.fromContentType(header)).isEmpty();
  }

  @Test
  void mergePatchReplacesListsWhileStrategicMergeMergesThem() {
    String body = "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"a:2\"}]}}";

    ObjectNode merged = PatchType.MERGE_PATCH.apply("", "Pod", pod(), body);
    ObjectNode strategic = PatchType.STRATEGIC_MERGE_PATCH.apply("", "Pod", pod(), body);

    assertThat(merged.at("/spec/containers")).hasSize(1);
    assertThat(strategic.at("/spec/containers")).hasSize(2);
    assertThat(strategic.at("/spec/containers/0/image").asString()).isEqualTo("a:2");
  }

  @Test
  void jsonPatchBodyIsApplied() {
    ObjectNode patched = PatchType.JSON_PATCH.apply("", "Pod", pod(),
        "[{\"op\":\"replace\",\"path\":\"/metadata/labels/app\",\"value\":\"api\"}]");

    assertThat(patched.at("/metadata/labels/app").asString()).isEqualTo("api");
  }

  @Test
  void applyPatchTakesYamlAndMergesStrategically() {
    String yaml = """
        apiVersion: v1
        kind: Pod
        metadata:
          name: p
          labels:
            tier: frontend
        spec:
          containers:
          - name: b
            image: b:2
        """;

    ObjectNode applied = PatchType.APPLY_PATCH.apply("", "Pod", pod(), yaml);

    assertThat(applied.at("/metadata/labels")).isEqualTo(JSON.readTree("{\"app\":\"web\",\"tier\":\"frontend\"}"));
    assertThat(applied.at("/spec/containers")).hasSize(2);
    assertThat(applied.at("/spec/containers/1/image").asString()).isEqualTo("b:2");
  }

  @Test
  void applyPatchOfAMissingObjectBuildsItFromTheBody() {
    ObjectNode created = PatchType.APPLY_PATCH.apply("", "ConfigMap", JSON.createObjectNode(),
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"},\"data\":{\"k\":\"v\"}}");

    assertThat(created).isEqualTo(JSON.readTree(
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"},\"data\":{\"k\":\"v\"}}"));
  }

  @Test
  void unparseableBodyIsABadRequest() {
    assertThatThrownBy(() -> PatchType.STRATEGIC_MERGE_PATCH.apply("", "Pod", pod(), "{\"spec\":"))
        .isInstanceOfSatisfying(PatchException.class,
            e -> assertThat(e.status()).isEqualTo(PatchException.Status.BAD_REQUEST))
        .hasMessageContaining("cannot parse application/strategic-merge-patch+json body");
  }

  @Test
  void blankMergeBodyChangesNothing() {
    assertThat(PatchType.MERGE_PATCH.apply("", "Pod", pod(), "  ")).isEqualTo(pod());
  }
}
