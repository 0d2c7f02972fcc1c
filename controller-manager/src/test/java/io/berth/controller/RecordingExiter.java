package io.berth.controller;

import static org.awaitility.Awaitility.await;

import io.berth.component.Exiter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An {@link Exiter} that records statuses instead of ending the JVM. Thread-safe: the list is concurrent. */
final class RecordingExiter implements Exiter {

  private final List<Integer> statuses = new CopyOnWriteArrayList<>();

  @Override
  public void exit(int status) {
    statuses.add(status);
  }

  List<Integer> statuses() {
    return List.copyOf(statuses);
  }

  /** Waits until a status was recorded and returns them all. */
  List<Integer> awaitStatuses() {
    await().atMost(Duration.ofSeconds(30)).until(() -> !statuses.isEmpty());
    return statuses();
  }
}
