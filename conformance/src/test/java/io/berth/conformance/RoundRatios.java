package io.berth.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The ratio of two contestants' figures round by round (round {@code r} of one against round {@code r} of the
 * other) and their median, for the side-by-side table: on a machine whose speed drifts between windows, the mean
 * of each contestant's rates hides how often one round beat the other. Stateless; pure functions.
 */
final class RoundRatios {

  private RoundRatios() {
  }

  /** {@code figure(ours[r]) / figure(theirs[r])} for each round both have. */
  static <T> List<Double> of(List<T> ours, List<T> theirs, ToDoubleFunction<T> figure) {
    int n = Math.min(ours.size(), theirs.size());
    List<Double> ratios = new ArrayList<>(n);
    for (int r = 0; r < n; r++) {
      ratios.add(figure.applyAsDouble(ours.get(r)) / figure.applyAsDouble(theirs.get(r)));
    }
    return ratios;
  }

  /** The median (the mean of the middle two for an even count); NaN for none. */
  static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int mid = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(mid) : (sorted.get(mid - 1) + sorted.get(mid)) / 2;
  }

  /** e.g. {@code ... per round: 1.40×, 1.00×, 2.10×, 1.50×; median 1.45×, 2 of 4 rounds at 1.5× or more}. */
  static String describe(List<Double> ratios) {
    StringBuilder out = new StringBuilder("Berth / kube-scheduler pods/s per round: ");
    long atTarget = 0;
    for (int i = 0; i < ratios.size(); i++) {
      out.append(i == 0 ? "" : ", ").append(String.format("%.2f×", ratios.get(i)));
      if (ratios.get(i) >= 1.5) {
        atTarget++;
      }
    }
    return out.append(String.format("; median %.2f×, %d of %d rounds at 1.5× or more", median(ratios), atTarget,
        ratios.size())).toString();
  }
}
