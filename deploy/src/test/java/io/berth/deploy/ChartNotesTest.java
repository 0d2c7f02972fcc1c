package io.berth.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.Release;
import org.junit.jupiter.api.Test;

/**
 * NOTES.txt, which {@code helm template} does not render: a client-only dry-run install prints it. It tells how to
 * schedule a first pod with Berth and how to check it.
 */
class ChartNotesTest {

  private static String notes(boolean controllerManager) {
    Release release = new Helm(DeployPaths.chart()).install().withName(HelmRender.RELEASE)
        .withNamespace(HelmRender.NAMESPACE).set("controllerManager.enabled", String.valueOf(controllerManager))
        .clientOnly().dryRun().call();
    return release.getOutput();
  }

  @Test
  void notesShowHowToScheduleAndCheckAFirstPod() {
    String notes = notes(false);

    assertThat(notes).contains("schedulerName: berth-scheduler", "kubectl get pod hello-berth -o wide",
        "reason=Scheduled", "kubectl -n kube-system get lease berth-scheduler",
        "--set controllerManager.enabled=true");
  }

  @Test
  void notesWithTheControllerManagerShowHowToRollADeployment() {
    String notes = notes(true);

    assertThat(notes).contains("Deployment berth-controller-manager",
        "--controllers=*,-deployment-controller,-replicaset-controller",
        "kubectl rollout status deployment/hello-berth");
  }
}
