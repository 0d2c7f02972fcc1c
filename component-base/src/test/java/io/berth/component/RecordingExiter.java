package io.berth.component;

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

  /** Waits until some status was recorded (the daemon exits right after it reports termination). */
  List<Integer> awaitStatuses() {
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).until(() -> !statuses.isEmpty());
    return statuses();
  }
}
