package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ObjectNode;

/** RBAC objects a real cluster rejects are rejected, with upstream's field messages. */
class RbacValidationTest {

  private final ResourceOperations ops = new ResourceOperations(new ObjectStore(100),
      new DefaultServerHooks(Clock.systemUTC()), Clock.systemUTC());

  RbacValidationTest() {
    ops.create(ResourceTypes.NAMESPACES, "", json("{\"metadata\":{\"name\":\"ns\"}}"));
  }

  private static ObjectNode json(String s) {
    return Json.parseObject(s.getBytes(StandardCharsets.UTF_8));
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of(ResourceTypes.CLUSTER_ROLES, "{\"metadata\":{\"name\":\"r\"},\"rules\":[{\"apiGroups\":[\"\"],"
            + "\"resources\":[\"pods\"]}]}", "rules[0].verbs: Required value: verbs must contain at least one value"),
        Arguments.of(ResourceTypes.CLUSTER_ROLES, "{\"metadata\":{\"name\":\"r\"},\"rules\":[{\"verbs\":[\"get\"],"
            + "\"resources\":[\"pods\"]}]}", "rules[0].apiGroups: Required value"),
        Arguments.of(ResourceTypes.CLUSTER_ROLES, "{\"metadata\":{\"name\":\"r\"},\"rules\":[{\"verbs\":[\"get\"],"
            + "\"apiGroups\":[\"\"]}]}", "rules[0].resources: Required value"),
        Arguments.of(ResourceTypes.ROLES, "{\"metadata\":{\"name\":\"r\"},\"rules\":[{\"verbs\":[\"get\"],"
            + "\"nonResourceURLs\":[\"/metrics\"]}]}", "namespaced rules cannot apply to non-resource URLs"),
        Arguments.of(ResourceTypes.CLUSTER_ROLES, "{\"metadata\":{\"name\":\"r\"},\"rules\":[{\"verbs\":[\"get\"],"
            + "\"resources\":[\"pods\"],\"nonResourceURLs\":[\"/metrics\"]}]}",
            "rules cannot apply to both regular resources and non-resource URLs"),
        Arguments.of(ResourceTypes.CLUSTER_ROLES, "{\"metadata\":{\"name\":\"r\"},\"rules\":[{\"verbs\":\"get\"}]}",
            "rules[0].verbs: Invalid value"),
        Arguments.of(ResourceTypes.CLUSTER_ROLE_BINDINGS, "{\"metadata\":{\"name\":\"b\"},\"roleRef\":{\"kind\":"
            + "\"Role\",\"name\":\"r\"}}", "roleRef.kind: Unsupported value: \"Role\": supported values: "
            + "\"ClusterRole\""),
        Arguments.of(ResourceTypes.ROLE_BINDINGS, "{\"metadata\":{\"name\":\"b\"},\"roleRef\":{\"kind\":"
            + "\"Role\"}}", "roleRef.name: Required value"),
        Arguments.of(ResourceTypes.CLUSTER_ROLE_BINDINGS, "{\"metadata\":{\"name\":\"b\"},\"roleRef\":{\"kind\":"
            + "\"ClusterRole\",\"name\":\"r\"},\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"sa\"}]}",
            "subjects[0].namespace: Required value"),
        Arguments.of(ResourceTypes.ROLE_BINDINGS, "{\"metadata\":{\"name\":\"b\"},\"roleRef\":{\"kind\":"
            + "\"ClusterRole\",\"name\":\"r\"},\"subjects\":[{\"kind\":\"Robot\",\"name\":\"x\"}]}",
            "subjects[0].kind: Unsupported value: \"Robot\""),
        Arguments.of(ResourceTypes.ROLE_BINDINGS, "{\"metadata\":{\"name\":\"b\"},\"roleRef\":{\"kind\":"
            + "\"ClusterRole\",\"name\":\"r\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"\"}]}",
            "subjects[0].name: Required value"),
        Arguments.of(ResourceTypes.CLUSTER_ROLES, "{\"metadata\":{\"name\":\"a/b\"}}",
            "metadata.name: Invalid value: \"a/b\": may not contain '/'"));
  }

  @ParameterizedTest(name = "{2}")
  @MethodSource("invalid")
  void rejectsAsUpstream(ResourceType type, String body, String message) {
    assertThatThrownBy(() -> ops.create(type, "ns", json(body))).isInstanceOf(ApiException.class)
        .hasMessageContaining(message).satisfies(e -> assertThat(((ApiException) e).code()).isEqualTo(422));
  }

  @Test
  void acceptsValidObjectsAndKeepsRoleRefImmutable() {
    ops.create(ResourceTypes.CLUSTER_ROLES, "", json("{\"metadata\":{\"name\":\"system:x\"},\"rules\":[{\"verbs\":"
        + "[\"get\"],\"nonResourceURLs\":[\"/metrics\"]},{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":"
        + "[\"*\"]}]}"));
    String binding = "{\"metadata\":{\"name\":\"b\"},\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"%s\"},"
        + "\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"sa\"},{\"kind\":\"User\",\"name\":\"u\"}]}";
    ops.create(ResourceTypes.ROLE_BINDINGS, "ns", json(binding.formatted("system:x")));
    assertThatThrownBy(() -> ops.update(ResourceTypes.ROLE_BINDINGS, "ns", "b", json(binding.formatted("other")),
        false)).isInstanceOf(ApiException.class).hasMessageContaining("cannot change roleRef");
    ops.update(ResourceTypes.ROLE_BINDINGS, "ns", "b", json(binding.formatted("system:x")
        .replace("\"u\"", "\"v\"")), false);
  }
}
