package io.berth.scheduler.explain;

import io.berth.framework.QueuedPodInfo;
import io.berth.scheduler.queue.QueueName;
import io.berth.scheduler.queue.SchedulingQueue;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@link QueueView} of a live {@link SchedulingQueue}: which queue holds the pod and why, in
 * the words of upstream's queue (activeQ, backoffQ, unschedulablePods, gated by a PreEnqueue
 * plugin), its attempts and when its backoff ends. Thread-safe: every read takes the queue's lock.
 */
public final class QueueStates implements QueueView {
  private final SchedulingQueue queue;

  public QueueStates(SchedulingQueue queue) {
    this.queue = Objects.requireNonNull(queue, "queue");
  }

  @Override
  public Optional<QueueState> state(String namespace, String name) {
    Optional<QueueName> where = queue.queueOf(namespace, name);
    Optional<QueuedPodInfo> info = queue.getPod(namespace, name);
    if (where.isEmpty() || info.isEmpty()) {
      for (Pod p : queue.inFlightPods()) {
        if (namespace.equals(p.getMetadata().getNamespace())
            && name.equals(p.getMetadata().getName())) {
          return Optional.of(new QueueState("inFlight", "being scheduled now", List.of(), 0,
              Optional.empty()));
        }
      }
      return Optional.empty();
    }
    QueuedPodInfo p = info.get();
    List<String> plugins = List.copyOf(p.unschedulablePlugins());
    return Optional.of(switch (where.get()) {
      case ACTIVE -> new QueueState("active", "waiting in activeQ for its turn", List.of(),
          p.attempts(), Optional.empty());
      case BACKOFF -> new QueueState("backoff", "backing off after " + p.attempts()
          + " attempt(s)", plugins, p.attempts(), Optional.of(queue.backoffExpiry(p)));
      case UNSCHEDULABLE -> new QueueState("unschedulable", plugins.isEmpty()
          ? "unschedulable: waiting for any cluster event"
          : "unschedulable: waiting for a cluster event that " + String.join(", ", plugins)
              + " registered", plugins, p.attempts(), Optional.of(queue.backoffExpiry(p)));
      case GATED -> new QueueState("gated", "gated by PreEnqueue plugin "
          + p.gatingPlugin().orElse("?"), p.gatingPlugin().map(List::of).orElse(List.of()),
          p.attempts(), Optional.empty());
    });
  }
}
