package io.berth.plugins.defaultpreemption;

import static io.berth.plugins.defaultpreemption.PreemptionFixtures.HIGH;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.LOW;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.MEDIUM;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.node;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.nodeInfos;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.framework.ActionType;
import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.Code;
import io.berth.framework.EventResource;
import io.berth.framework.FeatureGates;
import io.berth.framework.NodeToStatus;
import io.berth.framework.NominatingInfo;
import io.berth.framework.PodApi;
import io.berth.framework.PodStatusPatch;
import io.berth.framework.PostFilterResult;
import io.berth.framework.QueueingHint;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * DefaultPreemption with the SchedulerAsyncPreemption gate: PostFilter nominates at once while the
 * victims' API calls run in the background, PreEnqueue holds the preemptor back until they are
 * done, the last victim goes only after the hold is lifted, and a failed call activates the pod.
 */
class AsyncPreemptionTest {
  private static final FeatureGates ASYNC = FeatureGates.parse("SchedulerAsyncPreemption=true");

  /** Records the calls; deletions wait for {@code release} (one count per deletion). */
  private static final class GatedPodApi implements PodApi {
    final CountDownLatch release;
    // guarded by `this` (synchronized lists)
    final List<String> deleted = Collections.synchronizedList(new ArrayList<>());
    final List<Boolean> preemptingAtDelete = Collections.synchronizedList(new ArrayList<>());
    volatile DefaultPreemption plugin;
    volatile Pod preemptor;
    final String failOn;

    GatedPodApi(int deletions, String failOn) {
      this.release = new CountDownLatch(deletions);
      this.failOn = failOn;
    }

    @Override
    public boolean patchStatus(Pod pod, PodStatusPatch patch) {
      return true;
    }

    @Override
    public boolean delete(Pod pod) {
      try {
        if (!release.await(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException("never released");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      if (pod.getMetadata().getName().equals(failOn)) {
        throw new IllegalStateException("injected failure deleting " + failOn);
      }
      preemptingAtDelete.add(plugin.preEnqueue(preemptor).code()
          == Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
      deleted.add(pod.getMetadata().getName());
      return true;
    }
  }

  private PreemptionRuntime runtime(GatedPodApi api, List<String> activated) {
    return PreemptionRuntime.builder().fit().featureGates(ASYNC).podApi(api)
        .activator(pods -> pods.forEach(p -> activated.add(p.getMetadata().getName())))
        .nodes(nodeInfos(List.of(node("node1", Map.of("cpu", "600m", "memory", "600"))),
            List.of(pod("v1").uid("v1").priority(LOW).node("node1").req(MEDIUM).obj(),
                pod("v2").uid("v2").priority(LOW).node("node1").req(MEDIUM).obj(),
                pod("v3").uid("v3").priority(LOW).node("node1").req(MEDIUM).obj())))
        .build();
  }

  private static NodeToStatus insufficientCpu() {
    NodeToStatus m = new NodeToStatus();
    m.set("node1", Status.unschedulable("Insufficient cpu"));
    return m;
  }

  @Test
  void postFilterNominatesAtOnceAndPreEnqueueWaitsUntilTheVictimsAreGone() {
    GatedPodApi api = new GatedPodApi(3, null);
    List<String> activated = Collections.synchronizedList(new ArrayList<>());
    PreemptionRuntime rt = runtime(api, activated);
    api.plugin = rt.plugin;
    Pod preemptor = pod("p").uid("p").priority(HIGH)
        .req(Map.of("cpu", "600m", "memory", "600")).obj();
    api.preemptor = preemptor;

    PostFilterResult r = rt.fw.runPostFilterPlugins(rt.preFiltered(preemptor), preemptor,
        insufficientCpu());

    assertThat(r.status()).isEqualTo(Status.SUCCESS);
    assertThat(r.nominatingInfo()).isEqualTo(NominatingInfo.override("node1"));
    // nothing was deleted yet: the calls wait for the release
    assertThat(api.deleted).isEmpty();
    Status held = rt.plugin.preEnqueue(preemptor);
    assertThat(held.code()).isEqualTo(Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    assertThat(held.message()).isEqualTo(DefaultPreemption.REASON_WAITING_FOR_PREEMPTION);
    assertThat(rt.fw.runPreEnqueuePlugins(preemptor).plugin()).isEqualTo(DefaultPreemption.NAME);

    for (int i = 0; i < 3; i++) {
      api.release.countDown();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> api.deleted.size() == 3);
    assertThat(api.deleted).containsExactlyInAnyOrder("v1", "v2", "v3");
    // the first two go while the preemptor is held, the last one after the hold is lifted
    assertThat(api.preemptingAtDelete).containsExactly(true, true, false);
    await().atMost(Duration.ofSeconds(10))
        .until(() -> rt.plugin.preEnqueue(preemptor).isSuccess());
    assertThat(activated).isEmpty();
  }

  @Test
  void aFailedVictimCallActivatesThePreemptorAndLiftsTheHold() {
    GatedPodApi api = new GatedPodApi(0, "v2");
    List<String> activated = Collections.synchronizedList(new ArrayList<>());
    PreemptionRuntime rt = runtime(api, activated);
    api.plugin = rt.plugin;
    Pod preemptor = pod("p").uid("p").priority(HIGH)
        .req(Map.of("cpu", "600m", "memory", "600")).obj();
    api.preemptor = preemptor;

    PostFilterResult r = rt.fw.runPostFilterPlugins(rt.preFiltered(preemptor), preemptor,
        insufficientCpu());

    assertThat(r.status()).isEqualTo(Status.SUCCESS);
    await().atMost(Duration.ofSeconds(10)).until(() -> activated.contains("p"));
    assertThat(rt.plugin.preEnqueue(preemptor)).isEqualTo(Status.SUCCESS);
    assertThat(api.deleted).doesNotContain("v2");
  }

  @Test
  void registersPodDeletionWithASkipHintOnlyWhenAsynchronous() {
    List<ClusterEventWithHint> events = runtime(new GatedPodApi(0, null), new ArrayList<>())
        .plugin.eventsToRegister();
    assertThat(events).hasSize(1);
    assertThat(events.get(0).event().resource()).isEqualTo(EventResource.POD);
    assertThat(events.get(0).event().actionType()).isEqualTo(ActionType.DELETE);
    assertThat(events.get(0).hint().hint(pod("p").obj(), pod("v1").obj(), null))
        .isEqualTo(QueueingHint.QUEUE_SKIP);
    assertThat(PreemptionRuntime.builder().fit().build().plugin.eventsToRegister()).isEmpty();
  }
}
