package io.berth.plugins.podtopologyspread;

/**
 * The two topology domains with the fewest matching pods for one constraint, as upstream's
 * {@code criticalPaths}. Slot 0 always holds the global minimum; slot 1 holds a count at least as
 * large, but not necessarily the second smallest once counts have been updated incrementally.
 *
 * <p>Two slots are enough because preemption only ever removes pods from one node per simulation
 * and evaluates each node on its own copy of the state: a single domain's count moves at a time,
 * so the minimum can only move to that domain or to the other remembered one. Not thread-safe:
 * confined to its {@link PreFilterState}, whose lock guards it.
 */
final class CriticalPaths {
  // Upstream starts both slots at value "" and MaxInt32; the empty value can collide with a real
  // domain whose label value is "", which upstream tolerates, and so do we.
  private String value0 = "";
  private int num0 = Integer.MAX_VALUE;
  private String value1 = "";
  private int num1 = Integer.MAX_VALUE;

  CriticalPaths copy() {
    CriticalPaths c = new CriticalPaths();
    c.value0 = value0;
    c.num0 = num0;
    c.value1 = value1;
    c.num1 = num1;
    return c;
  }

  /** The smallest count seen; {@link Integer#MAX_VALUE} when no domain was recorded. */
  int minMatchNum() {
    return num0;
  }

  String minValue() {
    return value0;
  }

  String secondValue() {
    return value1;
  }

  int secondMatchNum() {
    return num1;
  }

  /** Records that domain {@code value} now has {@code num} matching pods. */
  void update(String value, int num) {
    if (value.equals(value0)) {
      num0 = num;
      swapIfUnordered();
    } else if (value.equals(value1)) {
      num1 = num;
      swapIfUnordered();
    } else if (num < num0) {
      value1 = value0;
      num1 = num0;
      value0 = value;
      num0 = num;
    } else if (num < num1) {
      value1 = value;
      num1 = num;
    }
  }

  private void swapIfUnordered() {
    if (num0 > num1) {
      String v = value0;
      int n = num0;
      value0 = value1;
      num0 = num1;
      value1 = v;
      num1 = n;
    }
  }

  @Override
  public String toString() {
    return "[{" + value0 + " " + num0 + "} {" + value1 + " " + num1 + "}]";
  }
}
