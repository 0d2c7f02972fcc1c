package io.berth.informer;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A handler that records each notification as text ("add a@5 initial", "update a@5->a@7",
 * "delete b@6 unknown"), optionally waiting on a gate before each one. Thread-safe: the queue is
 * concurrent and the gate is a latch.
 */
final class RecordingHandler implements ResourceEventHandler<Pod> {

  final BlockingQueue<String> events = new LinkedBlockingQueue<>();
  final List<Pod> objects = java.util.Collections.synchronizedList(new ArrayList<>());
  private final CountDownLatch gate;

  RecordingHandler() {
    this(new CountDownLatch(0));
  }

  RecordingHandler(CountDownLatch gate) {
    this.gate = gate;
  }

  static String name(Pod pod) {
    return pod.getMetadata().getName() + "@" + pod.getMetadata().getResourceVersion();
  }

  private void pass() {
    try {
      gate.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void onAdd(Pod obj, boolean isInInitialList) {
    pass();
    objects.add(obj);
    events.add("add " + name(obj) + (isInInitialList ? " initial" : ""));
  }

  @Override
  public void onUpdate(Pod oldObj, Pod newObj) {
    pass();
    objects.add(newObj);
    events.add("update " + name(oldObj) + "->" + name(newObj));
  }

  @Override
  public void onDelete(Pod obj, boolean finalStateUnknown) {
    pass();
    objects.add(obj);
    events.add("delete " + name(obj) + (finalStateUnknown ? " unknown" : ""));
  }

  String next() throws InterruptedException {
    String event = events.poll(20, TimeUnit.SECONDS);
    if (event == null) {
      throw new AssertionError("no notification within 20 s");
    }
    return event;
  }

  /** The next n notifications, in order. */
  List<String> next(int n) throws InterruptedException {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(next());
    }
    return out;
  }
}
