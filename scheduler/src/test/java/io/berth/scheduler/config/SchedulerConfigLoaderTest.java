package io.berth.scheduler.config;

import static io.berth.scheduler.config.TestConfigs.registry;
import static io.berth.scheduler.config.TestConfigs.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.framework.runtime.ExtensionPoint;
import io.berth.framework.runtime.PluginRef;
import io.berth.framework.runtime.PluginSet;
import io.berth.framework.runtime.ProfileConfig;
import io.berth.framework.runtime.Registry;
import io.berth.plugins.DefaultProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SchedulerConfigLoaderTest {
  private static final String FULL_YAML = yaml("""
      parallelism: 8
      percentageOfNodesToScore: 40
      podInitialBackoffSeconds: 2
      podMaxBackoffSeconds: 20
      enableProfiling: false
      enableContentionProfiling: false
      delayCacheUntilActive: true
      leaderElection:
        leaderElect: true
        leaseDuration: 30s
        renewDeadline: 20s
        retryPeriod: 5s
        resourceLock: leases
        resourceName: my-scheduler
        resourceNamespace: scheduling
      clientConnection:
        kubeconfig: /etc/berth/kubeconfig
        acceptContentTypes: ""
        contentType: application/json
        qps: 75.5
        burst: 150
      extenders: []
      profiles:
      - schedulerName: berth
        percentageOfNodesToScore: 70
        plugins:
          multiPoint:
            enabled:
            - name: Coscheduling
            disabled:
            - name: ImageLocality
          score:
            enabled:
            - name: NodeResourcesFit
              weight: 5
            disabled:
            - name: NodeResourcesBalancedAllocation
        pluginConfig:
        - name: NodeResourcesFit
          args:
            apiVersion: kubescheduler.config.k8s.io/v1
            kind: NodeResourcesFitArgs
            scoringStrategy:
              type: MostAllocated
              resources:
              - name: cpu
                weight: 1
              - name: memory
                weight: 2
            ignoredResources: [example.com/foo]
        - name: Coscheduling
          args:
            permitWaitingTimeSeconds: 10
            ratio: 0.5
            strict: true
            unset: null
      """);

  @Test
  void defaultsWithoutFileAreUpstreamDefaultsWithOneDefaultProfile() {
    Registry registry = registry();

    SchedulerConfiguration config = SchedulerConfigLoader.defaults(registry);

    ProfileConfig profile = new ProfileConfig("default-scheduler", Map.of(),
        DefaultProfile.multiPoint(registry::contains), Map.of(), OptionalInt.empty());
    assertThat(config).isEqualTo(new SchedulerConfiguration(16, OptionalInt.empty(), 1, 10,
        new SchedulerConfiguration.LeaderElection(true, Duration.ofSeconds(15),
            Duration.ofSeconds(10), Duration.ofSeconds(2), "leases", "berth-scheduler",
            "kube-system"),
        new SchedulerConfiguration.ClientConnection(Optional.empty(), 50, 100),
        false, List.of(profile)));
    assertThat(profile.multiPoint().enabled()).hasSize(DefaultProfile.names().size());
  }

  @Test
  void aDocumentWithOnlyTheTypeEqualsTheDefaults() {
    Registry registry = registry();

    assertThat(SchedulerConfigLoader.load(TestConfigs.HEADER, registry))
        .isEqualTo(SchedulerConfigLoader.defaults(registry));
  }

  @Test
  void defaultMultiPointSetOnlyHoldsRegisteredDefaultPlugins() {
    Registry registry = new Registry();
    for (String name : DefaultProfile.names()) {
      if (!name.equals("ImageLocality")) {
        TestConfigs.register(registry, name);
      }
    }

    SchedulerConfiguration config = SchedulerConfigLoader.defaults(registry);

    assertThat(config.profiles().get(0).multiPoint().enabled()).extracting(PluginRef::name)
        .doesNotContain("ImageLocality")
        .hasSize(DefaultProfile.names().size() - 1);
  }

  @Test
  void fullFileLoadsEveryField(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("scheduler.yaml");
    Files.writeString(file, FULL_YAML);
    Registry registry = registry();

    SchedulerConfiguration config = SchedulerConfigLoader.load(file, registry);

    List<PluginRef> multiPoint = new ArrayList<>();
    for (PluginRef ref : DefaultProfile.multiPoint(registry::contains).enabled()) {
      if (!ref.name().equals("ImageLocality")) {
        multiPoint.add(ref);
      }
    }
    multiPoint.add(PluginRef.of("Coscheduling"));
    Map<String, Object> fitArgs = Map.of(
        "scoringStrategy", Map.of(
            "type", "MostAllocated",
            "resources", List.of(
                Map.of("name", "cpu", "weight", 1),
                Map.of("name", "memory", "weight", 2))),
        "ignoredResources", List.of("example.com/foo"));
    Map<String, Object> coschedulingArgs =
        Map.of("permitWaitingTimeSeconds", 10, "ratio", 0.5, "strict", true);
    ProfileConfig profile = new ProfileConfig("berth",
        Map.of(ExtensionPoint.SCORE, new PluginSet(List.of(new PluginRef("NodeResourcesFit", 5)),
            List.of("NodeResourcesBalancedAllocation"))),
        new PluginSet(multiPoint, List.of("ImageLocality")),
        Map.of("NodeResourcesFit", fitArgs, "Coscheduling", coschedulingArgs),
        OptionalInt.of(70));
    assertThat(config).isEqualTo(new SchedulerConfiguration(8, OptionalInt.of(40), 2, 20,
        new SchedulerConfiguration.LeaderElection(true, Duration.ofSeconds(30),
            Duration.ofSeconds(20), Duration.ofSeconds(5), "leases", "my-scheduler",
            "scheduling"),
        new SchedulerConfiguration.ClientConnection(Optional.of("/etc/berth/kubeconfig"), 75.5,
            150),
        true, List.of(profile)));
  }

  @Test
  void pluginArgsKeepFileOrderAndAreUnmodifiable() {
    SchedulerConfiguration config = SchedulerConfigLoader.load(FULL_YAML, registry());

    Map<String, Object> args = config.profiles().get(0).argsOf("Coscheduling");
    assertThat(args.keySet()).containsExactly("permitWaitingTimeSeconds", "ratio", "strict");
    assertThatThrownBy(() -> args.put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> strategy = (Map<String, Object>) config.profiles().get(0)
        .argsOf("NodeResourcesFit").get("scoringStrategy");
    assertThatThrownBy(() -> strategy.clear()).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void jsonAndYamlOfTheSameDocumentLoadEqually() {
    String json = """
        {
          "apiVersion": "kubescheduler.config.k8s.io/v1",
          "kind": "KubeSchedulerConfiguration",
          "parallelism": 4,
          "leaderElection": {"leaderElect": false, "leaseDuration": "1m30s"},
          "clientConnection": {"qps": 20, "burst": 40},
          "profiles": [
            {
              "schedulerName": "a",
              "plugins": {"multiPoint": {"disabled": [{"name": "*"}],
                "enabled": [{"name": "PrioritySort"}, {"name": "DefaultBinder"},
                            {"name": "NodeAffinity", "weight": 4}]}},
              "pluginConfig": [{"name": "NodeAffinity",
                "args": {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                  {"nodeSelectorTerms": [{"matchExpressions": []}]}}}}]
            },
            {"schedulerName": "b", "percentageOfNodesToScore": 0}
          ]
        }
        """;
    String yamlTwin = yaml("""
        parallelism: 4
        leaderElection: {leaderElect: false, leaseDuration: 1m30s}
        clientConnection:
          qps: 20
          burst: 40
        profiles:
        - schedulerName: a
          plugins:
            multiPoint:
              disabled: [{name: "*"}]
              enabled:
              - name: PrioritySort
              - name: DefaultBinder
              - name: NodeAffinity
                weight: 4
          pluginConfig:
          - name: NodeAffinity
            args:
              addedAffinity:
                requiredDuringSchedulingIgnoredDuringExecution:
                  nodeSelectorTerms:
                  - matchExpressions: []
        - schedulerName: b
          percentageOfNodesToScore: 0
        """);

    SchedulerConfiguration fromJson = SchedulerConfigLoader.load(json, registry());
    SchedulerConfiguration fromYaml = SchedulerConfigLoader.load(yamlTwin, registry());

    assertThat(fromJson).isEqualTo(fromYaml);
    assertThat(fromJson.parallelism()).isEqualTo(4);
    assertThat(fromJson.leaderElection().leaderElect()).isFalse();
    assertThat(fromJson.leaderElection().leaseDuration()).isEqualTo(Duration.ofSeconds(90));
    assertThat(fromJson.clientConnection().qps()).isEqualTo(20.0);
    assertThat(fromJson.profiles()).extracting(ProfileConfig::schedulerName)
        .containsExactly("a", "b");
    assertThat(fromJson.profiles().get(0).multiPoint().enabled()).containsExactly(
        PluginRef.of("PrioritySort"), PluginRef.of("DefaultBinder"),
        new PluginRef("NodeAffinity", 4));
  }

  @Test
  void twoProfilesEachMergeWithTheDefaultsIndependently() {
    Registry registry = registry();
    SchedulerConfiguration config = SchedulerConfigLoader.load(yaml("""
        percentageOfNodesToScore: 50
        profiles:
        - schedulerName: default-scheduler
        - schedulerName: no-scoring
          percentageOfNodesToScore: 100
          plugins:
            preScore:
              disabled: [{name: "*"}]
            score:
              disabled: [{name: "*"}]
        """), registry);

    PluginSet defaults = DefaultProfile.multiPoint(registry::contains);
    assertThat(config.profiles()).hasSize(2);
    ProfileConfig first = config.profiles().get(0);
    ProfileConfig second = config.profiles().get(1);
    assertThat(first.multiPoint()).isEqualTo(defaults);
    assertThat(first.plugins()).isEmpty();
    assertThat(first.percentageOfNodesToScore()).isEqualTo(OptionalInt.of(50));
    assertThat(second.multiPoint()).isEqualTo(defaults);
    assertThat(second.pluginSet(ExtensionPoint.SCORE))
        .isEqualTo(new PluginSet(List.of(), List.of("*")));
    assertThat(second.pluginSet(ExtensionPoint.PRE_SCORE).disabled()).containsExactly("*");
    assertThat(second.percentageOfNodesToScore()).isEqualTo(OptionalInt.of(100));
    assertThat(config.profile("no-scoring")).contains(second);
    assertThat(config.profile("missing")).isEmpty();
  }

  @Test
  void aLoneUnnamedProfileIsTheDefaultScheduler() {
    SchedulerConfiguration config = SchedulerConfigLoader.load(yaml("""
        profiles:
        - plugins:
            multiPoint:
              disabled: [{name: ImageLocality}]
        """), registry());

    assertThat(config.profiles()).extracting(ProfileConfig::schedulerName)
        .containsExactly("default-scheduler");
  }

  @Test
  void profilePercentageOverridesTheGlobalOneEvenWhenZero() {
    SchedulerConfiguration config = SchedulerConfigLoader.load(yaml("""
        percentageOfNodesToScore: 30
        profiles:
        - schedulerName: adaptive
          percentageOfNodesToScore: 0
        - schedulerName: inherits
        """), registry());

    assertThat(config.percentageOfNodesToScore()).isEqualTo(OptionalInt.of(30));
    assertThat(config.profiles().get(0).percentageOfNodesToScore()).isEqualTo(OptionalInt.of(0));
    assertThat(config.profiles().get(1).percentageOfNodesToScore()).isEqualTo(OptionalInt.of(30));
  }

  @Test
  void zeroDurationsQpsAndBurstMeanUnsetAsUpstream() {
    SchedulerConfiguration config = SchedulerConfigLoader.load(yaml("""
        leaderElection:
          leaseDuration: 0s
          renewDeadline: "0"
          retryPeriod: 0ms
          resourceLock: ""
        clientConnection:
          qps: 0
          burst: 0
        """), registry());

    SchedulerConfiguration defaults = SchedulerConfigLoader.defaults(registry());
    assertThat(config.leaderElection()).isEqualTo(defaults.leaderElection());
    assertThat(config.clientConnection()).isEqualTo(defaults.clientConnection());
  }

  @Test
  void withSchedulerNameRenamesOnlyTheFirstProfile() {
    SchedulerConfiguration config = SchedulerConfigLoader.load(yaml("""
        profiles:
        - schedulerName: first
          plugins:
            multiPoint:
              disabled: [{name: ImageLocality}]
        - schedulerName: second
        """), registry());

    SchedulerConfiguration renamed = config.withSchedulerName("berth");

    assertThat(renamed.profiles()).extracting(ProfileConfig::schedulerName)
        .containsExactly("berth", "second");
    assertThat(renamed.profiles().get(0).multiPoint())
        .isEqualTo(config.profiles().get(0).multiPoint());
    assertThat(renamed.profiles().get(1)).isEqualTo(config.profiles().get(1));
    assertThat(config.profiles().get(0).schedulerName()).isEqualTo("first");
  }

  @Test
  void withSchedulerNameRejectsANameAnotherProfileHas() {
    SchedulerConfiguration config = SchedulerConfigLoader.load(yaml("""
        profiles:
        - schedulerName: first
        - schedulerName: second
        """), registry());

    assertThatThrownBy(() -> config.withSchedulerName("second"))
        .isInstanceOf(SchedulerConfigException.class)
        .hasMessageContaining("--scheduler-name \"second\"")
        .hasMessageContaining("profiles[1].schedulerName: Duplicate value: \"second\"");
    assertThatThrownBy(() -> config.withSchedulerName(""))
        .isInstanceOf(SchedulerConfigException.class)
        .hasMessageContaining("profiles[0].schedulerName: Required value");
  }

  @Test
  void concurrentLoadsOfOneDocumentAgree() throws Exception {
    Registry registry = registry();
    SchedulerConfiguration expected = SchedulerConfigLoader.load(FULL_YAML, registry);
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<List<SchedulerConfiguration>>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Callable<List<SchedulerConfiguration>> task = () -> {
          start.await();
          List<SchedulerConfiguration> loaded = new ArrayList<>();
          for (int i = 0; i < 25; i++) {
            loaded.add(SchedulerConfigLoader.load(FULL_YAML, registry));
          }
          return loaded;
        };
        results.add(pool.submit(task));
      }
      start.countDown();
      for (Future<List<SchedulerConfiguration>> result : results) {
        assertThat(result.get(30, TimeUnit.SECONDS)).hasSize(25).allMatch(expected::equals);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
