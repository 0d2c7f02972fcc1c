package io.berth.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.Plugin;
import io.berth.framework.PodSigners;
import io.berth.framework.PreFilterPlugin;
import io.berth.framework.PreScorePlugin;
import io.berth.framework.ScorePlugin;
import io.berth.framework.FilterPlugin;
import io.berth.framework.SignFragment;
import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.berth.framework.runtime.Registry;
import io.berth.framework.testing.TestHandle;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Each default plugin's {@code signPod}, as upstream's per-plugin signature tests. */
class DefaultPluginSigningTest {
  private final Registry registry = InTreeRegistry.create();

  private Plugin plugin(String name, Map<String, Object> args) {
    return registry.get(name).orElseThrow().create(args, new TestHandle());
  }

  private SignResult sign(String plugin, Pod pod) {
    return ((SignPlugin) plugin(plugin, Map.of())).signPod(pod);
  }

  /** A pod as a ReplicaSet stamps them: only names, UIDs and per-pod Secret/ConfigMap differ. */
  private static Pod pod(String name, UnaryOperator<PodBuilder> edit) {
    PodBuilder b = new PodBuilder().withNewMetadata().withNamespace("ns").withName(name)
        .withUid("uid-" + name).addToLabels("app", "web").endMetadata()
        .withNewSpec().withSchedulerName("default-scheduler")
        .addNewContainer().withName("c").withImage("nginx")
        .withNewResources().addToRequests("cpu", new Quantity("500m")).endResources()
        .addNewPort().withContainerPort(80).withHostPort(8080).endPort().endContainer()
        .addNewToleration().withKey("a").withOperator("Exists").endToleration()
        .addNewToleration().withKey("b").withOperator("Exists").endToleration()
        .addToNodeSelector("disk", "ssd")
        .addNewVolume().withName("token-" + name).withNewSecret().withSecretName("s-" + name)
        .endSecret().endVolume()
        .addNewVolume().withName("data").withNewPersistentVolumeClaim().withClaimName("shared")
        .endPersistentVolumeClaim().endVolume()
        .endSpec();
    return edit.apply(b).build();
  }

  private static Pod pod(String name) {
    return pod(name, b -> b);
  }

  private static final List<String> SIGNING = List.of("NodeUnschedulable", "NodeName",
      "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions",
      "VolumeBinding", "InterPodAffinity", "NodeResourcesBalancedAllocation", "ImageLocality");

  @Test
  void everyDefaultPreFilterFilterPreScoreAndScorePluginSigns() {
    for (String name : DefaultProfile.names()) {
      Plugin p = plugin(name, Map.of());
      if (p instanceof PreFilterPlugin || p instanceof FilterPlugin || p instanceof PreScorePlugin
          || p instanceof ScorePlugin) {
        assertThat(p).as(name).isInstanceOf(SignPlugin.class);
      }
    }
  }

  @Test
  void podsStampedFromOneTemplateSignEqualForEveryPlugin() {
    for (String name : SIGNING) {
      SignResult a = sign(name, pod("a"));
      SignResult b = sign(name, pod("b"));
      assertThat(a.isSuccess()).as(name).isTrue();
      assertThat(a.fragments()).as(name).isEqualTo(b.fragments());
    }
  }

  private void assertDiffers(String plugin, UnaryOperator<PodBuilder> edit) {
    assertThat(sign(plugin, pod("b", edit)).fragments()).as(plugin)
        .isNotEqualTo(sign(plugin, pod("a")).fragments());
  }

  @Test
  void eachPluginsFragmentCoversTheFieldsItReads() {
    assertDiffers("NodeName", b -> b.editSpec().withNodeName("n1").endSpec());
    assertDiffers("TaintToleration", b -> b.editSpec().addNewToleration().withKey("c")
        .withOperator("Exists").endToleration().endSpec());
    assertDiffers("NodeUnschedulable", b -> b.editSpec().withTolerations().endSpec());
    assertDiffers("NodeAffinity", b -> b.editSpec().addToNodeSelector("disk", "hdd").endSpec());
    assertDiffers("NodeAffinity", b -> b.editSpec().withNewAffinity().withNewNodeAffinity()
        .withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm()
        .addNewMatchExpression().withKey("zone").withOperator("Exists").endMatchExpression()
        .endNodeSelectorTerm().endRequiredDuringSchedulingIgnoredDuringExecution()
        .endNodeAffinity().endAffinity().endSpec());
    assertDiffers("NodePorts", b -> b.editSpec().editFirstContainer().editFirstPort()
        .withHostPort(9090).endPort().endContainer().endSpec());
    assertDiffers("NodePorts", b -> b.editSpec().editFirstContainer().editFirstPort()
        .withProtocol("UDP").endPort().endContainer().endSpec());
    assertDiffers("NodeResourcesFit", b -> b.editSpec().editFirstContainer().editResources()
        .addToRequests("cpu", new Quantity("1")).endResources().endContainer().endSpec());
    assertDiffers("NodeResourcesBalancedAllocation", b -> b.editSpec().addToOverhead("memory",
        new Quantity("1Gi")).endSpec());
    assertDiffers("VolumeBinding", b -> b.editSpec().editLastVolume()
        .editPersistentVolumeClaim().withClaimName("other").endPersistentVolumeClaim()
        .endVolume().endSpec());
    assertDiffers("VolumeRestrictions", b -> b.editSpec().editLastVolume()
        .editPersistentVolumeClaim().withClaimName("other").endPersistentVolumeClaim()
        .endVolume().endSpec());
    assertDiffers("ImageLocality", b -> b.editSpec().editFirstContainer().withImage("redis")
        .endContainer().endSpec());
    assertDiffers("InterPodAffinity", b -> b.editMetadata().addToLabels("app", "db")
        .endMetadata());
  }

  @Test
  void tolerationOrderAndImplicitLatestTagDoNotChangeTheSignature() {
    Pod reordered = pod("b", b -> b.editSpec().withTolerations().addNewToleration().withKey("b")
        .withOperator("Exists").endToleration().addNewToleration().withKey("a")
        .withOperator("Exists").endToleration().endSpec());
    assertThat(sign("TaintToleration", reordered).fragments())
        .isEqualTo(sign("TaintToleration", pod("a")).fragments());
    Pod tagged = pod("b", b -> b.editSpec().editFirstContainer().withImage("nginx:latest")
        .endContainer().endSpec());
    assertThat(sign("ImageLocality", tagged).fragments())
        .isEqualTo(sign("ImageLocality", pod("a")).fragments());
  }

  @Test
  void podsWithPodAffinityOrAntiAffinityAreUnsignable() {
    Pod anti = pod("b", b -> b.editSpec().withNewAffinity().withNewPodAntiAffinity()
        .addNewRequiredDuringSchedulingIgnoredDuringExecution().withTopologyKey("zone")
        .endRequiredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity().endAffinity()
        .endSpec());
    Pod affinity = pod("c", b -> b.editSpec().withNewAffinity().withNewPodAffinity()
        .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(1)
        .withNewPodAffinityTerm().withTopologyKey("zone").endPodAffinityTerm()
        .endPreferredDuringSchedulingIgnoredDuringExecution().endPodAffinity().endAffinity()
        .endSpec());
    assertThat(sign("InterPodAffinity", anti).isSuccess()).isFalse();
    assertThat(sign("InterPodAffinity", affinity).isSuccess()).isFalse();
  }

  @Test
  void interPodAffinitySignsLabelsUnlessPreferredTermsOfExistingPodsAreIgnored() {
    assertThat(sign("InterPodAffinity", pod("a")).fragments())
        .containsExactly(new SignFragment(PodSigners.LABELS, Map.of("app", "web")));
    SignResult ignoring = ((SignPlugin) plugin("InterPodAffinity",
        Map.of("ignorePreferredTermsOfExistingPods", true))).signPod(pod("a"));
    assertThat(ignoring.isSuccess()).isTrue();
    assertThat(ignoring.fragments()).isEmpty();
  }

  @Test
  void podTopologySpreadRefusesPodsWithConstraintsAndEveryPodUnderDefaultConstraints() {
    SignPlugin listNoDefaults = (SignPlugin) plugin("PodTopologySpread",
        Map.of("defaultingType", "List"));
    assertThat(listNoDefaults.signPod(pod("a")).isSuccess()).isTrue();
    Pod spread = pod("b", b -> b.editSpec().addNewTopologySpreadConstraint().withMaxSkew(1)
        .withTopologyKey("zone").withWhenUnsatisfiable("DoNotSchedule")
        .endTopologySpreadConstraint().endSpec());
    assertThat(listNoDefaults.signPod(spread).isSuccess()).isFalse();
    // System defaulting (the default) applies default constraints: no pod is signable
    assertThat(sign("PodTopologySpread", pod("a")).isSuccess()).isFalse();
  }
}
