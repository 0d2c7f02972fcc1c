package io.berth.bench.scheduler;

import io.berth.framework.PodApi;
import io.berth.framework.PodStatusPatch;
import io.berth.informer.ResourceEventHandler;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The in-process harness's API server for the scheduler's pod writes: a status patch or a deletion
 * changes the harness's map of current pods at once (as the server's store would) and is then
 * delivered to the scheduler's pod handler on one "watch" thread, in order, as an informer would.
 * Deletions are immediate, as for scheduler_perf's pods with {@code terminationGracePeriodSeconds:
 * 0}. Thread-safe: the map is concurrent, writes to one pod are serialized on the pod's map entry
 * (its event is queued under that entry's lock, so one pod's events keep their order), and events
 * leave through a single-thread executor.
 */
final class HarnessPodApi implements PodApi, AutoCloseable {
  private final Map<String, Pod> current;
  private final Supplier<ResourceEventHandler<Pod>> handler;
  private final ExecutorService watch = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "harness-watch");
    t.setDaemon(true);
    return t;
  });
  private final AtomicLong resourceVersion = new AtomicLong(1_000_000);
  private final AtomicLong deletions = new AtomicLong();
  private final AtomicLong patches = new AtomicLong();

  HarnessPodApi(Map<String, Pod> current, Supplier<ResourceEventHandler<Pod>> handler) {
    this.current = current;
    this.handler = handler;
  }

  @Override
  public boolean patchStatus(Pod pod, PodStatusPatch patch) {
    Pod[] change = new Pod[1];
    current.computeIfPresent(key(pod), (k, old) -> {
      PodBuilder b = new PodBuilder(old).editMetadata()
          .withResourceVersion(Long.toString(resourceVersion.incrementAndGet())).endMetadata();
      if (patch.condition().isPresent()) {
        PodCondition c = patch.condition().get();
        List<PodCondition> conditions = new ArrayList<>();
        if (old.getStatus() != null && old.getStatus().getConditions() != null) {
          for (PodCondition existing : old.getStatus().getConditions()) {
            if (!existing.getType().equals(c.getType())) {
              conditions.add(existing);
            }
          }
        }
        conditions.add(c);
        b.editOrNewStatus().withConditions(conditions).endStatus();
      }
      patch.nominatedNodeName().ifPresent(n -> b.editOrNewStatus()
          .withNominatedNodeName(n.isEmpty() ? null : n).endStatus());
      Pod updated = b.build();
      change[0] = updated;
      // sent while the pod's entry is locked, so one pod's events leave in the order made
      watch.execute(() -> handler.get().onUpdate(old, updated));
      return updated;
    });
    if (change[0] == null) {
      return false;
    }
    patches.incrementAndGet();
    return true;
  }

  @Override
  public boolean delete(Pod pod) {
    boolean[] deleted = new boolean[1];
    current.computeIfPresent(key(pod), (k, gone) -> {
      deleted[0] = true;
      watch.execute(() -> handler.get().onDelete(gone, false));
      return null;
    });
    if (deleted[0]) {
      deletions.incrementAndGet();
    }
    return deleted[0];
  }

  long deletions() {
    return deletions.get();
  }

  long patches() {
    return patches.get();
  }

  @Override
  public void close() throws InterruptedException {
    watch.shutdown();
    watch.awaitTermination(10, TimeUnit.SECONDS);
  }

  private static String key(Pod p) {
    return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
  }
}
