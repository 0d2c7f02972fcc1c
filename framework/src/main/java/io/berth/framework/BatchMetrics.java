package io.berth.framework;

/**
 * Where opportunistic batching reports, with upstream's metric names:
 * {@code scheduler_batch_attempts_total{profile,result}},
 * {@code scheduler_batch_cache_flushed_total{profile,reason}},
 * {@code scheduler_get_node_hint_duration_seconds{hinted,profile}} and
 * {@code scheduler_store_schedule_results_duration_seconds{profile}}. Implementations are
 * thread-safe; the batch calls them from the scheduling thread.
 */
public interface BatchMetrics {
  /** Reports nothing. */
  BatchMetrics NOOP = new BatchMetrics() {
    @Override
    public void batchAttempt(String profile, String result) {}

    @Override
    public void batchCacheFlushed(String profile, String reason) {}

    @Override
    public void nodeHintDuration(boolean hinted, String profile, long nanos) {}

    @Override
    public void storeScheduleResultsDuration(String profile, long nanos) {}
  };

  /** {@code result}: no_hint, hint_used or hint_not_used. */
  void batchAttempt(String profile, String result);

  /** {@code reason}: why the batch state was dropped (pod_skipped, expired ...). */
  void batchCacheFlushed(String profile, String reason);

  void nodeHintDuration(boolean hinted, String profile, long nanos);

  void storeScheduleResultsDuration(String profile, long nanos);
}
