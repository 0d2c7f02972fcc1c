package io.berth.plugins.defaultpreemption;

import static io.berth.plugins.defaultpreemption.PreemptionFixtures.HIGH;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.LOW;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.ONE_POD;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.node;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.nodeInfos;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.CycleState;
import io.berth.framework.NodeToStatus;
import io.berth.framework.NominatingInfo;
import io.berth.framework.PermitPlugin;
import io.berth.framework.PermitResult;
import io.berth.framework.PostFilterResult;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A victim still parked at Permit is rejected through its WaitingPod instead of being deleted
 * (the runtime here has no API client, so a deletion would fail the preemption), and still gets
 * its Preempted event.
 */
class WaitingVictimTest {
  @Test
  void waitingVictimIsRejectedInsteadOfDeleted() throws InterruptedException {
    Pod victim = pod("victim").namespace("default").node("node1").priority(LOW).obj();
    Pod preemptor = pod("p").namespace("default").priority(HIGH).obj();
    PermitPlugin waitForever = new PermitPlugin() {
      @Override
      public String name() {
        return "WaitForever";
      }

      @Override
      public PermitResult permit(CycleState state, Pod pod, String nodeName) {
        return PermitResult.waitFor(Duration.ofMinutes(10));
      }
    };
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    PreemptionRuntime rt = PreemptionRuntime.builder().fit()
        .plugin("WaitForever", (args, handle) -> waitForever)
        .nodes(nodeInfos(List.of(node("node1", ONE_POD)), List.of(victim)))
        .events((regarding, type, reason, action, message) ->
            events.add(regarding.getMetadata().getName() + " " + reason + " " + message))
        .build();
    assertThat(rt.fw.runPermitPlugins(new CycleState(), victim, "node1").code())
        .isEqualTo(Code.WAIT);
    NodeToStatus statuses = new NodeToStatus();
    statuses.set("node1", Status.unschedulable("Too many pods"));

    PostFilterResult r = rt.plugin.postFilter(rt.preFiltered(preemptor), preemptor, statuses);

    assertThat(r.status()).isEqualTo(Status.SUCCESS);
    assertThat(r.nominatingInfo()).isEqualTo(NominatingInfo.override("node1"));
    Status outcome = rt.fw.waitOnPermit(victim);
    assertThat(outcome.code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(outcome.plugin()).isEqualTo(DefaultPreemption.NAME);
    assertThat(outcome.message()).isEqualTo("preempted");
    assertThat(events).containsExactly("victim Preempted Preempted by pod p on node node1");
  }
}
