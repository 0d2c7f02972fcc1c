package io.berth.scheduler.explain;

/**
 * Joins the recorded attempts ({@link ExplainStore}) with the live queue ({@link QueueView}) into
 * an {@link Explanation}. Thread-safe (both parts are); the entry point of in-process readers
 * such as the simulator's dashboard and of {@code GET /debug/explain}.
 */
public final class Explainer {
  private final ExplainStore store;
  private final QueueView queue;

  public Explainer(ExplainStore store, QueueView queue) {
    this.store = store;
    this.queue = queue;
  }

  public ExplainStore store() {
    return store;
  }

  /** The pod's explanation; {@link Explanation#isEmpty()} when nothing is known of it. */
  public Explanation explain(String namespace, String name) {
    return new Explanation(namespace, name, store.attempts(namespace, name),
        queue.state(namespace, name));
  }
}
