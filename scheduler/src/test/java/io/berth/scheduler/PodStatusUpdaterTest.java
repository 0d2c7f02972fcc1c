package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.PodApi;
import io.berth.framework.PodStatusPatch;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The status writes of the scheduling loop, against a PodApi that records them. */
class PodStatusUpdaterTest {
  private final List<PodStatusPatch> patches = new ArrayList<>();
  private final PodStatusUpdater updater = new PodStatusUpdater(new PodApi() {
    @Override
    public boolean patchStatus(Pod pod, PodStatusPatch patch) {
      patches.add(patch);
      return true;
    }

    @Override
    public boolean delete(Pod pod) {
      throw new AssertionError("no deletes");
    }
  });

  private static Pod pod(String nominated) {
    return new PodBuilder().withNewMetadata().withNamespace("default").withName("p").endMetadata()
        .withNewSpec().endSpec().withNewStatus().withNominatedNodeName(nominated).endStatus()
        .build();
  }

  @Test
  void nominateWritesTheNominationAlone() {
    assertThat(updater.nominate(pod(null), "n1")).isTrue();

    assertThat(patches).containsExactly(PodStatusPatch.nominatedNodeName("n1"));
  }

  @Test
  void nominateSkipsAPodAlreadyNominatedThere() {
    assertThat(updater.nominate(pod("n1"), "n1")).isFalse();

    assertThat(patches).isEmpty();
  }

  @Test
  void aNominationTheInformerHasNotSeenYetIsStillCleared() {
    Pod stale = pod(null);

    updater.update(PodStatusUpdater.withNominatedNodeNameIfUnset(stale, "n1"), "SchedulerError",
        "boom", "");

    assertThat(patches).hasSize(1);
    assertThat(patches.get(0).nominatedNodeName()).isEqualTo(Optional.of(""));
    assertThat(stale.getStatus().getNominatedNodeName()).as("the cached pod is not mutated")
        .isNull();
  }

  @Test
  void aNominationAlreadyVisibleIsLeftAsTheInformerHasIt() {
    Pod other = pod("n2");

    assertThat(PodStatusUpdater.withNominatedNodeNameIfUnset(other, "n1")).isSameAs(other);
  }

  /** An ApiCacher that records the patches it is given and completes them with {@code outcome}. */
  private static final class RecordingCacher implements io.berth.framework.ApiCacher {
    final List<String> calls = new ArrayList<>();
    final Outcome outcome;

    RecordingCacher(Outcome outcome) {
      this.outcome = outcome;
    }

    @Override
    public java.util.concurrent.CompletionStage<Outcome> patchPodStatus(Pod pod,
        Optional<io.fabric8.kubernetes.api.model.PodCondition> condition,
        io.berth.framework.NominatingInfo nominating) {
      calls.add(condition.map(c -> c.getType() + "=" + c.getStatus() + " " + c.getReason())
          .orElse("-") + " " + nominating.mode() + ":" + nominating.nominatedNodeName());
      return outcome == null ? new java.util.concurrent.CompletableFuture<>()
          : java.util.concurrent.CompletableFuture.completedFuture(outcome);
    }

    @Override
    public java.util.concurrent.CompletionStage<Outcome> bindPod(Pod pod, String nodeName,
        java.util.function.Supplier<io.berth.framework.Status> binding) {
      throw new AssertionError("no bindings");
    }
  }

  @Test
  void withACacherTheConditionAndNominationAreQueuedNotWritten() {
    RecordingCacher cacher = new RecordingCacher(null);
    PodStatusUpdater async = new PodStatusUpdater(updaterApi(), Optional.of(cacher));

    assertThat(async.update(pod(null), "Unschedulable", "0/3 nodes", "n1")).isTrue();
    assertThat(async.update(pod(null), "Unschedulable", "0/3 nodes", null)).isTrue();
    assertThat(async.nominate(pod(null), "n2")).isTrue();

    assertThat(cacher.calls).containsExactly("PodScheduled=False Unschedulable OVERRIDE:n1",
        "PodScheduled=False Unschedulable NOOP:", "- OVERRIDE:n2");
    assertThat(patches).as("nothing written on the caller's thread").isEmpty();
  }

  @Test
  void withACacherAPodThatAlreadyShowsTheConditionIsStillQueuedForTheDispatcherToJudge() {
    RecordingCacher cacher = new RecordingCacher(io.berth.framework.ApiCacher.Outcome.SKIPPED);
    PodStatusUpdater async = new PodStatusUpdater(updaterApi(), Optional.of(cacher));

    assertThat(async.nominate(pod("n1"), "n1")).as("skipped at once: no write").isFalse();
    assertThat(cacher.calls).containsExactly("- OVERRIDE:n1");
  }

  private PodApi updaterApi() {
    return new PodApi() {
      @Override
      public boolean patchStatus(Pod pod, PodStatusPatch patch) {
        patches.add(patch);
        return true;
      }

      @Override
      public boolean delete(Pod pod) {
        throw new AssertionError("no deletes");
      }
    };
  }
}
