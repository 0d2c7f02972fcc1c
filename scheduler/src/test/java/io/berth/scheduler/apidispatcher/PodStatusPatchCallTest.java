package io.berth.scheduler.apidispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.NominatingInfo;
import io.berth.framework.PodApi;
import io.berth.framework.PodStatusPatch;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The status patch call, translated from upstream's {@code pod_status_patch_test.go} (IsNoOp,
 * Merge, Sync, Execute) against a PodApi that records the patches it is sent.
 */
class PodStatusPatchCallTest {
  private final List<PodStatusPatch> sent = new ArrayList<>();
  private final PodApi api = new PodApi() {
    @Override
    public boolean patchStatus(Pod pod, PodStatusPatch patch) {
      sent.add(patch);
      return true;
    }

    @Override
    public boolean delete(Pod pod) {
      throw new AssertionError("no deletes");
    }
  };

  private static PodCondition scheduled(String status) {
    return new PodConditionBuilder().withType("PodScheduled").withStatus(status).build();
  }

  private static PodCondition condition(String type, String status) {
    return new PodConditionBuilder().withType(type).withStatus(status).build();
  }

  /** upstream's podWithNode: nominated to node-a, PodScheduled=False. */
  private static Pod podOnNodeA() {
    return new PodBuilder().withNewMetadata().withUid("uid").withName("pod").withNamespace("ns")
        .endMetadata().withNewStatus().withNominatedNodeName("node-a")
        .addToConditions(scheduled("False")).endStatus().build();
  }

  private PodStatusPatchCall call(Pod pod, PodCondition condition, NominatingInfo nominating) {
    return new PodStatusPatchCall(api, pod, Optional.ofNullable(condition), nominating);
  }

  @Test
  void isNoOpWhenConditionAndNodeNameMatch() {
    assertThat(call(podOnNodeA(), scheduled("False"), NominatingInfo.override("node-a")).isNoOp())
        .isTrue();
  }

  @Test
  void isNotNoOpWhenTheConditionDiffers() {
    assertThat(call(podOnNodeA(), scheduled("True"), NominatingInfo.override("node-a")).isNoOp())
        .isFalse();
  }

  @Test
  void isNotNoOpWhenTheNominatedNodeDiffers() {
    assertThat(call(podOnNodeA(), scheduled("False"), NominatingInfo.override("node-b")).isNoOp())
        .isFalse();
  }

  @Test
  void isNoOpWithoutAConditionWhenTheNodeNameMatches() {
    assertThat(call(podOnNodeA(), null, NominatingInfo.override("node-a")).isNoOp()).isTrue();
  }

  @Test
  void isNotNoOpWithoutAConditionWhenTheNodeNameDiffers() {
    assertThat(call(podOnNodeA(), null, NominatingInfo.override("node-b")).isNoOp()).isFalse();
  }

  @Test
  void clearingAnAbsentNominationIsANoOpAndANoopNominationChangesNothing() {
    Pod bare = new PodBuilder(podOnNodeA()).editStatus().withNominatedNodeName(null).endStatus()
        .build();
    assertThat(call(bare, null, NominatingInfo.override("")).isNoOp()).isTrue();
    assertThat(call(bare, scheduled("False"), NominatingInfo.NOOP).isNoOp()).isTrue();
  }

  @Test
  void mergeTakesTheOlderNominationAndConditionWhenTheNewerHasNone() {
    Pod pod = new PodBuilder().withNewMetadata().withUid("uid").endMetadata().build();
    PodStatusPatchCall older = call(pod, scheduled("False"), NominatingInfo.override("node-a"));
    PodStatusPatchCall newer = call(pod, null, NominatingInfo.NOOP);

    newer.mergeFrom(older);

    assertThat(newer.nominating()).isEqualTo(NominatingInfo.override("node-a"));
    assertThat(newer.conditions()).extracting(PodCondition::getType).containsExactly("PodScheduled");
  }

  @Test
  void mergeKeepsTheNewerNominationAndCondition() {
    Pod pod = new PodBuilder().withNewMetadata().withUid("uid").endMetadata().build();
    PodStatusPatchCall older = call(pod, scheduled("True"), NominatingInfo.NOOP);
    PodStatusPatchCall newer = call(pod, scheduled("False"), NominatingInfo.override("node-b"));

    newer.mergeFrom(older);

    assertThat(newer.nominating()).isEqualTo(NominatingInfo.override("node-b"));
    assertThat(newer.conditions()).extracting(PodCondition::getStatus).containsExactly("False");
  }

  @Test
  void mergeKeepsTheOlderConditionsOfOtherTypes() {
    Pod pod = new PodBuilder().withNewMetadata().withUid("uid").endMetadata().build();
    PodStatusPatchCall older = call(pod, condition("DisruptionTarget", "True"), NominatingInfo.NOOP);
    PodStatusPatchCall newer = call(pod, scheduled("False"), NominatingInfo.NOOP);

    newer.mergeFrom(older);

    assertThat(newer.conditions()).extracting(PodCondition::getType)
        .containsExactly("PodScheduled", "DisruptionTarget");
  }

  @Test
  void mergeRefusesACallOfAnotherType() {
    Pod pod = podOnNodeA();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> call(pod, null,
        NominatingInfo.NOOP).mergeFrom(new PodBindingCall(pod, "n", () -> null)))
        .hasMessageContaining("pod_binding");
  }

  @Test
  void syncBeforeExecutionRefreshesTheKnownStatusAndReturnsThePodAsPatched() {
    PodStatusPatchCall call = call(podOnNodeA(), null, NominatingInfo.override("node-c"));
    Pod updated = new PodBuilder(podOnNodeA()).editStatus().withNominatedNodeName("node-b")
        .endStatus().build();

    Pod synced = call.sync(updated);

    assertThat(call.known().getNominatedNodeName()).isEqualTo("node-b");
    assertThat(synced.getStatus().getNominatedNodeName()).isEqualTo("node-c");
    assertThat(updated.getStatus().getNominatedNodeName()).as("not mutated").isEqualTo("node-b");
  }

  @Test
  void syncDuringOrAfterExecutionKeepsTheKnownStatusButStillReturnsThePodAsPatched() {
    PodStatusPatchCall call = call(podOnNodeA(), null, NominatingInfo.override("node-c"));
    call.execute();
    Pod updated = new PodBuilder(podOnNodeA()).editStatus().withNominatedNodeName("node-b")
        .endStatus().build();

    Pod synced = call.sync(updated);

    assertThat(call.known().getNominatedNodeName()).isEqualTo("node-a");
    assertThat(synced.getStatus().getNominatedNodeName()).isEqualTo("node-c");
  }

  @Test
  void syncWithAPodThatShowsThePatchMakesItANoOpAndReturnsThePodItself() {
    Pod pod = new PodBuilder().withNewMetadata().withUid("uid").endMetadata().build();
    PodStatusPatchCall call = call(pod, scheduled("False"), NominatingInfo.override("node-a"));
    assertThat(call.isNoOp()).isFalse();

    Pod written = podOnNodeA();
    assertThat(call.sync(written)).isSameAs(written);
    assertThat(call.isNoOp()).isTrue();
  }

  @Test
  void executeSendsTheConditionAndTheNominationInOnePatch() {
    Pod pod = new PodBuilder().withNewMetadata().withUid("uid").withName("pod").withNamespace("ns")
        .endMetadata().withNewStatus().withNominatedNodeName("node-a").endStatus().build();

    call(pod, scheduled("False"), NominatingInfo.override("")).execute();

    assertThat(sent).containsExactly(new PodStatusPatch(Optional.of(scheduled("False")),
        Optional.of("")));
  }

  @Test
  void executeSendsOnlyWhatTheKnownStatusDoesNotShow() {
    call(podOnNodeA(), scheduled("False"), NominatingInfo.override("node-b")).execute();

    assertThat(sent).containsExactly(PodStatusPatch.nominatedNodeName("node-b"));
  }

  @Test
  void executeSkipsTheRequestOfANoOp() {
    call(podOnNodeA(), null, NominatingInfo.override("node-a")).execute();

    assertThat(sent).isEmpty();
  }

  @Test
  void aCallThatWaitedBehindARunningOneSendsEverythingEvenIfItLooksLikeANoOp() {
    PodStatusPatchCall call = call(podOnNodeA(), null, NominatingInfo.override("node-a"));
    call.afterRunningCall();

    assertThat(call.isNoOp()).isFalse();
    call.execute();
    assertThat(sent).containsExactly(PodStatusPatch.nominatedNodeName("node-a"));
  }

  @Test
  void aSecondConditionTypeGoesInASecondPatch() {
    Pod pod = new PodBuilder().withNewMetadata().withUid("uid").endMetadata().build();
    PodStatusPatchCall call = call(pod, scheduled("False"), NominatingInfo.override("n"));
    call.mergeFrom(call(pod, condition("DisruptionTarget", "True"), NominatingInfo.NOOP));

    call.execute();

    assertThat(sent).containsExactly(
        new PodStatusPatch(Optional.of(scheduled("False")), Optional.of("n")),
        PodStatusPatch.condition(condition("DisruptionTarget", "True")));
  }
}
