package io.berth.controller.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import org.junit.jupiter.api.Test;

class DeploymentDefaultsTest {

    @Test
    void bareDeploymentGetsEveryDefault() {
        Deployment bare = new DeploymentBuilder().withNewMetadata().withName("bare").endMetadata()
                .withNewSpec().withTemplate(Fixtures.template("nginx")).endSpec().build();
        Deployment d = DeploymentDefaults.withDefaults(bare);
        assertThat(d.getSpec().getReplicas()).isEqualTo(1);
        assertThat(d.getSpec().getStrategy().getType()).isEqualTo("RollingUpdate");
        assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxSurge()).isEqualTo(new IntOrString("25%"));
        assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable())
                .isEqualTo(new IntOrString("25%"));
        assertThat(d.getSpec().getRevisionHistoryLimit()).isEqualTo(10);
        assertThat(d.getSpec().getProgressDeadlineSeconds()).isEqualTo(600);
        assertThat(bare.getSpec().getReplicas()).as("input untouched").isNull();
        assertThat(bare.getSpec().getStrategy()).as("input untouched").isNull();
    }

    @Test
    void presentFieldsAreKept() {
        Deployment given = Fixtures.rolling(7, 3, 0);
        given = new DeploymentBuilder(given).editSpec().withRevisionHistoryLimit(0).withProgressDeadlineSeconds(30)
                .endSpec().build();
        Deployment d = DeploymentDefaults.withDefaults(given);
        assertThat(d.getSpec().getReplicas()).isEqualTo(7);
        assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxSurge()).isEqualTo(new IntOrString(3));
        assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable()).isEqualTo(new IntOrString(0));
        assertThat(d.getSpec().getRevisionHistoryLimit()).isZero();
        assertThat(d.getSpec().getProgressDeadlineSeconds()).isEqualTo(30);
    }

    @Test
    void onlyTheMissingRollingUpdateValueIsFilled() {
        Deployment given = Fixtures.rolling(4, null, 1);
        Deployment d = DeploymentDefaults.withDefaults(given);
        assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxSurge()).isEqualTo(new IntOrString("25%"));
        assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable()).isEqualTo(new IntOrString(1));
    }

    @Test
    void recreateGetsNoRollingUpdateBlock() {
        Deployment d = DeploymentDefaults.withDefaults(Fixtures.recreate(2));
        assertThat(d.getSpec().getStrategy().getType()).isEqualTo("Recreate");
        assertThat(d.getSpec().getStrategy().getRollingUpdate()).isNull();
    }

    @Test
    void defaultedDeploymentPassesValidation() {
        Deployment bare = new DeploymentBuilder().withNewMetadata().withName("bare").endMetadata()
                .withNewSpec().withNewSelector().addToMatchLabels("app", "foo").endSelector()
                .withTemplate(Fixtures.template("nginx")).endSpec().build();
        assertThat(DeploymentValidation.validate(bare)).isNotEmpty();
        assertThat(DeploymentValidation.validate(DeploymentDefaults.withDefaults(bare))).isEmpty();
    }
}
