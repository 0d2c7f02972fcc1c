package io.berth.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.berth.embedded.EmbeddedCluster;
import io.berth.embedded.NodeSpec;
import io.berth.framework.CycleState;
import io.berth.framework.FeatureGates;
import io.berth.framework.Handle;
import io.berth.framework.PermitPlugin;
import io.berth.framework.PermitResult;
import io.berth.framework.PreBindPlugin;
import io.berth.framework.Status;
import io.berth.framework.runtime.Registry;
import io.berth.plugins.InTreeRegistry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * NominatedNodeNameForExpectation end to end, with the embedded API server clearing the
 * nomination on binding (ClearingNominatedNodeNameAfterBinding): a pod held in Permit shows its
 * node as {@code status.nominatedNodeName} while it waits, a bound pod carries none, and a
 * failing PreBind clears the nomination it published.
 */
class NominatedNodeNameForExpectationIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String HOLD = "HoldInPermit";
  private static final String FAIL = "FailPreBind";
  private static final String CONFIG = String.join("\n",
      "apiVersion: kubescheduler.config.k8s.io/v1",
      "kind: KubeSchedulerConfiguration",
      "profiles:",
      "- schedulerName: default-scheduler",
      "  plugins:",
      "    permit:",
      "      enabled: [{name: " + HOLD + "}]",
      "    preBind:",
      "      enabled: [{name: " + FAIL + "}]");

  private final AtomicReference<Handle> handle = new AtomicReference<>();
  /** The pod's status.nominatedNodeName as the API server had it when PreBind ran. */
  private final List<String> nominatedAtPreBind = new CopyOnWriteArrayList<>();
  private EmbeddedCluster cluster;
  private KubernetesClient client;
  private InProcessScheduler scheduler;

  /** Waits in Permit pods labelled hold=true, until the test allows them. */
  private static final class HoldInPermit implements PermitPlugin {
    @Override
    public String name() {
      return HOLD;
    }

    @Override
    public PermitResult permit(CycleState state, Pod pod, String nodeName) {
      return "true".equals(label(pod, "hold")) ? PermitResult.waitFor(Duration.ofMinutes(10))
          : PermitResult.ALLOW;
    }
  }

  /** Has work for (and fails) pods labelled fail=true; skips the others. */
  private final class FailPreBind implements PreBindPlugin {
    @Override
    public String name() {
      return FAIL;
    }

    @Override
    public Status preBindPreFlight(CycleState state, Pod pod, String nodeName) {
      return "true".equals(label(pod, "fail")) ? Status.SUCCESS : Status.skip();
    }

    @Override
    public Status preBind(CycleState state, Pod pod, String nodeName) {
      if (!"true".equals(label(pod, "fail"))) {
        return Status.SUCCESS;
      }
      Pod stored = client.pods().inNamespace("default").withName(pod.getMetadata().getName())
          .get();
      nominatedAtPreBind.add(String.valueOf(stored.getStatus().getNominatedNodeName()));
      return Status.error("volume attach failed");
    }
  }

  private static String label(Pod pod, String key) {
    return pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(key);
  }

  @BeforeEach
  void startCluster() {
    cluster = EmbeddedCluster.builder().start();
    cluster.nodes().add(NodeSpec.node("n1"));
    client = cluster.client();
  }

  @AfterEach
  void stop() throws Exception {
    if (scheduler != null) {
      scheduler.close();
    }
    cluster.close();
  }

  private void start(String featureGates) throws InterruptedException {
    Registry registry = InTreeRegistry.create()
        .register(HOLD, (args, h) -> {
          handle.set(h);
          return new HoldInPermit();
        })
        .register(FAIL, (args, h) -> new FailPreBind());
    scheduler = new InProcessScheduler(client, CONFIG, registry, FeatureGates.parse(featureGates));
  }

  private Pod create(String name, String label) {
    Pod pod = new PodBuilder(SchedulerIT.pod(name, "100m", "default-scheduler")).editMetadata()
        .addToLabels(label, "true").endMetadata().build();
    return client.pods().inNamespace("default").resource(pod).create();
  }

  private Pod get(String name) {
    return client.pods().inNamespace("default").withName(name).get();
  }

  private Optional<String> nominated(String name) {
    return Optional.ofNullable(get(name).getStatus().getNominatedNodeName());
  }

  private void allow(Pod pod) {
    await().atMost(WAIT).until(() -> handle.get().getWaitingPod(pod.getMetadata().getUid())
        .isPresent());
    handle.get().getWaitingPod(pod.getMetadata().getUid()).orElseThrow().allow(HOLD);
  }

  @Test
  void aPodWaitingInPermitShowsItsNodeAndABoundPodCarriesNone() throws Exception {
    start("");
    Pod held = create("held", "hold");

    await().atMost(WAIT).until(() -> nominated("held").isPresent());
    assertThat(nominated("held")).hasValue("n1");
    assertThat(get("held").getSpec().getNodeName()).isNull();

    allow(held);

    await().atMost(WAIT).until(() -> get("held").getSpec().getNodeName() != null);
    assertThat(get("held").getSpec().getNodeName()).isEqualTo("n1");
    assertThat(nominated("held")).isEmpty();
  }

  @Test
  void aPodBindingAtOnceIsNeverNominated() throws Exception {
    start("");
    create("quick", "other");

    await().atMost(WAIT).until(() -> get("quick").getSpec().getNodeName() != null);

    assertThat(nominated("quick")).isEmpty();
  }

  @Test
  void aFailingPreBindClearsTheNominationItPublished() throws Exception {
    start("");
    create("doomed", "fail");

    await().atMost(WAIT).until(() -> !nominatedAtPreBind.isEmpty());
    assertThat(nominatedAtPreBind.get(0)).isEqualTo("n1");
    await().atMost(WAIT).until(() -> {
      Pod p = get("doomed");
      return p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
          .anyMatch(c -> "PodScheduled".equals(c.getType()) && "SchedulerError"
              .equals(c.getReason())) && p.getStatus().getNominatedNodeName() == null;
    });
    assertThat(get("doomed").getSpec().getNodeName()).isNull();
  }

  @Test
  void withTheGateOffNothingIsNominatedDuringTheWait() throws Exception {
    start("NominatedNodeNameForExpectation=false");
    Pod held = create("held", "hold");
    create("doomed", "fail");

    await().atMost(WAIT).until(() -> !nominatedAtPreBind.isEmpty());
    assertThat(nominatedAtPreBind.get(0)).isEqualTo("null");
    await().atMost(WAIT).until(() -> handle.get().getWaitingPod(held.getMetadata().getUid())
        .isPresent());
    Thread.sleep(500);
    assertThat(nominated("held")).isEmpty();

    allow(held);

    await().atMost(WAIT).until(() -> get("held").getSpec().getNodeName() != null);
    assertThat(nominated("held")).isEmpty();
  }
}
