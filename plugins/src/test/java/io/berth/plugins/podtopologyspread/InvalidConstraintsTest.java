package io.berth.plugins.podtopologyspread;

import static io.berth.plugins.podtopologyspread.SpreadFixtures.ANYWAY;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.DNS;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.fooSelector;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.listPlugin;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.node;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.nodeInfos;
import static io.berth.plugins.podtopologyspread.SpreadFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.NodeInfo;
import io.berth.framework.Status;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** A malformed constraint on the pod is rejected with the field named, never thrown. */
class InvalidConstraintsTest {

  record Case(String name, Pod pod, String message) {}

  static Stream<Case> cases() {
    return Stream.of(
        new Case("maxSkew zero", pod("p").spread(0, "zone", DNS, fooSelector()).obj(),
            "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than"
                + " zero"),
        new Case("empty topologyKey", pod("p").spread(1, "", DNS, fooSelector()).obj(),
            "spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty"),
        new Case("unknown whenUnsatisfiable",
            pod("p").spread(1, "zone", "Sometimes", fooSelector()).obj(),
            "spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value:"
                + " \"Sometimes\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\""),
        new Case("bad selector operator on the second constraint",
            pod("p").spread(1, "zone", DNS, fooSelector())
                .spread(1, "node", DNS, new LabelSelectorBuilder().addNewMatchExpression()
                    .withKey("foo").withOperator("Near").endMatchExpression().build()).obj(),
            "spec.topologySpreadConstraints[1].labelSelector.matchExpressions[0].operator:"
                + " Unsupported value: \"Near\": supported values: \"In\", \"NotIn\","
                + " \"Exists\", \"DoesNotExist\""),
        new Case("In without values", pod("p").spread(1, "zone", DNS,
            new LabelSelectorBuilder().addNewMatchExpression().withKey("foo").withOperator("In")
                .endMatchExpression().build()).obj(),
            "spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].values:"
                + " Required value: must be specified when `operator` is 'In' or 'NotIn'"),
        new Case("unknown node inclusion policy",
            pod("p").spread(1, "zone", DNS, fooSelector(), null, "Sometimes", null).obj(),
            "spec.topologySpreadConstraints[0].nodeAffinityPolicy: Unsupported value:"
                + " \"Sometimes\": supported values: \"Honor\", \"Ignore\""),
        new Case("an invalid soft constraint is caught at PreFilter too",
            pod("p").spread(1, "zone", DNS, fooSelector())
                .spread(-2, "zone", ANYWAY, fooSelector()).obj(),
            "spec.topologySpreadConstraints[1].maxSkew: Invalid value: -2: must be greater than"
                + " zero"));
  }

  @TestFactory
  Stream<DynamicTest> preFilterRejectsInvalidConstraintsNamingTheField() {
    List<NodeInfo> infos = nodeInfos(List.of(node("n").label("zone", "z").obj()), List.of());
    PodTopologySpread plugin = listPlugin(new TestHandle().withNodes(infos));
    return cases().map(c -> DynamicTest.dynamicTest(c.name(), () -> {
      CycleState state = new CycleState();
      assertThat(plugin.preFilter(state, c.pod(), infos).status())
          .isEqualTo(Status.unresolvable(c.message()));
      assertThat(state.read(PreFilterState.KEY, PreFilterState.class)).isEmpty();
    }));
  }

  @Test
  void preScoreRejectsAnInvalidSoftConstraint() {
    List<NodeInfo> infos = nodeInfos(List.of(node("n").label("zone", "z").obj()), List.of());
    PodTopologySpread plugin = listPlugin(new TestHandle().withNodes(infos));
    Pod pod = pod("p").spread(1, "zone", "Maybe", fooSelector()).obj();
    Status status = plugin.preScore(new CycleState(), pod, infos);
    assertThat(status).isEqualTo(Status.unresolvable("spec.topologySpreadConstraints[0]"
        + ".whenUnsatisfiable: Unsupported value: \"Maybe\": supported values:"
        + " \"DoNotSchedule\", \"ScheduleAnyway\""));
  }

  @Test
  void unparsableNodeAffinityCountsNoNodeInsteadOfThrowing() {
    // Upstream ignores the parse error and treats every node as not matching.
    List<NodeInfo> infos = nodeInfos(List.of(node("n").label("zone", "z").obj()), List.of());
    PodTopologySpread plugin = listPlugin(new TestHandle().withNodes(infos));
    Pod pod = pod("p").label("foo", "").nodeAffinity("zone", "Around", "z")
        .spread(1, "zone", DNS, fooSelector()).obj();
    CycleState state = new CycleState();
    assertThat(plugin.preFilter(state, pod, infos).status()).isEqualTo(Status.SUCCESS);
    assertThat(state.readOrFail(PreFilterState.KEY, PreFilterState.class).matchNums(0))
        .isEmpty();
    assertThat(plugin.filter(state, pod, infos.get(0))).isEqualTo(Status.SUCCESS);
  }
}
