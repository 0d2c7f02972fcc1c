package io.berth.simulator;

import io.berth.informer.Lister;
import io.berth.informer.ResourceEventHandler;
import io.berth.workqueue.RateLimiters;
import io.berth.workqueue.RateLimitingQueue;
import io.berth.workqueue.WorkQueues;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stand-in for Berth's scheduler in the demo, until the scheduler lands: a controller in the client-go shape
 * (informer handler → rate-limited work queue → worker reading listers → API write) that binds each pending pod of
 * the default scheduler to the next Ready, schedulable node, round robin. It checks nothing else (no resources, no
 * taints): it exists to show the informer and the work queue at work against the embedded cluster.
 *
 * <p>Thread-safe: the queue is; the worker thread is the only reader of {@code next}.
 */
final class DemoBinder implements ResourceEventHandler<Pod>, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger("io.berth.simulator.binder");

  private final KubernetesClient client;
  private final Lister<Pod> pods;
  private final Lister<Node> nodes;
  private final RateLimitingQueue<String> queue =
      WorkQueues.newRateLimitingQueue(RateLimiters.defaultControllerRateLimiter());
  private final AtomicInteger next = new AtomicInteger();
  private final Thread worker;

  DemoBinder(KubernetesClient client, Lister<Pod> pods, Lister<Node> nodes) {
    this.client = client;
    this.pods = pods;
    this.nodes = nodes;
    this.worker = new Thread(this::work, "demo-binder");
    worker.setDaemon(true);
    worker.start();
  }

  private static boolean pending(Pod pod) {
    return (pod.getSpec().getNodeName() == null || pod.getSpec().getNodeName().isEmpty())
        && pod.getMetadata().getDeletionTimestamp() == null
        && "default-scheduler".equals(pod.getSpec().getSchedulerName());
  }

  private void enqueue(Pod pod) {
    if (pending(pod)) {
      queue.add(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName());
    }
  }

  @Override
  public void onAdd(Pod obj, boolean isInInitialList) {
    enqueue(obj);
  }

  @Override
  public void onUpdate(Pod oldObj, Pod newObj) {
    enqueue(newObj);
  }

  private void work() {
    try {
      while (true) {
        Optional<String> key = queue.get();
        if (key.isEmpty()) {
          return;
        }
        try {
          bind(key.get());
          queue.forget(key.get());
        } catch (KubernetesClientException e) {
          LOG.warn("binding {} failed ({}); retrying with backoff", key.get(), e.getMessage());
          queue.addRateLimited(key.get());
        } finally {
          queue.done(key.get());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void bind(String key) {
    String[] parts = key.split("/", 2);
    Optional<Pod> pod = pods.get(parts[0], parts[1]);
    if (pod.isEmpty() || !pending(pod.get())) {
      return;
    }
    List<Node> candidates = nodes.list().stream()
        .filter(n -> !Boolean.TRUE.equals(n.getSpec().getUnschedulable()))
        .filter(n -> n.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True")))
        .sorted(Comparator.comparing(n -> n.getMetadata().getName()))
        .toList();
    if (candidates.isEmpty()) {
      throw new KubernetesClientException("no Ready, schedulable node for " + key);
    }
    String node = candidates.get(Math.floorMod(next.getAndIncrement(), candidates.size())).getMetadata().getName();
    client.bindings().inNamespace(parts[0]).resource(new BindingBuilder().withNewMetadata().withName(parts[1])
        .withNamespace(parts[0]).endMetadata().withNewTarget().withKind("Node").withName(node).endTarget().build())
        .create();
    LOG.info("bound {} to {}", key, node);
  }

  @Override
  public void close() {
    queue.shutDown();
    worker.interrupt();
  }
}
