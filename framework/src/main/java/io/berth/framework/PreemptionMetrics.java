package io.berth.framework;

/**
 * Where preemption reports kube-scheduler's preemption metrics:
 * {@code scheduler_preemption_attempts_total}, {@code scheduler_preemption_victims} and, with
 * asynchronous preemption, {@code scheduler_preemption_goroutines_duration_seconds{result}} and
 * {@code scheduler_preemption_goroutines_execution_total{result}}. Implementations must be
 * thread-safe (the asynchronous preparation reports from its own threads); {@link #NOOP} discards.
 */
public interface PreemptionMetrics {
  /** Discards everything. */
  PreemptionMetrics NOOP = new PreemptionMetrics() {
    @Override
    public void attempt() {}

    @Override
    public void victims(int count) {}

    @Override
    public void asyncPreparation(boolean succeeded, long nanos) {}
  };

  /** A PostFilter preemption attempt (counted whatever its outcome, as upstream). */
  void attempt();

  /** The victims of the chosen candidate. */
  void victims(int count);

  /** An asynchronous preparation ended: all its API calls succeeded or not, after {@code nanos}. */
  void asyncPreparation(boolean succeeded, long nanos);
}
