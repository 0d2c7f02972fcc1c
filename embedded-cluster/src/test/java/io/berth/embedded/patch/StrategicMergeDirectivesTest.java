package io.berth.embedded.patch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** Strategic-merge directives ($patch, $retainKeys, $setElementOrder, $deleteFromPrimitiveList, null) and their errors. */
class StrategicMergeDirectivesTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final StrategicMergePatch POD = StrategicMergePatch.forKind("", "Pod");
  private static final StrategicMergePatch DEPLOYMENT = StrategicMergePatch.forKind("apps", "Deployment");

  // ---- directives and their failures ------------------------------------------------------------

  @Test
  void setElementOrderThatContradictsThePatchListIsABadRequest() {
    ObjectNode live = pod("[{\"name\":\"a\"},{\"name\":\"b\"}]");

    assertThatThrownBy(() -> POD.apply(live, json("""
        {"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"}],
                 "containers":[{"name":"b","image":"x"},{"name":"a","image":"y"}]}}""")))
        .isInstanceOfSatisfying(PatchException.class,
            e -> assertThat(e.status()).isEqualTo(PatchException.Status.BAD_REQUEST))
        .hasMessageContaining("doesn't match $setElementOrder list");
  }

  @Test
  void deletionListForAMissingFieldIsIgnored() {
    ObjectNode live = obj("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"}}");

    ObjectNode patched = POD.apply(live, json("{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"x\"]}}"));

    assertThat(patched.at("/metadata").has("finalizers")).isFalse();
  }

  @Test
  void retainKeysDropsTheRollingUpdateParametersWhenSwitchingToRecreate() {
    ObjectNode live = obj("""
        {"kind":"Deployment","spec":{"strategy":{"type":"RollingUpdate",
          "rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}}}}""");

    ObjectNode patched = DEPLOYMENT.apply(live, json("""
        {"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":null,"type":"Recreate"}}}"""));

    assertThat(patched.at("/spec/strategy")).isEqualTo(json("{\"type\":\"Recreate\"}"));
  }

  @Test
  void retainKeysRemovesUnlistedKeysEvenWithoutNulls() {
    ObjectNode live = obj("{\"kind\":\"Deployment\",\"spec\":{\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{}}}}");

    ObjectNode patched = DEPLOYMENT.apply(live, json("{\"spec\":{\"strategy\":{\"$retainKeys\":[\"type\"]}}}"));

    assertThat(patched.at("/spec/strategy")).isEqualTo(json("{\"type\":\"RollingUpdate\"}"));
  }

  @Test
  void retainKeysThatOmitAPatchedKeyIsABadRequest() {
    ObjectNode live = obj("{\"kind\":\"Deployment\",\"spec\":{\"strategy\":{\"type\":\"RollingUpdate\"}}}");

    assertThatThrownBy(() -> DEPLOYMENT.apply(live,
        json("{\"spec\":{\"strategy\":{\"$retainKeys\":[\"type\"],\"rollingUpdate\":{\"maxSurge\":1}}}}")))
        .isInstanceOfSatisfying(PatchException.class,
            e -> assertThat(e.status()).isEqualTo(PatchException.Status.BAD_REQUEST))
        .hasMessageContaining("retainKeys");
  }

  @Test
  void replaceDirectiveOnAMapReplacesIt() {
    ObjectNode live = obj("{\"kind\":\"Pod\",\"metadata\":{\"labels\":{\"a\":\"1\",\"b\":\"2\"}}}");

    ObjectNode patched = POD.apply(live, json("{\"metadata\":{\"labels\":{\"$patch\":\"replace\",\"c\":\"3\"}}}"));

    assertThat(patched.at("/metadata/labels")).isEqualTo(json("{\"c\":\"3\"}"));
  }

  @Test
  void deleteDirectiveOnAMapEmptiesIt() {
    ObjectNode live = obj("{\"kind\":\"Pod\",\"metadata\":{\"labels\":{\"a\":\"1\"}}}");

    ObjectNode patched = POD.apply(live, json("{\"metadata\":{\"labels\":{\"$patch\":\"delete\"}}}"));

    assertThat(patched.at("/metadata/labels")).isEqualTo(json("{}"));
  }

  @Test
  void replaceDirectiveInAListReplacesTheList() {
    ObjectNode live = pod("[{\"name\":\"a\"},{\"name\":\"b\"}]");

    ObjectNode patched = POD.apply(live,
        json("{\"spec\":{\"containers\":[{\"$patch\":\"replace\"},{\"name\":\"c\",\"image\":\"c\"}]}}"));

    assertThat(patched.at("/spec/containers")).isEqualTo(json("[{\"name\":\"c\",\"image\":\"c\"}]"));
  }

  @Test
  void mergeDirectiveIsRejectedAsUpstreamDoes() {
    ObjectNode live = pod("[{\"name\":\"a\"}]");

    assertThatThrownBy(() -> POD.apply(live, json("{\"spec\":{\"containers\":[{\"$patch\":\"merge\"}]}}")))
        .isInstanceOfSatisfying(PatchException.class,
            e -> assertThat(e.status()).isEqualTo(PatchException.Status.UNPROCESSABLE_ENTITY));
    assertThatThrownBy(() -> POD.apply(live, json("{\"metadata\":{\"$patch\":\"merge\"}}")))
        .isInstanceOf(PatchException.class)
        .hasMessageContaining("unknown patch type: merge");
  }

  @Test
  void nullDeletesAKeyAndUnmatchedNullIsIgnored() {
    ObjectNode live = obj("{\"kind\":\"Pod\",\"spec\":{\"nodeName\":\"n1\",\"hostname\":\"h\"}}");

    ObjectNode patched = POD.apply(live, json("{\"spec\":{\"nodeName\":null,\"subdomain\":null}}"));

    assertThat(patched.at("/spec")).isEqualTo(json("{\"hostname\":\"h\"}"));
  }

  @Test
  void newSubtreeIsStoredWithoutDirectivesOrNulls() {
    ObjectNode live = obj("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"}}");

    ObjectNode patched = POD.apply(live, json("""
        {"spec":{"restartPolicy":null,"$setElementOrder/containers":[{"name":"a"}],
                 "containers":[{"name":"a","image":"a","args":null,"$setElementOrder/env":[{"name":"X"}],
                                "env":[{"name":"X","value":"1"}]}]}}"""));

    assertThat(patched.at("/spec")).isEqualTo(json("""
        {"containers":[{"name":"a","image":"a","env":[{"name":"X","value":"1"}]}]}"""));
  }

  @Test
  void listItemWithoutItsMergeKeyIsUnprocessable() {
    ObjectNode live = pod("[{\"name\":\"a\"}]");

    assertThatThrownBy(() -> POD.apply(live, json("{\"spec\":{\"containers\":[{\"image\":\"x\"}]}}")))
        .isInstanceOfSatisfying(PatchException.class,
            e -> assertThat(e.status()).isEqualTo(PatchException.Status.UNPROCESSABLE_ENTITY))
        .hasMessageContaining("does not contain declared merge key: name");
  }

  @Test
  void listOfListsIsUnprocessable() {
    ObjectNode live = obj("{\"kind\":\"Pod\",\"metadata\":{\"finalizers\":[\"a\"]}}");

    assertThatThrownBy(() -> POD.apply(live, json("{\"metadata\":{\"finalizers\":[[\"b\"]]}}")))
        .isInstanceOf(PatchException.class)
        .hasMessageContaining("lists of lists");
  }

  @Test
  void malformedDirectivePrefixIsABadRequest() {
    ObjectNode live = obj("{\"kind\":\"Pod\",\"metadata\":{\"finalizers\":[\"a\"]}}");

    assertThatThrownBy(() -> POD.apply(live, json("{\"metadata\":{\"$setElementOrderX/finalizers\":[\"a\"]}}")))
        .isInstanceOfSatisfying(PatchException.class,
            e -> assertThat(e.status()).isEqualTo(PatchException.Status.BAD_REQUEST));
  }

  @Test
  void nonObjectPatchIsABadRequest() {
    assertThatThrownBy(() -> POD.apply(pod("[]"), json("[]")))
        .isInstanceOfSatisfying(PatchException.class, e -> assertThat(e.status().code()).isEqualTo(400));
  }

  // ---- helpers -----------------------------------------------------------------------------------

  private static ObjectNode pod(String containers) {
    return obj("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":"
        + containers + "}}");
  }


  private static ObjectNode obj(String text) {
    return (ObjectNode) JSON.readTree(text);
  }

  private static JsonNode json(String text) {
    return JSON.readTree(text);
  }
}
