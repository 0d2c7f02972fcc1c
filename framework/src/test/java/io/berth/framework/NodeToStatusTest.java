package io.berth.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NodeToStatusTest {
  private static final Status CPU = Status.unschedulable("Insufficient cpu");
  private static final Status TAINT = Status.unresolvable("node(s) had untolerated taint");

  @Test
  void absentNodesHaveTheAbsentStatus() {
    NodeToStatus m = new NodeToStatus();
    assertThat(m.get("node-1").code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    m.set("node-1", CPU);
    m.setAbsentNodesStatus(TAINT);
    assertThat(m.get("node-1")).isSameAs(CPU);
    assertThat(m.get("node-2")).isSameAs(TAINT);
    assertThat(m.get("")).isSameAs(TAINT);
    assertThat(m.size()).isEqualTo(1);
  }

  @Test
  void settingANodeAgainReplacesItsStatusBeforeAndAfterTheFirstLookup() {
    NodeToStatus m = new NodeToStatus();
    m.set("a", CPU);
    m.set("b", CPU);
    m.set("a", TAINT); // not indexed yet: appended, folded when the index is built
    assertThat(m.size()).isEqualTo(2);
    assertThat(m.get("a")).isSameAs(TAINT);
    m.set("b", TAINT); // indexed: replaced in place
    m.set(new String("a"), CPU); // equal, not identical
    assertThat(m.size()).isEqualTo(2);
    assertThat(m.get("a")).isSameAs(CPU);
    assertThat(m.get("b")).isSameAs(TAINT);
    // the view iterates in first-set order
    assertThat(m.statuses().keySet()).containsExactly("a", "b");
  }

  @Test
  void theViewIsReadOnly() {
    NodeToStatus m = new NodeToStatus();
    m.set("a", CPU);
    Map<String, Status> view = m.statuses();
    assertThatThrownBy(() -> view.put("b", CPU)).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> view.entrySet().iterator().next().setValue(TAINT))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(view).containsExactly(Map.entry("a", CPU));
    assertThat(view.get("b")).isNull();
    assertThat(view.containsKey("a")).isTrue();
  }

  /** Random sets, lookups and reservations, against a HashMap holding the same statuses. */
  @Test
  void behavesAsAMapUnderRandomUse() {
    Status[] statuses = {CPU, TAINT, Status.unschedulable("Too many pods"), Status.error("boom")};
    for (int seed = 1; seed <= 50; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      NodeToStatus m = new NodeToStatus();
      Map<String, Status> expected = new HashMap<>();
      int names = 1 + random.nextInt(3000);
      int ops = random.nextInt(5000);
      for (int op = 0; op < ops; op++) {
        String name = "node-" + random.nextInt(names);
        int what = random.nextInt(100);
        if (what < 60) {
          Status s = statuses[random.nextInt(statuses.length)];
          m.set(name, s);
          expected.put(name, s);
        } else if (what < 99) {
          assertThat(m.get(name)).as("seed %d, %s", seed, name)
              .isSameAs(expected.getOrDefault(name, m.absentNodesStatus()));
        } else {
          m.reserve(random.nextInt(2000));
        }
      }
      assertThat(m.size()).as("seed %d", seed).isEqualTo(expected.size());
      assertThat(m.statuses()).as("seed %d", seed).isEqualTo(expected);
    }
  }

  /**
   * statusesOf gives every node what get gives it, for Filter's pattern (every node set once, in the snapshot's order
   * from a rotated start) and for what breaks it: a name set twice (the nominated node filtered first), nodes left to
   * the absent status, an equal but not identical name, a shuffled order, lookups made before (the index built).
   */
  @Test
  void statusesOfAgreesWithGetForFiltersOrderAndEverythingThatBreaksIt() {
    Status[] statuses = {CPU, TAINT, Status.unschedulable("Too many pods")};
    for (int seed = 1; seed <= 400; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      int n = 1 + random.nextInt(300);
      java.util.List<NodeInfo> nodes = new java.util.ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        nodes.add(NodeInfo.of(NodeInfoTest.node("node-" + i, "4", "8Gi")));
      }
      NodeToStatus m = new NodeToStatus();
      Map<String, Status> expected = new HashMap<>();
      int variant = random.nextInt(6);
      if (variant == 1) {
        // the nominated node first, then the whole pass again
        NodeInfo nominated = nodes.get(random.nextInt(n));
        m.set(nominated.nodeName(), TAINT);
        expected.put(nominated.nodeName(), TAINT);
      }
      java.util.List<Integer> order = new java.util.ArrayList<>();
      int start = random.nextInt(n);
      for (int i = 0; i < n; i++) {
        order.add((start + i) % n);
      }
      if (variant == 4) {
        java.util.Collections.shuffle(order, new java.util.Random(seed));
      }
      for (int i : order) {
        if (variant == 2 && random.nextInt(10) == 0) {
          continue; // feasible, or not reached: no status of its own
        }
        String name = nodes.get(i).nodeName();
        if (variant == 3 && random.nextInt(20) == 0) {
          name = new String(name);
        }
        Status st = statuses[random.nextInt(statuses.length)];
        m.set(name, st);
        expected.put(name, st);
      }
      if (variant == 5) {
        m.get(nodes.get(0).nodeName()); // builds the index
      }
      Status[] got = m.statusesOf(nodes);
      assertThat(got).hasSize(n);
      for (int i = 0; i < n; i++) {
        String name = nodes.get(i).nodeName();
        assertThat(got[i]).as("seed %d, variant %d, %s", seed, variant, name)
            .isSameAs(expected.getOrDefault(name, m.absentNodesStatus()));
      }
      // size and iteration after the walk (the failure message counts them), then after one more set
      assertThat(m.size()).as("seed %d, variant %d", seed, variant).isEqualTo(expected.size());
      assertThat(m.statuses()).as("seed %d, variant %d", seed, variant).isEqualTo(expected);
      assertThat(java.util.List.copyOf(m.statuses().values())).hasSize(expected.size());
      String again = nodes.get(random.nextInt(n)).nodeName();
      m.set(again, CPU);
      expected.put(again, CPU);
      assertThat(m.size()).as("seed %d, variant %d", seed, variant).isEqualTo(expected.size());
      assertThat(m.statuses()).as("seed %d, variant %d", seed, variant).isEqualTo(expected);
      for (int i = 0; i < n; i++) {
        String name = nodes.get(i).nodeName();
        assertThat(m.get(name)).isSameAs(expected.getOrDefault(name, m.absentNodesStatus()));
      }
    }
  }

  @Test
  void statusesOfAnEmptyMapIsTheAbsentStatusForEveryNode() {
    NodeToStatus m = new NodeToStatus();
    m.setAbsentNodesStatus(CPU);
    java.util.List<NodeInfo> nodes = java.util.List.of(NodeInfo.of(NodeInfoTest.node("a", "1", "1Gi")),
        NodeInfo.of(NodeInfoTest.node("b", "1", "1Gi")));
    assertThat(m.statusesOf(nodes)).containsExactly(CPU, CPU);
    assertThat(m.statusesOf(java.util.List.of())).isEmpty();
  }
}
