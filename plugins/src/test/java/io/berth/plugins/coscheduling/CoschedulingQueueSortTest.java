package io.berth.plugins.coscheduling;

import static io.berth.plugins.coscheduling.GangFixtures.member;
import static io.berth.plugins.coscheduling.GangFixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.PodInfo;
import io.berth.framework.QueuedPodInfo;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** QueueSort as scheduler-plugins' TestLess: priority, then group creation (or queue) time, then group key. */
class CoschedulingQueueSortTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant T1 = T0.plusSeconds(1);
  private static final Instant T2 = T0.plusSeconds(2);

  private static QueuedPodInfo queued(Pod pod, Instant at) {
    QueuedPodInfo q = new QueuedPodInfo(PodInfo.of(pod), at);
    q.setInitialAttemptTimestamp(at);
    return q;
  }

  private static Pod prio(String name, String group, int priority) {
    return new PodBuilder(member(name, group).build()).editSpec().withPriority(priority).endSpec().build();
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("higher priority first", prio("p1", null, 10), T0, prio("p2", null, 20), T0, false),
        Arguments.of("lower priority last", prio("p1", null, 20), T1, prio("p2", null, 10), T0, true),
        Arguments.of("equal priority: queued earlier first", prio("p1", null, 0), T0, prio("p2", null, 0), T1, true),
        Arguments.of("equal priority: queued later last", prio("p1", null, 0), T2, prio("p2", null, 0), T1, false),
        Arguments.of("group created (T0) before the other pod queued (T1)", prio("p1", "pg-old", 0), T2,
            prio("p2", null, 0), T1, true),
        Arguments.of("pod queued (T0) before the group was created (T1)", prio("p1", null, 0), T0,
            prio("p2", "pg-new", 0), T0, true),
        Arguments.of("older group first whatever the queue times", prio("p1", "pg-new", 0), T0,
            prio("p2", "pg-old", 0), T2, false),
        Arguments.of("equal creation: smaller group key first", prio("p1", "pg-b", 0), T0,
            prio("p2", "pg-a", 0), T0, false),
        Arguments.of("same group: pod name breaks the tie", prio("p1", "pg-old", 0), T2,
            prio("p2", "pg-old", 0), T0, true),
        Arguments.of("priority beats group age", prio("p1", "pg-old", 0), T0, prio("p2", "pg-new", 5), T0, false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void lessOrdersByPriorityThenGroupCreationThenKey(String name, Pod a, Instant queuedA, Pod b, Instant queuedB,
      boolean aFirst) {
    GangFixtures.Gang gang = new GangFixtures.Gang().groups(
        podGroup("pg-old", Map.of("minMember", 1), T0), podGroup("pg-new", Map.of("minMember", 1), T1),
        podGroup("pg-a", Map.of("minMember", 1), T0.minusSeconds(10)),
        podGroup("pg-b", Map.of("minMember", 1), T0.minusSeconds(10)));
    Coscheduling plugin = gang.build();
    assertThat(plugin.less(queued(a, queuedA), queued(b, queuedB))).isEqualTo(aFirst);
    if (aFirst) {
      assertThat(plugin.less(queued(b, queuedB), queued(a, queuedA))).as("asymmetric").isFalse();
    }
  }

  @Test
  void theSamePodsAreReorderedWhenTheirPodGroupChangesOrGoes() {
    GangFixtures.Gang gang = new GangFixtures.Gang().groups(podGroup("pg-x", Map.of("minMember", 1), T1),
        podGroup("pg-y", Map.of("minMember", 1), T0));
    Coscheduling plugin = gang.build();
    // the very same queued pods throughout: what QueueSort derived of them must follow their groups
    QueuedPodInfo x = queued(prio("p1", "pg-x", 0), T0);
    QueuedPodInfo y = queued(prio("p2", "pg-y", 0), T2);
    assertThat(plugin.less(x, y)).as("pg-y is older").isFalse();
    assertThat(plugin.less(y, x)).isTrue();
    // pg-x re-created before pg-y
    gang.groups(podGroup("pg-x", Map.of("minMember", 1), T0.minusSeconds(5)));
    assertThat(plugin.less(x, y)).as("pg-x is older now").isTrue();
    assertThat(plugin.less(y, x)).isFalse();
    // pg-x deleted: p1 orders by its own queue time (T0), still before pg-y (created T0)? equal times, then keys
    gang.groups.remove("ns/pg-x");
    assertThat(plugin.less(x, y)).as("\"ns/p1\" < \"ns/pg-y\"").isTrue();
    // pg-y malformed: p2 orders by its queue time T2, after p1's T0
    gang.groups(podGroup("pg-y", Map.of("minMember", 0), T0));
    assertThat(plugin.less(x, y)).isTrue();
    assertThat(plugin.less(y, x)).isFalse();
    // pg-x back, created T2 + 1 s: after p2's queue time
    gang.groups(podGroup("pg-x", Map.of("minMember", 1), T2.plusSeconds(1)));
    assertThat(plugin.less(x, y)).isFalse();
    assertThat(plugin.less(y, x)).isTrue();
  }

  @Test
  void aRelabelledPodIsOrderedByItsNewGroup() {
    GangFixtures.Gang gang = new GangFixtures.Gang().groups(podGroup("pg-old", Map.of("minMember", 1), T0),
        podGroup("pg-new", Map.of("minMember", 1), T2));
    Coscheduling plugin = gang.build();
    Pod p = prio("p1", "pg-new", 0);
    QueuedPodInfo other = queued(prio("p2", null, 0), T1);
    QueuedPodInfo before = queued(p, T0);
    assertThat(plugin.less(before, other)).as("pg-new (T2) after p2's T1").isFalse();
    Pod relabelled = new PodBuilder(p).editMetadata().addToLabels(io.berth.plugins.coscheduling.PodGroup.LABEL,
        "pg-old").endMetadata().build();
    before.setPodInfo(PodInfo.of(relabelled));
    assertThat(plugin.less(before, other)).as("pg-old (T0) before p2's T1").isTrue();
  }
}
