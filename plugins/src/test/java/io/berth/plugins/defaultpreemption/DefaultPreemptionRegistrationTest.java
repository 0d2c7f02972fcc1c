package io.berth.plugins.defaultpreemption;

import static io.berth.plugins.defaultpreemption.PreemptionFixtures.ONE_POD;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.node;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.nodeInfos;
import static io.berth.plugins.defaultpreemption.PreemptionFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Code;
import io.berth.framework.NodeToStatus;
import io.berth.framework.NominatingInfo;
import io.berth.framework.PostFilterResult;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * DefaultPreemption as the runtime sees it: enabled through multiPoint it lands at PostFilter and
 * PreEnqueue (which only gates with asynchronous preemption), registers no events without
 * asynchronous preemption (the harness turns it off), and its rejection reaches the scheduler named after
 * it with the nomination cleared.
 */
class DefaultPreemptionRegistrationTest {
  @Test
  void multiPointEnablesItAtPostFilterAndPreEnqueue() {
    PreemptionRuntime rt = PreemptionRuntime.builder().fit().build();
    assertThat(rt.fw.listPlugins().get("PostFilter")).containsExactly(DefaultPreemption.NAME);
    assertThat(rt.fw.listPlugins().get("PreEnqueue")).containsExactly(DefaultPreemption.NAME);
    assertThat(rt.plugin.preEnqueue(pod("p").obj())).isEqualTo(Status.SUCCESS);
    assertThat(rt.fw.listPlugins().get("Filter")).doesNotContain(DefaultPreemption.NAME);
    assertThat(rt.plugin.name()).isEqualTo("DefaultPreemption");
    assertThat(rt.plugin.eventsToRegister()).isEmpty();
  }

  @Test
  void runtimeReportsTheRejectionUnderThePluginName() {
    Pod preemptor = pod("p").namespace("default").obj();
    PreemptionRuntime rt = PreemptionRuntime.builder().fit()
        .nodes(nodeInfos(List.of(node("node1", ONE_POD)),
            List.of(pod("p1").namespace("default").node("node1").obj())))
        .build();
    NodeToStatus statuses = new NodeToStatus();
    statuses.set("node1", Status.unschedulable("Too many pods"));

    PostFilterResult r = rt.fw.runPostFilterPlugins(rt.preFiltered(preemptor), preemptor,
        statuses);

    assertThat(r.status().code()).isEqualTo(Code.UNSCHEDULABLE);
    assertThat(r.status().plugin()).isEqualTo(DefaultPreemption.NAME);
    assertThat(r.status().message()).isEqualTo("preemption: 0/1 nodes are available: 1 No"
        + " preemption victims found for incoming pod.");
    assertThat(r.nominatingInfo()).isEqualTo(NominatingInfo.override(""));
  }
}
