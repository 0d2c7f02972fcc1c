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
}
