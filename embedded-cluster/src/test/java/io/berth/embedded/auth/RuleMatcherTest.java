package io.berth.embedded.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Upstream's rule matching, one table row per case. */
class RuleMatcherTest {

  private static final UserInfo U = new UserInfo("u", "", List.of());

  private static PolicyRule rule(List<String> verbs, List<String> groups, List<String> resources,
      List<String> names) {
    return PolicyRule.resources(verbs, groups, resources, names);
  }

  private static AuthorizationAttributes req(String verb, String group, String resource, String sub, String name) {
    return AuthorizationAttributes.resource(U, verb, group, "ns", resource, sub, name);
  }

  private static AuthorizationAttributes path(String verb, String path) {
    return AuthorizationAttributes.nonResource(U, verb, path);
  }

  static Stream<Arguments> table() {
    List<String> none = List.of();
    PolicyRule getPods = rule(List.of("get"), List.of(""), List.of("pods"), none);
    PolicyRule anyVerbPods = rule(List.of("*"), List.of(""), List.of("pods"), none);
    PolicyRule anyGroupLeases = rule(List.of("get"), List.of("*"), List.of("leases"), none);
    PolicyRule everything = rule(List.of("*"), List.of("*"), List.of("*"), none);
    PolicyRule podsStatus = rule(List.of("update"), List.of(""), List.of("pods/status"), none);
    PolicyRule anyStatus = rule(List.of("update"), List.of(""), List.of("*/status"), none);
    PolicyRule podsSlashStar = rule(List.of("update"), List.of(""), List.of("pods/*"), none);
    PolicyRule namedLease = rule(List.of("get", "update", "create", "list", "watch"), List.of("coordination.k8s.io"),
        List.of("leases"), List.of("berth-scheduler"));
    PolicyRule metrics = PolicyRule.nonResource(List.of("get"), List.of("/metrics"));
    PolicyRule healthPrefix = PolicyRule.nonResource(List.of("get"), List.of("/healthz/*"));
    PolicyRule anyUrl = PolicyRule.nonResource(List.of("*"), List.of("*"));
    return Stream.of(
        Arguments.of("exact verb, group, resource", getPods, req("get", "", "pods", "", "p"), true),
        Arguments.of("other verb", getPods, req("list", "", "pods", "", ""), false),
        Arguments.of("other group", getPods, req("get", "apps", "pods", "", "p"), false),
        Arguments.of("other resource", getPods, req("get", "", "services", "", "s"), false),
        Arguments.of("resource does not cover its subresource", getPods, req("get", "", "pods", "log", "p"), false),
        Arguments.of("verb wildcard", anyVerbPods, req("deletecollection", "", "pods", "", ""), true),
        Arguments.of("group wildcard", anyGroupLeases, req("get", "coordination.k8s.io", "leases", "", "l"), true),
        Arguments.of("everything covers subresources", everything, req("create", "", "pods", "binding", "p"), true),
        Arguments.of("resource wildcard does not cover non-resource urls", everything, path("get", "/metrics"), false),
        Arguments.of("exact subresource", podsStatus, req("update", "", "pods", "status", "p"), true),
        Arguments.of("subresource rule does not cover the resource", podsStatus, req("update", "", "pods", "", "p"),
            false),
        Arguments.of("*/status covers any status", anyStatus, req("update", "", "nodes", "status", "n"), true),
        Arguments.of("*/status does not cover scale", anyStatus, req("update", "", "pods", "scale", "p"), false),
        Arguments.of("*/status does not cover the resource", anyStatus, req("update", "", "pods", "", "p"), false),
        Arguments.of("pods/* is not a wildcard", podsSlashStar, req("update", "", "pods", "status", "p"), false),
        Arguments.of("resourceNames: the name", namedLease,
            req("update", "coordination.k8s.io", "leases", "", "berth-scheduler"), true),
        Arguments.of("resourceNames: another name", namedLease,
            req("get", "coordination.k8s.io", "leases", "", "other"), false),
        Arguments.of("resourceNames: create has no name", namedLease,
            req("create", "coordination.k8s.io", "leases", "", ""), false),
        Arguments.of("resourceNames: list without a name", namedLease,
            req("list", "coordination.k8s.io", "leases", "", ""), false),
        Arguments.of("resourceNames: watch with the name from a field selector", namedLease,
            req("watch", "coordination.k8s.io", "leases", "", "berth-scheduler"), true),
        Arguments.of("non-resource exact", metrics, path("get", "/metrics"), true),
        Arguments.of("non-resource other verb", metrics, path("post", "/metrics"), false),
        Arguments.of("non-resource other path", metrics, path("get", "/metrics/slis"), false),
        Arguments.of("url rule does not cover resources", metrics, req("get", "", "metrics", "", ""), false),
        Arguments.of("non-resource prefix", healthPrefix, path("get", "/healthz/etcd"), true),
        Arguments.of("non-resource prefix does not cover the bare path", healthPrefix, path("get", "/healthz"), false),
        Arguments.of("non-resource wildcard", anyUrl, path("delete", "/anything/at/all"), true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void matchesAsUpstream(String description, PolicyRule rule, AuthorizationAttributes request, boolean allowed) {
    assertThat(RuleMatcher.allows(request, rule)).as(description).isEqualTo(allowed);
  }
}
