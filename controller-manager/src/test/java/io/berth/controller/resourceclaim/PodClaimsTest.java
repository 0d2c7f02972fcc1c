package io.berth.controller.resourceclaim;

import static io.berth.controller.resourceclaim.ResourceClaimFixtures.generatedClaim;
import static io.berth.controller.resourceclaim.ResourceClaimFixtures.podWithTemplate;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import org.junit.jupiter.api.Test;

/** How pod entries resolve to claims, and the generated names. */
class PodClaimsTest {

  @Test
  void aShortBaseIsPodDashClaimDash() {
    assertThat(PodClaims.generateName("train", "gpus")).isEqualTo("train-gpus-");
  }

  @Test
  void aLongBaseCutsBothPartsInProportionToStayWithin57Characters() {
    String pod = "p".repeat(60);
    String claim = "c".repeat(30);
    String base = PodClaims.generateName(pod, claim);
    // 60 * 57 / 92 = 37 and 30 * 57 / 92 = 18, as upstream's integer arithmetic.
    assertThat(base).isEqualTo("p".repeat(37) + "-" + "c".repeat(18));
    assertThat(base.length()).isLessThanOrEqualTo(PodClaims.MAX_GENERATE_NAME_BASE);
  }

  @Test
  void entriesResolveThroughTheClaimNameTheStatusOrNotAtAll() {
    Pod pod = podWithTemplate("train", "t");
    PodResourceClaim templated = pod.getSpec().getResourceClaims().get(0);
    assertThat(PodClaims.claimName(pod, templated)).isInstanceOf(PodClaims.NotCreated.class);
    Pod recorded = podWithTemplate("train", "t", new PodResourceClaimStatus("gpus", "train-gpus-x"));
    assertThat(PodClaims.claimName(recorded, templated)).isEqualTo(new PodClaims.Named("train-gpus-x", true));
    Pod notNeeded = podWithTemplate("train", "t", new PodResourceClaimStatus("gpus", null));
    assertThat(PodClaims.claimName(notNeeded, templated)).isInstanceOf(PodClaims.NotNeeded.class);
    PodResourceClaim direct = new PodResourceClaimBuilder().withName("x").withResourceClaimName("shared").build();
    assertThat(PodClaims.claimName(pod, direct)).isEqualTo(new PodClaims.Named("shared", false));
    PodResourceClaim neither = new PodResourceClaimBuilder().withName("y").build();
    assertThat(PodClaims.claimName(pod, neither)).isInstanceOf(PodClaims.Unsupported.class);
  }

  @Test
  void aClaimIsForThePodThatOwnsIt() {
    Pod pod = podWithTemplate("train", "t");
    Pod other = podWithTemplate("other", "t");
    assertThat(PodClaims.notForPod(pod, generatedClaim("c", pod, false))).isEmpty();
    assertThat(PodClaims.notForPod(other, generatedClaim("c", pod, false))).hasValue(
        "ResourceClaim default/c was not created for pod default/other (pod is not owner)");
  }

  @Test
  void aPodIsDoneWhenTerminalOrDeletedBeforeScheduling() {
    Pod pending = podWithTemplate("p", "t");
    assertThat(PodClaims.isDone(pending)).isFalse();
    assertThat(PodClaims.isDone(ResourceClaimFixtures.withPhase(pending, "Succeeded"))).isTrue();
    Pod deleting = new PodBuilder(pending).editMetadata().withDeletionTimestamp("2026-01-01T00:00:00Z")
        .endMetadata().build();
    assertThat(PodClaims.isDone(deleting)).isTrue();
    assertThat(PodClaims.isDone(ResourceClaimFixtures.onNode(deleting, "n1"))).isFalse();
  }
}
