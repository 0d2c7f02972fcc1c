package io.berth.controller.deployment;

import static io.berth.controller.deployment.Fixtures.rolling;
import static io.berth.controller.deployment.Fixtures.rs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplicaSetScaleTest {

    @Test
    void applyToSetsSizeAndReplicasAnnotationsOnACopy() {
        ReplicaSet original = Fixtures.withAnnotations(rs("a", 4, 0), Map.of("keep", "me"));
        ReplicaSetScale step = ReplicaSetScale.to(original, 7);
        ReplicaSet written = step.applyTo(rolling(10, "25%", 1));
        assertThat(written.getSpec().getReplicas()).isEqualTo(7);
        assertThat(written.getMetadata().getAnnotations())
                .containsEntry("keep", "me")
                .containsEntry(ProportionalScaling.DESIRED_REPLICAS_ANNOTATION, "10")
                .containsEntry(ProportionalScaling.MAX_REPLICAS_ANNOTATION, "13");
        assertThat(original.getSpec().getReplicas()).isEqualTo(4);
        assertThat(original.getMetadata().getAnnotations()).containsOnlyKeys("keep");
    }

    @Test
    void directionAndEventMessage() {
        ReplicaSetScale up = ReplicaSetScale.to(rs("web-1", 2, 0), 5);
        assertThat(up.scalingOperation()).isEqualTo("up");
        assertThat(up.eventMessage()).contains("Scaled up replica set web-1 to 5 from 2");
        ReplicaSetScale down = ReplicaSetScale.to(rs("web-1", 2, 0), 0);
        assertThat(down.eventMessage()).contains("Scaled down replica set web-1 to 0 from 2");
        assertThat(new ReplicaSetScale(rs("web-1", 2, 0), 2, "").eventMessage()).isEmpty();
        assertThat(ReplicaSetScale.EVENT_REASON).isEqualTo("ScalingReplicaSet");
    }

    @Test
    void ontoKeepsTheTargetAgainstAFresherObject() {
        ReplicaSetScale step = ReplicaSetScale.to(rs("a", 4, 0), 2);
        ReplicaSetScale rebased = step.onto(rs("a", 3, 0));
        assertThat(rebased.newReplicas()).isEqualTo(2);
        assertThat(rebased.oldReplicas()).isEqualTo(3);
    }

    @Test
    void negativeTargetIsRejected() {
        assertThatThrownBy(() -> new ReplicaSetScale(rs("a", 1, 0), -1, "down"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
