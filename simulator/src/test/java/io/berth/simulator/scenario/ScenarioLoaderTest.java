package io.berth.simulator.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The scenario format: what it accepts, and that every rejection names the file, the document and the field. */
class ScenarioLoaderTest {

  private static final String DEPLOYMENT = String.join("\n",
      "apiVersion: apps/v1",
      "kind: Deployment",
      "metadata: {name: web, namespace: demo}",
      "spec:",
      "  replicas: 3",
      "  selector: {matchLabels: {app: web}}",
      "  template:",
      "    metadata: {labels: {app: web}}",
      "    spec:",
      "      containers:",
      "      - name: web",
      "        image: nginx:1.27",
      "        resources: {requests: {cpu: 100m, memory: 64Mi}}");

  private static final String SCENARIO = String.join("\n",
      "apiVersion: simulator.berth.io/v1alpha1",
      "kind: Scenario",
      "metadata: {name: demo}",
      "spec:",
      "  description: a test",
      "  nodes:",
      "  - {namePrefix: a, count: 2, zone: zone-a, cpu: '2', memory: 4Gi}",
      "  - {name: gpu, cpu: '8', taints: [{key: gpu, value: 'true', effect: NoSchedule}], labels: {disk: ssd}}",
      "  steps:",
      "  - {at: 1s, scale: {deployment: demo/web, replicas: 5}}",
      "  - {at: 2s, setImage: {deployment: demo/web, image: nginx:1.28}}",
      "  - {at: 3s, cordon: a-0}",
      "  - {at: 3s, addNode: {name: late, zone: zone-b}}",
      "  - {at: 4s, removeNode: late}",
      "  expect:",
      "    timeout: 30s",
      "    rolledOut: [demo/web]",
      "    pods: [{namespace: demo, labels: {app: web}, phase: Running, count: 5}]");

  @Test
  void readsNodesStepsAndExpectationsAndFillsInTheDefaultNamespace() {
    Scenario s = ScenarioLoader.parse("t.yaml", "---\n# the web app\n---\n" + SCENARIO + "\n---\n" + DEPLOYMENT
        + "\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: solo}\nspec: {containers: [{name: c, image: i}]}\n");
    assertThat(s.name()).isEqualTo("demo");
    assertThat(s.nodes()).extracting(n -> n.name()).containsExactly("a-0", "a-1", "gpu");
    assertThat(s.nodes().get(0).zone()).isEqualTo("zone-a");
    assertThat(s.nodes().get(0).cpu()).isEqualTo("2");
    assertThat(s.nodes().get(2).taints()).hasSize(1);
    assertThat(s.nodes().get(2).labels()).containsEntry("disk", "ssd");
    assertThat(s.manifests()).extracting(Manifest::label).containsExactly("Deployment demo/web", "Pod default/solo");
    assertThat(s.manifests().get(0).document()).isEqualTo(2);
    assertThat(s.manifests().get(1).json()).contains("\"namespace\":\"default\"");
    assertThat(s.steps()).extracting(Step::describe).containsExactly(
        "scale Deployment demo/web to 5",
        "set image of Deployment demo/web container web to nginx:1.28",
        "cordon node a-0", "add node late", "remove node late");
    assertThat(s.steps().get(2).at()).isEqualTo(Duration.ofSeconds(3));
    assertThat(s.expectations()).singleElement().satisfies(e -> assertThat(e.describe())
        .isEqualTo("5 pods in demo with app=web Running"));
    assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.rolledOut()).containsExactly("demo/web");
  }

  @Test
  void aFileOfManifestsAloneRunsOnThreeNodesInThreeZones() {
    Scenario s = ScenarioLoader.parse("plain.yaml", DEPLOYMENT);
    assertThat(s.name()).isEqualTo("plain");
    assertThat(s.nodes()).extracting(n -> n.zone()).containsExactly("zone-a", "zone-b", "zone-c");
    assertThat(s.steps()).isEmpty();
  }

  static Stream<String[]> invalid() {
    return Stream.of(
        new String[] {DEPLOYMENT.replace("replicas: 3", "replicas: -1"),
            "document 1 (Deployment demo/web): spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
        new String[] {DEPLOYMENT.replace("        image: nginx:1.27\n", ""),
            "document 1 (Deployment demo/web): spec.template.spec.containers[0].image: Required value"},
        new String[] {DEPLOYMENT.replace("cpu: 100m", "cpu: lots"),
            "document 1 (Deployment demo/web): spec.template.spec.containers[0].resources.requests[cpu]: "
                + "Invalid value: \"lots\""},
        new String[] {DEPLOYMENT.replace("labels: {app: web}", "labels: {app: api}"),
            "document 1 (Deployment demo/web): spec.template.metadata.labels: Invalid value: {\"app\":\"api\"}: "
                + "`selector` does not match template `labels`"},
        new String[] {DEPLOYMENT.replace("name: web, namespace", "name: Web_1, namespace"),
            "document 1 (Deployment demo/Web_1): metadata.name: Invalid value: \"Web_1\""},
        new String[] {"apiVersion: v1\nkind: Widget\nmetadata: {name: w}\n",
            "document 1 (Widget w): kind: Unsupported value: \"Widget\""},
        new String[] {DEPLOYMENT.replace("apps/v1", "apps/v1beta1"),
            "document 1 (Deployment demo/web): apiVersion: Unsupported value: \"apps/v1beta1\": Deployment is "
                + "served as apps/v1"},
        new String[] {"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  priorityClassName: high\n"
            + "  containers: [{name: c, image: i}]\n",
            "document 1 (Pod default/p): spec.priorityClassName: Not found: no PriorityClass with name \"high\""},
        new String[] {"apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\n"
            + "spec: {minMember: 0}\n",
            "document 1 (PodGroup default/g): spec.minMember: Invalid value: 0: must be greater than or equal to 1"},
        new String[] {DEPLOYMENT + "\n---\n" + SCENARIO.replace("replicas: 5", "replica: 5"),
            "document 2 (Scenario demo): spec.steps[0].scale.replica: Unknown field"},
        new String[] {DEPLOYMENT + "\n---\n" + SCENARIO.replace("deployment: demo/web, replicas", "deployment: api, "
            + "replicas"),
            "document 2 (Scenario demo): spec.steps[0].scale.deployment: Not found: no Deployment \"default/api\""},
        new String[] {DEPLOYMENT + "\n---\n" + SCENARIO.replace("cordon: a-0", "cordon: b-0"),
            "document 2 (Scenario demo): spec.steps[2].cordon: Not found: node \"b-0\" does not exist by then"},
        new String[] {DEPLOYMENT + "\n---\n" + SCENARIO.replace("at: 4s", "at: 500ms"),
            "document 2 (Scenario demo): spec.steps[4].at: Invalid value: \"500ms\": must not be earlier"},
        new String[] {DEPLOYMENT + "\n---\n" + SCENARIO.replace("cpu: '2'", "cpu: two"),
            "document 2 (Scenario demo): spec.nodes[0].cpu: Invalid value: \"two\""},
        new String[] {DEPLOYMENT + "\n---\n" + SCENARIO.replace("effect: NoSchedule", "effect: Never"),
            "document 2 (Scenario demo): spec.nodes[1].taints[0].effect: Unsupported value: \"Never\""},
        new String[] {DEPLOYMENT + "\n---\n" + SCENARIO.replace("  description: a test",
            "  schedulerConfig: {apiVersion: kubescheduler.config.k8s.io/v1, kind: KubeSchedulerConfiguration, "
                + "percentageOfNodesToScore: 120}"),
            "document 2 (Scenario demo): spec.schedulerConfig: percentageOfNodesToScore: Invalid value: 120"},
        new String[] {DEPLOYMENT + "\n---\n" + SCENARIO.replace("rolledOut: [demo/web]", "rolledOut: [web]"),
            "document 2 (Scenario demo): spec.expect.rolledOut[0]: Not found: no Deployment \"default/web\""},
        new String[] {DEPLOYMENT + "\n---\nkind: [\n",
            "document 2: not valid YAML"},
        new String[] {DEPLOYMENT + "\n---\n" + DEPLOYMENT,
            "document 2 (Deployment demo/web): metadata.name: Duplicate value: \"web\""});
  }

  @ParameterizedTest
  @MethodSource("invalid")
  void anInvalidDocumentRejectsTheFileNamingFileDocumentAndField(String content, String expected) {
    assertThatThrownBy(() -> ScenarioLoader.parse("scenarios/bad.yaml", content))
        .isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith("invalid scenario scenarios/bad.yaml: ")
        .hasMessageContaining(expected);
  }

  @Test
  void everyProblemOfTheFileIsReportedAtOnce() {
    String content = DEPLOYMENT.replace("replicas: 3", "replicas: -1") + "\n---\n"
        + "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: []}\n";
    assertThatThrownBy(() -> ScenarioLoader.parse("two.yaml", content))
        .isInstanceOfSatisfying(ScenarioException.class, e -> assertThat(e.problems()).containsExactly(
            "document 1 (Deployment demo/web): spec.replicas: Invalid value: -1: must be greater than or equal to 0",
            "document 2 (Pod default/p): spec.containers: Required value"));
  }

  private static final String POD_SETS = String.join("\n",
      "apiVersion: simulator.berth.io/v1alpha1",
      "kind: Scenario",
      "metadata: {name: sets}",
      "spec:",
      "  nodes: [{namePrefix: n, count: 3}]",
      "  podSets:",
      "  - namePrefix: busy",
      "    count: 12",
      "    namespace: load",
      "    onNodes: true",
      "    template:",
      "      metadata: {labels: {app: busy}}",
      "      spec: {containers: [{name: c, image: pause, resources: {requests: {cpu: 100m}}}]}",
      "  - namePrefix: waiting",
      "    count: 2",
      "    template: {spec: {containers: [{name: c, image: pause}]}}");

  @Test
  void podSetsAreReadWithTheirTemplateAndDefaultNamespace() {
    Scenario s = ScenarioLoader.parse("sets.yaml", POD_SETS);
    assertThat(s.podSets()).extracting(PodSet::namePrefix, PodSet::count, PodSet::namespace, PodSet::onNodes)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("busy", 12, "load", true),
            org.assertj.core.groups.Tuple.tuple("waiting", 2, "default", false));
    assertThat(s.podSets().get(0).templateJson()).contains("\"app\":\"busy\"").contains("\"kind\":\"Pod\"")
        .contains("\"cpu\":\"100m\"").doesNotContain("busy-0");
  }

  @Test
  void aPodSetIsRefusedForWhatWouldRefuseAPodNamingTheField() {
    assertThatThrownBy(() -> ScenarioLoader.parse("sets.yaml", POD_SETS.replace("image: pause, resources",
        "resources").replace("count: 2", "count: 0")))
        .isInstanceOfSatisfying(ScenarioException.class, e -> assertThat(e.problems()).containsExactly(
            "document 1 (Scenario sets): spec.podSets[0].template.spec.containers[0].image: Required value",
            "document 1 (Scenario sets): spec.podSets[1].count: Invalid value: 0: must be between 1 and 200000"));
  }

  @Test
  void anUnknownFieldIsReportedWithItsLineAndNothingLoads() {
    String content = "# a namespace first\napiVersion: v1\nkind: Namespace\nmetadata: {name: demo}\n---\n"
        + DEPLOYMENT.replace("  replicas: 3", "  replicas: 3\n  strategyy: {}")
            .replace("        image: nginx:1.27", "        image: nginx:1.27\n        imagePullPolice: Always")
            .replace("    spec:", "    spec:\n      nodeSelector: {any-key.example.com/x: y}");
    assertThatThrownBy(() -> ScenarioLoader.parse("typo.yaml", content))
        .isInstanceOfSatisfying(ScenarioException.class, e -> assertThat(e.problems()).containsExactly(
            "document 2 (Deployment demo/web), line 11: spec.strategyy: Unknown field",
            "document 2 (Deployment demo/web), line 20: spec.template.spec.containers[0].imagePullPolice: "
                + "Unknown field"))
        .hasMessageStartingWith("invalid scenario typo.yaml: ");
  }

  @Test
  void aMissingFileIsReportedByName() {
    assertThatThrownBy(() -> ScenarioLoader.load(Path.of("no/such.yaml")))
        .isInstanceOf(ScenarioException.class).hasMessageStartingWith("invalid scenario no/such.yaml: cannot read");
  }

  @Test
  void everyShippedScenarioLoads() throws Exception {
    Path dir = Path.of("scenarios");
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.filter(f -> f.toString().endsWith(".yaml")).peek(ScenarioLoader::load).count())
          .isGreaterThanOrEqualTo(4);
    }
  }
}
