package io.berth.controller.deployment;

import static io.berth.controller.deployment.Fixtures.rolling;
import static io.berth.controller.deployment.Fixtures.rs;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class RollingRolloutTest {

    @Test
    void scalesTheNewReplicaSetBeforeTouchingOldOnes() {
        Deployment d = rolling(10, 2, 2);
        RollingRollout.Step step = RollingRollout.plan(d, rs("new", 0, 0, 10), List.of(rs("old", 10, 0)));
        assertThat(step.kind()).isEqualTo(RollingRollout.Kind.SCALE_NEW);
        assertThat(step.scales()).extracting(ReplicaSetScale::newReplicas).containsExactly(2);
    }

    @Test
    void scalesOldDownWhenTheNewCannotGrow() {
        Deployment d = rolling(10, 2, 2);
        RollingRollout.Step step = RollingRollout.plan(d, rs("new", 2, 2, 10), List.of(rs("old", 10, 0)));
        assertThat(step.kind()).isEqualTo(RollingRollout.Kind.SCALE_DOWN_OLD);
        assertThat(step.scales()).extracting(ReplicaSetScale::name, ReplicaSetScale::newReplicas)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("old", 6));
    }

    @Test
    void steadyRolloutTrimsHistoryOnlyWhenComplete() {
        Deployment d = new DeploymentBuilder(rolling(3, 1, 0)).editSpec().withRevisionHistoryLimit(0).endSpec()
                .build();
        ReplicaSet nu = rs("new", 3, 3, 10);
        ReplicaSet drained = rs("drained", 0, 0);
        RollingRollout.Step incomplete = RollingRollout.plan(d, nu, List.of(drained));
        assertThat(incomplete.kind()).isEqualTo(RollingRollout.Kind.STEADY);
        assertThat(incomplete.toDelete()).isEmpty();
        Deployment complete = new DeploymentBuilder(d).withNewStatus().withObservedGeneration(1L).withReplicas(3)
                .withUpdatedReplicas(3).withAvailableReplicas(3).endStatus().build();
        RollingRollout.Step done = RollingRollout.plan(complete, nu, List.of(drained));
        assertThat(done.kind()).isEqualTo(RollingRollout.Kind.STEADY);
        assertThat(done.toDelete()).extracting(ReplicaSetUtil::name).containsExactly("drained");
    }

    @Test
    void newReplicaSetAboveReplicasIsScaledDown() {
        RollingRollout.Step step = RollingRollout.plan(rolling(5, 1, 0), rs("new", 6, 6, 10), List.of());
        assertThat(step.kind()).isEqualTo(RollingRollout.Kind.SCALE_NEW);
        assertThat(step.scales().get(0).eventMessage()).contains("Scaled down replica set new to 5 from 6");
    }
}
