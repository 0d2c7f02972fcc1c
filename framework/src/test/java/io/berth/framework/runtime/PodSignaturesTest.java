package io.berth.framework.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.CycleState;
import io.berth.framework.FilterPlugin;
import io.berth.framework.NodeInfo;
import io.berth.framework.PodSignature;
import io.berth.framework.PodSigners;
import io.berth.framework.ScorePlugin;
import io.berth.framework.SignFragment;
import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.berth.framework.Status;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** How a profile's plugins make a pod's signature (upstream's computeBatchablePlugins/SignPod). */
class PodSignaturesTest {
  private final AtomicInteger signCalls = new AtomicInteger();

  /** A Filter plugin that signs with {@code sign}. */
  private FilterPlugin signing(String name, Function<Pod, SignResult> sign) {
    class Signing implements FilterPlugin, SignPlugin {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Status filter(CycleState state, Pod pod, NodeInfo nodeInfo) {
        return Status.SUCCESS;
      }

      @Override
      public SignResult signPod(Pod pod) {
        signCalls.incrementAndGet();
        return sign.apply(pod);
      }
    }
    return new Signing();
  }

  private static final ScorePlugin NOT_SIGNING = new ScorePlugin() {
    @Override
    public String name() {
      return "OutOfTree";
    }

    @Override
    public long score(CycleState state, Pod pod, NodeInfo nodeInfo) {
      return 0;
    }
  };

  private static Pod pod(String app, String schedulerName) {
    return new PodBuilder().withNewMetadata().withName("p").withNamespace("ns")
        .addToLabels("app", app).endMetadata().withNewSpec().withSchedulerName(schedulerName)
        .endSpec().build();
  }

  private FilterPlugin labels() {
    return signing("Labels", p -> SignResult.of(new SignFragment(PodSigners.LABELS,
        PodSigners.labels(p))));
  }

  @Test
  void aSignatureIsTheSchedulerNamePlusEveryPluginsFragments() {
    PodSignatures s = PodSignatures.of("p", List.of(labels()), List.of(signing("Empty",
        p -> SignResult.none())));
    assertThat(s.enabled()).isTrue();
    PodSignature sig = s.sign(pod("web", "default-scheduler"));
    assertThat(sig.fragments()).containsOnlyKeys(PodSigners.SCHEDULER_NAME, PodSigners.LABELS);
    assertThat(sig).isEqualTo(s.sign(pod("web", "default-scheduler")))
        .isNotEqualTo(s.sign(pod("db", "default-scheduler")))
        .isNotEqualTo(s.sign(pod("web", "other-scheduler")));
  }

  @Test
  void aPluginAtSeveralExtensionPointsSignsOnce() {
    FilterPlugin l = labels();
    PodSignatures s = PodSignatures.of("p", List.of(l), List.of(l), List.of(l));
    s.sign(pod("web", "x"));
    assertThat(signCalls.get()).isEqualTo(1);
  }

  @Test
  void onePluginThatCannotSignTurnsSigningOffForTheProfile() {
    PodSignatures s = PodSignatures.of("p", List.of(labels()), List.of(NOT_SIGNING));
    assertThat(s.enabled()).isFalse();
    assertThat(s.sign(pod("web", "x"))).isNull();
    assertThat(signCalls.get()).isZero();
  }

  @Test
  void aPodAnyPluginFindsUnsignableHasNoSignature() {
    PodSignatures s = PodSignatures.of("p", List.of(labels(), signing("Refuses",
        p -> SignResult.unsignable("no"))));
    assertThat(s.sign(pod("web", "x"))).isNull();
  }

  @Test
  void aPluginThatThrowsMakesThePodUnsignable() {
    PodSignatures s = PodSignatures.of("p", List.of(signing("Throws", p -> {
      throw new IllegalStateException("boom");
    })));
    assertThat(s.sign(pod("web", "x"))).isNull();
  }

  @Test
  void eachSigningIsObservedAsTheSignExtensionPointWithItsStatus() {
    java.util.List<String> observed = new java.util.ArrayList<>();
    ExtensionPointMetrics m = (point, status, profile, nanos) -> observed.add(point + "/" + status
        + "/" + profile);
    FilterPlugin refusesDb = signing("RefusesDb", p -> PodSigners.labels(p).get("app")
        .equals("db") ? SignResult.unsignable("no") : SignResult.none());
    PodSignatures s = PodSignatures.of("prof", m, List.of(refusesDb));
    s.sign(pod("web", "x"));
    s.sign(pod("db", "x"));
    assertThat(observed).containsExactly("Sign/Success/prof", "Sign/Unschedulable/prof");
  }

  @Test
  void podsWithResourceClaimsAreUnsignable() {
    PodSignatures s = PodSignatures.of("p", List.of(labels()));
    Pod claims = new PodBuilder(pod("web", "x")).editSpec().addNewResourceClaim().withName("gpu")
        .withResourceClaimName("gpu-claim").endResourceClaim().endSpec().build();
    assertThat(s.sign(claims)).isNull();
    assertThat(s.sign(pod("web", "x"))).isNotNull();
  }
}
