package io.berth.scheduler.config;

import static io.berth.scheduler.config.TestConfigs.registry;
import static io.berth.scheduler.config.TestConfigs.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.berth.framework.runtime.Registry;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every rejected configuration names the field; each test pins one upstream rule. */
class SchedulerConfigValidationTest {

  private static SchedulerConfigException rejected(String content) {
    SchedulerConfigException e = catchThrowableOfType(SchedulerConfigException.class,
        () -> SchedulerConfigLoader.load(content, registry()));
    assertThat(e).as("expected the configuration to be rejected").isNotNull();
    assertThat(e.getMessage()).startsWith("invalid scheduler configuration: ");
    return e;
  }

  private static void assertRejectedWith(String content, String... errors) {
    assertThat(rejected(content).errors()).containsExactlyInAnyOrder(errors);
  }

  @Test
  void errorsFromAFileNameTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("scheduler.yaml");
    Files.writeString(file, yaml("percentageOfNodesToScore: 120\n"));

    SchedulerConfigException e = catchThrowableOfType(SchedulerConfigException.class,
        () -> SchedulerConfigLoader.load(file, registry()));

    assertThat(e.getMessage()).isEqualTo("invalid scheduler configuration file " + file
        + ": percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]");
    assertThat(e.file()).contains(file);
  }

  @Test
  void aMissingFileIsNamed(@TempDir Path dir) {
    Path file = dir.resolve("absent.yaml");

    SchedulerConfigException e = catchThrowableOfType(SchedulerConfigException.class,
        () -> SchedulerConfigLoader.load(file, registry()));

    assertThat(e.getMessage()).contains(file.toString()).contains("cannot read the file");
  }

  @Test
  void unknownPluginIsReportedAtItsIndex() {
    assertRejectedWith(yaml("""
        profiles:
        - plugins:
            filter:
              enabled:
              - name: NodeName
              - name: Foo
        """), "profiles[0].plugins.filter.enabled[1].name: Invalid value: \"Foo\": unknown plugin");
  }

  @Test
  void unknownPluginInMultiPointDisabledAndPluginConfigAreReported() {
    assertRejectedWith(yaml("""
        profiles:
        - plugins:
            multiPoint:
              disabled: [{name: "*"}, {name: Gone}]
              enabled: [{name: PrioritySort}, {name: DefaultBinder}]
          pluginConfig:
          - name: Missing
            args: {}
        """),
        "profiles[0].plugins.multiPoint.disabled[1].name: Invalid value: \"Gone\": unknown plugin",
        "profiles[0].pluginConfig[0].name: Invalid value: \"Missing\": unknown plugin");
  }

  @Test
  void starIsOnlyAllowedInDisabled() {
    assertRejectedWith(yaml("""
        profiles:
        - plugins:
            score:
              enabled: [{name: "*"}]
        """), "profiles[0].plugins.score.enabled[0].name: Invalid value: \"*\": unknown plugin");
  }

  @Test
  void pluginWithoutNameIsRequired() {
    assertRejectedWith(yaml("""
        profiles:
        - plugins:
            score:
              enabled: [{weight: 2}]
        """), "profiles[0].plugins.score.enabled[0].name: Required value");
  }

  @Test
  void pluginConfigNamesMustBeUnique() {
    assertRejectedWith(yaml("""
        profiles:
        - pluginConfig:
          - name: NodeAffinity
          - name: NodeAffinity
            args: {}
        """), "profiles[0].pluginConfig[1].name: Duplicate value: \"NodeAffinity\"");
  }

  @Test
  void percentageOfNodesToScoreMustBeAPercentage() {
    assertRejectedWith(yaml("""
        percentageOfNodesToScore: 120
        profiles:
        - percentageOfNodesToScore: -1
        """),
        "percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]",
        "profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]");
  }

  @Test
  void schedulerNamesMustBeUnique() {
    assertRejectedWith(yaml("""
        profiles:
        - schedulerName: x
        - schedulerName: x
        """), "profiles[1].schedulerName: Duplicate value: \"x\"");
  }

  @Test
  void schedulerNameIsRequiredWhenThereAreSeveralProfiles() {
    assertRejectedWith(yaml("""
        profiles:
        - schedulerName: x
        - percentageOfNodesToScore: 10
        """), "profiles[1].schedulerName: Required value");
    assertRejectedWith(yaml("""
        profiles:
        - schedulerName: ""
        """), "profiles[0].schedulerName: Required value");
  }

  @Test
  void unknownFieldsAreErrorsWithTheirPath() {
    SchedulerConfigException e = rejected(yaml("""
        parallelizm: 3
        profiles:
        - schedulerName: x
          plugin:
            score: {}
          plugins:
            scores: {}
            filter:
              enable: []
        leaderElection:
          leaseDurationSeconds: 15
        """));

    assertThat(e.errors()).hasSize(5);
    assertThat(e.errors()).anySatisfy(m -> assertThat(m).startsWith("parallelizm: unknown field"));
    assertThat(e.errors()).anySatisfy(m -> assertThat(m)
        .startsWith("profiles[0].plugin: unknown field")
        .contains("schedulerName, percentageOfNodesToScore, plugins, pluginConfig"));
    assertThat(e.errors()).anySatisfy(
        m -> assertThat(m).startsWith("profiles[0].plugins.scores: unknown field"));
    assertThat(e.errors()).anySatisfy(
        m -> assertThat(m).startsWith("profiles[0].plugins.filter.enable: unknown field"));
    assertThat(e.errors()).anySatisfy(
        m -> assertThat(m).startsWith("leaderElection.leaseDurationSeconds: unknown field"));
  }

  @Test
  void apiVersionMustBeV1() {
    assertRejectedWith("""
        apiVersion: kubescheduler.config.k8s.io/v1beta3
        kind: KubeSchedulerConfiguration
        healthzBindAddress: 0.0.0.0:10251
        """, "apiVersion: Unsupported value: \"kubescheduler.config.k8s.io/v1beta3\": "
            + "supported values: \"kubescheduler.config.k8s.io/v1\"");
    assertRejectedWith("""
        kind: KubeSchedulerConfiguration
        """, "apiVersion: Required value: want \"kubescheduler.config.k8s.io/v1\"");
  }

  @Test
  void kindMustBeKubeSchedulerConfiguration() {
    assertRejectedWith("""
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeProxyConfiguration
        """, "kind: Unsupported value: \"KubeProxyConfiguration\": "
            + "supported values: \"KubeSchedulerConfiguration\"");
  }

  @Test
  void extendersAreUnsupported() {
    assertRejectedWith(yaml("""
        extenders:
        - urlPrefix: http://127.0.0.1:8888
          filterVerb: filter
        """), "extenders: Forbidden: scheduler extenders are not supported by Berth; "
            + "use plugins instead");
  }

  @Test
  void valuesOfTheWrongTypeAreErrors() {
    assertRejectedWith(yaml("""
        parallelism: "16"
        podMaxBackoffSeconds: 1.5
        delayCacheUntilActive: "yes"
        clientConnection:
          qps: fast
        profiles:
        - schedulerName: 123
          plugins:
            score:
              enabled: [{name: ImageLocality, weight: 3000000000}]
        """),
        "parallelism: Invalid value: \"16\": must be a 32-bit integer",
        "podMaxBackoffSeconds: Invalid value: 1.5: must be a 64-bit integer",
        "delayCacheUntilActive: Invalid value: \"yes\": must be true or false",
        "clientConnection.qps: Invalid value: \"fast\": must be a number",
        "profiles[0].schedulerName: Invalid value: 123: must be a string",
        "profiles[0].plugins.score.enabled[0].weight: Invalid value: 3000000000: "
            + "must be a 32-bit integer");
  }

  @Test
  void structuresOfTheWrongShapeAreErrors() {
    assertRejectedWith(yaml("""
        profiles:
          schedulerName: x
        """), "profiles: Invalid value: {\"schedulerName\":\"x\"}: must be a list");
    assertRejectedWith(yaml("""
        profiles:
        - pluginConfig:
          - name: NodeAffinity
            args: [1, 2]
        """), "profiles[0].pluginConfig[0].args: Invalid value: [1,2]: must be an object");
  }

  @Test
  void parallelismAndBackoffsAreCheckedAsUpstream() {
    assertRejectedWith(yaml("""
        parallelism: 0
        podInitialBackoffSeconds: 0
        """),
        "parallelism: Invalid value: 0: should be an integer value greater than zero",
        "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0");
    assertRejectedWith(yaml("""
        podInitialBackoffSeconds: 20
        """),
        "podMaxBackoffSeconds: Invalid value: 10: "
            + "must be greater than or equal to podInitialBackoffSeconds");
  }

  @Test
  void negativeBurstIsAnError() {
    assertRejectedWith(yaml("""
        clientConnection:
          burst: -1
        """), "clientConnection.burst: Invalid value: -1: must be non-negative");
  }

  @Test
  void leaseDurationMustExceedRenewDeadline() {
    assertRejectedWith(yaml("""
        leaderElection:
          leaseDuration: 10s
          renewDeadline: 10s
        """),
        "leaderElection.leaseDuration: Invalid value: \"10s\": "
            + "must be greater than renewDeadline (10s)");
  }

  @Test
  void renewDeadlineMustExceedJitteredRetryPeriodAsClientGoRequires() {
    assertRejectedWith(yaml("""
        leaderElection:
          renewDeadline: 2s
          retryPeriod: 2s
        """),
        "leaderElection.renewDeadline: Invalid value: \"2s\": "
            + "must be greater than retryPeriod * 1.2 (2.4s)");
  }

  @Test
  void negativeDurationsAndOtherLocksAreRejected() {
    assertRejectedWith(yaml("""
        leaderElection:
          retryPeriod: -1s
          resourceLock: endpoints
        """),
        "leaderElection.retryPeriod: Invalid value: \"-1s\": must be greater than zero",
        "leaderElection.resourceLock: Invalid value: \"endpoints\": "
            + "resourceLock value must be \"leases\"");
  }

  @Test
  void leaderElectionIsNotCheckedWhenDisabled() {
    assertThatCode(() -> SchedulerConfigLoader.load(yaml("""
        leaderElection:
          leaderElect: false
          leaseDuration: 1s
          renewDeadline: 5s
          resourceLock: endpoints
        """), registry())).doesNotThrowAnyException();
  }

  @Test
  void durationsMustBeGoDurationStrings() {
    assertRejectedWith(yaml("""
        leaderElection:
          leaseDuration: 15 seconds
          retryPeriod: 2
        """),
        "leaderElection.leaseDuration: Invalid value: \"15 seconds\": must be a duration string "
            + "such as \"15s\", \"1m30s\" or \"500ms\"",
        "leaderElection.retryPeriod: Invalid value: 2: must be a duration string "
            + "such as \"15s\", \"1m30s\" or \"500ms\"");
  }

  @Test
  void onlyOneExplicitQueueSortPlugin() {
    assertRejectedWith(yaml("""
        profiles:
        - plugins:
            queueSort:
              enabled: [{name: CustomSort}, {name: PrioritySort}]
        """),
        "profiles[0].plugins.queueSort.enabled: Invalid value: 2: "
            + "only one queue sort plugin can be enabled");
  }

  @Test
  void aProfileThatCertainlyHasNoQueueSortOrBindIsRejected() {
    SchedulerConfigException e = rejected(yaml("""
        profiles:
        - schedulerName: a
          plugins:
            bind:
              disabled: [{name: "*"}]
        - schedulerName: b
          plugins:
            multiPoint:
              disabled: [{name: "*"}]
            filter:
              enabled: [{name: NodeName}]
        """));

    assertThat(e.errors()).hasSize(3);
    assertThat(e.errors()).anySatisfy(m -> assertThat(m)
        .startsWith("profiles[0].plugins.bind: Required value: no bind plugin can be enabled"));
    assertThat(e.errors()).anySatisfy(m -> assertThat(m).startsWith(
        "profiles[1].plugins.queueSort: Required value: no queueSort plugin can be enabled"));
    assertThat(e.errors()).anySatisfy(m -> assertThat(m)
        .startsWith("profiles[1].plugins.bind: Required value: no bind plugin can be enabled"));
  }

  @Test
  void queueSortAndBindThatMultiPointMaySupplyAreLeftToTheRuntime() {
    // NodeName implements neither, but only the runtime can know that.
    assertThatCode(() -> SchedulerConfigLoader.load(yaml("""
        profiles:
        - plugins:
            multiPoint:
              disabled: [{name: "*"}]
              enabled: [{name: NodeName}]
        """), registry())).doesNotThrowAnyException();
  }

  @Test
  void allProfilesMustShareTheExplicitQueueSort() {
    assertRejectedWith(yaml("""
        profiles:
        - schedulerName: a
          plugins:
            queueSort:
              enabled: [{name: CustomSort}]
              disabled: [{name: "*"}]
        - schedulerName: b
        """),
        "profiles[1].plugins.queueSort: Invalid value: {enabled: [], disabled: []}: "
            + "must be the same for all profiles");
  }

  @Test
  void allProfilesMustShareTheQueueSortArgs() {
    String sortSet = """
            queueSort:
              enabled: [{name: CustomSort}]
              disabled: [{name: "*"}]
        """;
    assertRejectedWith(yaml("""
        profiles:
        - schedulerName: a
          plugins:
        %s
          pluginConfig:
          - name: CustomSort
            args: {order: fifo}
        - schedulerName: b
          plugins:
        %s
          pluginConfig:
          - name: NodeAffinity
          - name: CustomSort
            args: {order: lifo}
        """.formatted(sortSet.stripTrailing(), sortSet.stripTrailing())),
        "profiles[1].pluginConfig[1].args: Invalid value: {order=lifo}: "
            + "queueSort plugin \"CustomSort\" args must be the same for all profiles");
  }

  @Test
  void duplicateKeysAreErrorsWithTheirLine() {
    SchedulerConfigException e = rejected(yaml("""
        parallelism: 4
        parallelism: 8
        """));

    assertThat(e.errors()).singleElement().satisfies(m -> assertThat(m)
        .startsWith("line 4, column")
        .endsWith("cannot parse: duplicate field \"parallelism\""));
  }

  @Test
  void unparsableDocumentsAreErrors() {
    assertThat(rejected(yaml("profiles: [\n")).errors()).singleElement()
        .satisfies(m -> assertThat(m).contains("cannot parse"));
    assertThat(rejected("{\"apiVersion\": ").errors()).singleElement()
        .satisfies(m -> assertThat(m).contains("cannot parse"));
  }

  @Test
  void emptyAndNonObjectDocumentsAreErrors() {
    assertThat(rejected("").errors()).singleElement()
        .satisfies(m -> assertThat(m).startsWith("the configuration is empty"));
    assertThat(rejected("- a\n- b\n").errors()).containsExactly(
        "the configuration must be a KubeSchedulerConfiguration object, not array");
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    SchedulerConfigException e = rejected(yaml("""
        parallelism: -2
        percentageOfNodesToScore: 101
        profiles:
        - schedulerName: x
          plugins:
            filter:
              enabled: [{name: Nope}]
        - schedulerName: x
        """));

    assertThat(e.errors()).containsExactlyInAnyOrder(
        "parallelism: Invalid value: -2: should be an integer value greater than zero",
        "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]",
        "profiles[0].plugins.filter.enabled[0].name: Invalid value: \"Nope\": unknown plugin",
        "profiles[1].schedulerName: Duplicate value: \"x\"");
    assertThat(e.getMessage()).isEqualTo(
        "invalid scheduler configuration: " + String.join("; ", e.errors()));
  }

  @Test
  void pluginsUnknownToThisRegistryAreRejectedEvenIfDefault() {
    Registry small = new Registry();
    TestConfigs.register(small, "PrioritySort");
    TestConfigs.register(small, "DefaultBinder");

    SchedulerConfigException e = catchThrowableOfType(SchedulerConfigException.class,
        () -> SchedulerConfigLoader.load(yaml("""
            profiles:
            - plugins:
                multiPoint:
                  disabled: [{name: ImageLocality}]
            """), small));

    assertThat(e.errors()).containsExactly("profiles[0].plugins.multiPoint.disabled[0].name: "
        + "Invalid value: \"ImageLocality\": unknown plugin");
  }
}
