package io.berth.controller;

import io.berth.informer.Lister;
import io.berth.informer.ResourceEventHandler;
import io.berth.informer.SharedInformerFactory;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in scheduler for integration tests (there is no Berth scheduler yet): binds every pending pod to the
 * next Ready node, round robin, so the simulated kubelet runs it. It can be paused to leave pods Pending. Uses the
 * informers of the given factory (registered before the factory starts), a rate-limited queue and one worker.
 * Thread-safe: the queue and the atomics are.
 */
public final class TestBinder implements AutoCloseable {

  private final KubernetesClient client;
  private final Lister<Pod> pods;
  private final Lister<Node> nodes;
  private final RateLimitingQueue<String> queue =
      WorkQueues.newRateLimitingQueue(RateLimiters.defaultControllerRateLimiter());
  private final AtomicInteger next = new AtomicInteger();
  private final AtomicBoolean paused = new AtomicBoolean();
  private final Thread worker;

  public TestBinder(KubernetesClient client, SharedInformerFactory informers) {
    this.client = client;
    this.pods = informers.lister(Pod.class);
    this.nodes = informers.lister(Node.class);
    informers.informerFor(Pod.class).addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod pod, boolean initial) {
        enqueue(pod);
      }

      @Override
      public void onUpdate(Pod oldPod, Pod pod) {
        enqueue(pod);
      }
    });
    this.worker = new Thread(this::work, "test-binder");
    worker.setDaemon(true);
    worker.start();
  }

  /** Stops binding; pods created meanwhile stay Pending. */
  public void pause() {
    paused.set(true);
  }

  /** Binds again, including the pods left pending while paused. */
  public void resume() {
    paused.set(false);
    for (Pod pod : pods.list()) {
      enqueue(pod);
    }
  }

  private static boolean pending(Pod pod) {
    return (pod.getSpec().getNodeName() == null || pod.getSpec().getNodeName().isEmpty())
        && pod.getMetadata().getDeletionTimestamp() == null;
  }

  private void enqueue(Pod pod) {
    if (pending(pod) && !paused.get()) {
      queue.add(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName());
    }
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
          if (e.getCode() != 404 && e.getCode() != 409) {
            queue.addRateLimited(key.get());
          }
        } finally {
          queue.done(key.get());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void bind(String key) {
    if (paused.get()) {
      return;
    }
    String[] parts = key.split("/", 2);
    Optional<Pod> pod = pods.get(parts[0], parts[1]);
    if (pod.isEmpty() || !pending(pod.get())) {
      return;
    }
    List<Node> ready = nodes.list().stream()
        .filter(n -> n.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True")))
        .sorted(Comparator.comparing(n -> n.getMetadata().getName()))
        .toList();
    if (ready.isEmpty()) {
      throw new KubernetesClientException("no Ready node for " + key);
    }
    String node = ready.get(Math.floorMod(next.getAndIncrement(), ready.size())).getMetadata().getName();
    client.bindings().inNamespace(parts[0]).resource(new BindingBuilder().withNewMetadata().withName(parts[1])
        .withNamespace(parts[0]).endMetadata().withNewTarget().withKind("Node").withName(node).endTarget().build())
        .create();
  }

  @Override
  public void close() {
    queue.shutDown();
    worker.interrupt();
  }
}
