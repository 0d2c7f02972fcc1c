package io.berth.embedded.patch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

class JsonMergePatchTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** The examples of RFC 7386, Appendix A. */
  @ParameterizedTest(name = "{0} + {1} = {2}")
  @CsvSource(delimiter = '|', value = {
      "{\"a\":\"b\"}                | {\"a\":\"c\"}                       | {\"a\":\"c\"}",
      "{\"a\":\"b\"}                | {\"b\":\"c\"}                       | {\"a\":\"b\",\"b\":\"c\"}",
      "{\"a\":\"b\"}                | {\"a\":null}                        | {}",
      "{\"a\":\"b\",\"b\":\"c\"}    | {\"a\":null}                        | {\"b\":\"c\"}",
      "{\"a\":[\"b\"]}              | {\"a\":\"c\"}                       | {\"a\":\"c\"}",
      "{\"a\":\"c\"}                | {\"a\":[\"b\"]}                     | {\"a\":[\"b\"]}",
      "{\"a\":{\"b\":\"c\"}}        | {\"a\":{\"b\":\"d\",\"c\":null}}    | {\"a\":{\"b\":\"d\"}}",
      "{\"a\":[{\"b\":\"c\"}]}      | {\"a\":[1]}                         | {\"a\":[1]}",
      "[\"a\",\"b\"]                | [\"c\",\"d\"]                       | [\"c\",\"d\"]",
      "{\"a\":\"b\"}                | [\"c\"]                             | [\"c\"]",
      "{\"a\":\"foo\"}              | null                                | null",
      "{\"a\":\"foo\"}              | \"bar\"                             | \"bar\"",
      "{\"e\":null}                 | {\"a\":1}                           | {\"e\":null,\"a\":1}",
      "[1,2]                        | {\"a\":\"b\",\"c\":null}            | {\"a\":\"b\"}",
      "{}                           | {\"a\":{\"bb\":{\"ccc\":null}}}     | {\"a\":{\"bb\":{}}}",
  })
  void appliesTheRfcExamples(String target, String patch, String expected) {
    assertThat(JsonMergePatch.apply(json(target), json(patch))).isEqualTo(json(expected));
  }

  @Test
  void labelPatchAsKubectlLabelSendsItMergesIntoExistingLabels() {
    ObjectNode pod = (ObjectNode) json("{\"metadata\":{\"name\":\"p\",\"labels\":{\"app\":\"web\",\"old\":\"x\"}}}");

    ObjectNode patched = JsonMergePatch.applyToObject(pod,
        json("{\"metadata\":{\"labels\":{\"tier\":\"frontend\",\"old\":null}}}"));

    assertThat(patched.path("metadata").path("labels"))
        .isEqualTo(json("{\"app\":\"web\",\"tier\":\"frontend\"}"));
  }

  @Test
  void neitherArgumentIsMutated() {
    ObjectNode target = (ObjectNode) json("{\"a\":{\"b\":1},\"list\":[1]}");
    JsonNode patch = json("{\"a\":{\"b\":null,\"c\":2},\"list\":[2]}");
    ObjectNode targetBefore = target.deepCopy();
    JsonNode patchBefore = patch.deepCopy();

    JsonNode result = JsonMergePatch.apply(target, patch);
    ((ObjectNode) result.get("a")).put("mutated", true);

    assertThat(target).isEqualTo(targetBefore);
    assertThat(patch).isEqualTo(patchBefore);
  }

  @Test
  void nonObjectPatchOfAnApiObjectIsABadRequest() {
    ObjectNode pod = (ObjectNode) json("{\"metadata\":{\"name\":\"p\"}}");

    assertThatThrownBy(() -> JsonMergePatch.applyToObject(pod, json("[1]")))
        .isInstanceOfSatisfying(PatchException.class,
            e -> assertThat(e.status()).isEqualTo(PatchException.Status.BAD_REQUEST));
  }

  private static JsonNode json(String text) {
    return JSON.readTree(text);
  }
}
