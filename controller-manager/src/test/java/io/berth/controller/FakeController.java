package io.berth.controller;

import io.berth.informer.Lister;
import io.berth.informer.ResourceEventHandler;
import io.berth.workqueue.RateLimiters;
import io.berth.workqueue.RateLimitingQueue;
import io.berth.workqueue.WorkQueues;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A minimal controller shaped like the real ones: a ConfigMap informer feeds a rate-limited queue (with the
 * daemon's workqueue metrics) and workers sync each key from the lister inside {@link ControllerMetrics#timeSync}.
 * Its {@link Probe} tells the test what the daemon did to it. Thread-safe: the probe's fields are volatile or
 * concurrent; the worker list is confined to start/shutDown, which the daemon calls once each.
 */
final class FakeController implements Controller {

  /** What happened to one controller. Thread-safe. */
  static final class Probe {
    volatile int startedWorkers = -1;
    final List<Duration> shutDowns = new CopyOnWriteArrayList<>();
    final Set<String> synced = ConcurrentHashMap.newKeySet();
  }

  private final String name;
  private final Probe probe;
  private final Lister<ConfigMap> lister;
  private final RateLimitingQueue<String> queue;
  private final ControllerMetrics metrics;
  private final List<Thread> workers = new ArrayList<>();

  private FakeController(String name, ControllerContext context, Probe probe) {
    this.name = name;
    this.probe = probe;
    this.lister = context.informers().lister(ConfigMap.class);
    this.queue = WorkQueues.newRateLimitingQueue(name, RateLimiters.defaultControllerRateLimiter(context.clock()),
        context.clock(), context.queueMetrics());
    this.metrics = context.syncMetrics();
    context.informers().informerFor(ConfigMap.class).addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(ConfigMap obj, boolean isInInitialList) {
        queue.add(obj.getMetadata().getNamespace() + "/" + obj.getMetadata().getName());
      }
    });
  }

  static ControllerFactory factory(String name, Probe probe) {
    return context -> new FakeController(name, context, probe);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public synchronized void start(int workerCount) {
    probe.startedWorkers = workerCount;
    for (int i = 0; i < workerCount; i++) {
      Thread t = new Thread(this::work, name + "-worker-" + i);
      t.setDaemon(true);
      t.start();
      workers.add(t);
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
          metrics.timeSync(name, () -> {
            String[] parts = key.get().split("/", 2);
            if (lister.get(parts[0], parts[1]).isPresent()) {
              probe.synced.add(key.get());
            }
          });
          queue.forget(key.get());
        } finally {
          queue.done(key.get());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public synchronized boolean shutDown(Duration timeout) throws InterruptedException {
    probe.shutDowns.add(timeout);
    queue.shutDown();
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Thread t : workers) {
      TimeUnit.NANOSECONDS.timedJoin(t, Math.max(1, deadline - System.nanoTime()));
    }
    return workers.stream().noneMatch(Thread::isAlive);
  }
}
