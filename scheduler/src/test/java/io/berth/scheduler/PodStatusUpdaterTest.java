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
}
