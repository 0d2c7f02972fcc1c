package io.berth.scheduler.config;

import static io.berth.scheduler.config.TestConfigs.registry;
import static io.berth.scheduler.config.TestConfigs.yaml;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.runtime.ExtensionPoint;
import io.berth.framework.runtime.PluginRef;
import io.berth.framework.runtime.PluginSet;
import io.berth.framework.runtime.ProfileConfig;
import io.berth.plugins.DefaultProfile;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** mergePlugins as kube-scheduler v1.32, through the loader and on PluginMerge directly. */
class PluginMergeTest {
  private static final PluginSet DEFAULTS = DefaultProfile.multiPoint(name -> true);

  private static ProfileConfig load(String profileYaml) {
    return SchedulerConfigLoader.load(yaml(profileYaml), registry()).profiles().get(0);
  }

  private static List<String> names(PluginSet set) {
    return set.enabled().stream().map(PluginRef::name).toList();
  }

  @Test
  void disablingOneDefaultRemovesOnlyItAndRecordsTheDisable() {
    ProfileConfig profile = load("""
        profiles:
        - plugins:
            multiPoint:
              disabled: [{name: ImageLocality}]
        """);

    List<String> expected = new ArrayList<>(DefaultProfile.names());
    expected.remove("ImageLocality");
    assertThat(names(profile.multiPoint())).containsExactlyElementsOf(expected);
    assertThat(profile.multiPoint().disabled()).containsExactly("ImageLocality");
    assertThat(profile.plugins()).isEmpty();
  }

  @Test
  void disablingStarDropsEveryDefaultAndKeepsTheUsersOrder() {
    ProfileConfig profile = load("""
        profiles:
        - plugins:
            multiPoint:
              disabled: [{name: "*"}]
              enabled:
              - name: NodeResourcesFit
                weight: 2
              - name: CustomSort
              - name: CustomBinder
        """);

    assertThat(profile.multiPoint()).isEqualTo(new PluginSet(
        List.of(new PluginRef("NodeResourcesFit", 2), PluginRef.of("CustomSort"),
            PluginRef.of("CustomBinder")),
        List.of("*")));
  }

  @Test
  void reEnablingADefaultWithAWeightReplacesItInPlace() {
    ProfileConfig profile = load("""
        profiles:
        - plugins:
            multiPoint:
              enabled:
              - name: TaintToleration
                weight: 7
              - name: Coscheduling
        """);

    List<PluginRef> expected = new ArrayList<>();
    for (PluginRef ref : DEFAULTS.enabled()) {
      boolean reconfigured = ref.name().equals("TaintToleration");
      expected.add(reconfigured ? new PluginRef("TaintToleration", 7) : ref);
    }
    expected.add(PluginRef.of("Coscheduling"));
    assertThat(profile.multiPoint().enabled()).containsExactlyElementsOf(expected);
    assertThat(profile.multiPoint().disabled()).isEmpty();
  }

  @Test
  void perPointEnableOfAMultiPointPluginStaysAtThatPointForTheRuntimeToPrefer() {
    ProfileConfig profile = load("""
        profiles:
        - plugins:
            score:
              enabled:
              - name: NodeResourcesFit
                weight: 5
        """);

    assertThat(profile.pluginSet(ExtensionPoint.SCORE))
        .isEqualTo(PluginSet.enabled(new PluginRef("NodeResourcesFit", 5)));
    assertThat(profile.multiPoint()).isEqualTo(DEFAULTS);
    assertThat(profile.plugins()).containsOnlyKeys(ExtensionPoint.SCORE);
  }

  @Test
  void perPointDisableIsKeptSoTheRuntimeSkipsThatMultiPointPluginThere() {
    ProfileConfig profile = load("""
        profiles:
        - plugins:
            filter:
              disabled: [{name: NodePorts}]
        """);

    assertThat(profile.pluginSet(ExtensionPoint.FILTER))
        .isEqualTo(new PluginSet(List.of(), List.of("NodePorts")));
    assertThat(profile.multiPoint()).isEqualTo(DEFAULTS);
  }

  @Test
  void enabledAndDisabledTogetherMovesTheDefaultToTheEnd() {
    ProfileConfig profile = load("""
        profiles:
        - plugins:
            multiPoint:
              enabled: [{name: NodeName}]
              disabled: [{name: NodeName}]
        """);

    List<String> expected = new ArrayList<>(DefaultProfile.names());
    expected.remove("NodeName");
    expected.add("NodeName");
    assertThat(names(profile.multiPoint())).containsExactlyElementsOf(expected);
  }

  @Test
  void defaultDisabledEntriesAreKeptAndApplied() {
    PluginSet defaults = new PluginSet(List.of(PluginRef.of("A"), PluginRef.of("B")),
        List.of("B"));
    PluginSet custom = new PluginSet(List.of(PluginRef.of("C")), List.of("X"));

    PluginSet merged = PluginMerge.merge(defaults, custom);

    assertThat(merged).isEqualTo(new PluginSet(List.of(PluginRef.of("A"), PluginRef.of("C")),
        List.of("X", "B")));
  }

  @Test
  void duplicateUserEntriesAreKeptForTheRuntimeToReject() {
    PluginSet defaults = PluginSet.enabled(PluginRef.of("A"));
    PluginSet custom = new PluginSet(
        List.of(new PluginRef("A", 2), new PluginRef("A", 3), PluginRef.of("B")), List.of());

    PluginSet merged = PluginMerge.merge(defaults, custom);

    // As upstream: the last user entry replaces the default, the others are appended.
    assertThat(merged.enabled()).containsExactly(new PluginRef("A", 3), new PluginRef("A", 2),
        PluginRef.of("B"));
  }

  @Test
  void emptyCustomSetLeavesTheDefaults() {
    assertThat(PluginMerge.merge(DEFAULTS, PluginSet.EMPTY)).isEqualTo(DEFAULTS);
    assertThat(PluginMerge.merge(PluginSet.EMPTY, PluginSet.EMPTY)).isEqualTo(PluginSet.EMPTY);
  }
}
