package io.berth.scheduler.apidispatcher;

import java.util.function.Supplier;

/**
 * Where the {@link ApiDispatcher} reports, as upstream's metrics of the async API calls:
 * {@code scheduler_async_api_call_execution_total{call_type,result}},
 * {@code scheduler_async_api_call_execution_duration_seconds{call_type,result}} (result
 * {@code success} or {@code error}) and {@code scheduler_pending_async_api_calls{call_type}}.
 * Implementations are thread-safe: the dispatcher's threads call them.
 */
public interface ApiDispatcherMetrics {
  /** Records nothing. */
  ApiDispatcherMetrics NOOP = new ApiDispatcherMetrics() {
    @Override
    public void executed(String callType, String result, long nanos) { }

    @Override
    public void registerPendingCalls(String callType, Supplier<Number> pending) { }
  };

  /** A call of {@code callType} ran for {@code nanos} and ended with {@code result}. */
  void executed(String callType, String result, long nanos);

  /** Registers the gauge of the calls of {@code callType} waiting to run, read from {@code pending}. */
  void registerPendingCalls(String callType, Supplier<Number> pending);
}
