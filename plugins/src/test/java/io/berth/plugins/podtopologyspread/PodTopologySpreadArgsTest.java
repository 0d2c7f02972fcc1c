package io.berth.plugins.podtopologyspread;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.testing.TestHandle;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Args parsing and validation, from upstream's TestValidatePodTopologySpreadArgs. */
class PodTopologySpreadArgsTest {

  record Case(String name, Map<String, Object> args, String wantError) {}

  static Map<String, Object> c(Object maxSkew, String key, String action) {
    Map<String, Object> m = new HashMap<>();
    m.put("maxSkew", maxSkew);
    m.put("topologyKey", key);
    m.put("whenUnsatisfiable", action);
    return m;
  }

  static Map<String, Object> list(Object... constraints) {
    return Map.of("defaultingType", "List", "defaultConstraints", List.of(constraints));
  }

  static Stream<Case> cases() {
    Map<String, Object> withSelector = c(1, "key", "DoNotSchedule");
    withSelector.put("labelSelector", Map.of("matchLabels", Map.of("a", "b")));
    return Stream.of(
        new Case("valid config", list(c(1, "node", "DoNotSchedule"),
            c(2, "zone", "ScheduleAnyway")), null),
        new Case("maxSkew less than zero", list(c(-1, "node", "DoNotSchedule")),
            "defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)"),
        new Case("empty topology key", list(c(1, "", "DoNotSchedule")),
            "defaultConstraints[0].topologyKey: Required value: can not be empty"),
        new Case("invalid topology key", list(c(1, "a/b/c", "DoNotSchedule")),
            "defaultConstraints[0].topologyKey: Invalid value: \"a/b/c\": a qualified name must"
                + " consist of alphanumeric characters, '-', '_' or '.', and must start and end"
                + " with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc',"
                + " regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"),
        new Case("whenUnsatisfiable is empty", list(c(1, "node", "")),
            "defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty"),
        new Case("whenUnsatisfiable contains unsupported action",
            list(c(1, "node", "unknown action")),
            "defaultConstraints[0].whenUnsatisfiable: Unsupported value: \"unknown action\":"
                + " supported values: \"DoNotSchedule\", \"ScheduleAnyway\""),
        new Case("duplicated constraints", list(c(1, "node", "DoNotSchedule"),
            c(2, "node", "DoNotSchedule")),
            "defaultConstraints[1]: Duplicate value: \"{node, DoNotSchedule}\""),
        new Case("label selector present", list(withSelector),
            "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a"
                + " selector, as they deduced for each pod"),
        new Case("list default constraints, no constraints", Map.of("defaultingType", "List"),
            null),
        new Case("system default constraints", Map.of("defaultingType", "System"), null),
        new Case("wrong constraints", Map.of("defaultingType", "unknown"),
            "defaultingType: Unsupported value: \"unknown\": supported values: \"System\","
                + " \"List\""),
        new Case("system default constraints, but has constraints",
            Map.of("defaultingType", "System", "defaultConstraints",
                List.of(c(1, "key", "DoNotSchedule"))),
            "defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty"),
        new Case("defaultingType defaults to System, which forbids constraints",
            Map.of("defaultConstraints", List.of(c(1, "key", "DoNotSchedule"))),
            "defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty"),
        new Case("several errors are aggregated", list(c(0, "", "DoNotSchedule")),
            "[defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf),"
                + " defaultConstraints[0].topologyKey: Required value: can not be empty]"),
        new Case("unknown top-level field", Map.of("defaultingType", "List", "extra", 1),
            "unknown field \"extra\""),
        new Case("maxSkew of the wrong type", list(c("one", "node", "DoNotSchedule")),
            "defaultConstraints[0].maxSkew: Invalid value: \"one\": must be an integer"),
        new Case("defaultConstraints not a list",
            Map.of("defaultingType", "List", "defaultConstraints", "zone"),
            "defaultConstraints: Invalid value: zone: must be a list"));
  }

  @TestFactory
  Stream<DynamicTest> validatesArgsAsUpstream() {
    return cases().map(t -> DynamicTest.dynamicTest(t.name(), () -> {
      if (t.wantError() == null) {
        assertThat(PodTopologySpread.create(t.args(), new TestHandle()))
            .isInstanceOf(PodTopologySpread.class);
      } else {
        assertThatThrownBy(() -> PodTopologySpread.create(t.args(), new TestHandle()))
            .isInstanceOf(IllegalArgumentException.class).hasMessage(t.wantError());
      }
    }));
  }

  @Test
  void parsesEveryConstraintField() {
    Map<String, Object> full = c(2, "zone", "DoNotSchedule");
    full.put("minDomains", 3);
    full.put("nodeAffinityPolicy", "Ignore");
    full.put("nodeTaintsPolicy", "Honor");
    full.put("matchLabelKeys", List.of("rev"));
    PodTopologySpreadArgs args = PodTopologySpreadArgs.parse(list(full));
    assertThat(args.systemDefaulting()).isFalse();
    assertThat(args.defaultConstraints()).singleElement().satisfies(t -> {
      assertThat(t.getMaxSkew()).isEqualTo(2);
      assertThat(t.getMinDomains()).isEqualTo(3);
      assertThat(t.getNodeAffinityPolicy()).isEqualTo("Ignore");
      assertThat(t.getNodeTaintsPolicy()).isEqualTo("Honor");
      assertThat(t.getMatchLabelKeys()).containsExactly("rev");
    });
  }

  @Test
  void emptyArgsMeanSystemDefaulting() {
    assertThat(PodTopologySpreadArgs.parse(Map.of()).systemDefaulting()).isTrue();
    assertThat(PodTopologySpread.SYSTEM_DEFAULT_CONSTRAINTS)
        .extracting(t -> t.getTopologyKey() + "/" + t.getMaxSkew() + "/"
            + t.getWhenUnsatisfiable())
        .containsExactly("kubernetes.io/hostname/3/ScheduleAnyway",
            "topology.kubernetes.io/zone/5/ScheduleAnyway");
  }

  @Test
  void qualifiedNamesAcceptPrefixedKeysAndRejectBadPrefixes() {
    assertThat(QualifiedNames.validate("topology.kubernetes.io/zone")).isEmpty();
    assertThat(QualifiedNames.validate("/zone")).containsExactly("prefix part must be non-empty");
    assertThat(QualifiedNames.validate("x".repeat(64)))
        .containsExactly("name part must be no more than 63 characters");
  }
}
