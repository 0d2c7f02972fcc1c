package io.berth.embedded.patch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

class StrategicMergePatchTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final StrategicMergePatch POD = StrategicMergePatch.forKind("", "Pod");
  private static final StrategicMergePatch DEPLOYMENT = StrategicMergePatch.forKind("apps", "Deployment");
  private static final StrategicMergePatch NODE = StrategicMergePatch.forKind("", "Node");

  // ---- kubectl-shaped patches and per-kind list semantics ----------------------------------------

  @Test
  void kubectlApplyPatchUpdatesImageDeletesEnvAndAddsContainerInDeclaredOrder() {
    ObjectNode live = obj("""
        {"apiVersion":"apps/v1","kind":"Deployment",
         "metadata":{"name":"web","annotations":{
            "kubectl.kubernetes.io/last-applied-configuration":"{\\"old\\":true}","team":"a"}},
         "spec":{"replicas":3,"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
            {"name":"app","image":"app:v1","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],
             "ports":[{"containerPort":8080,"protocol":"TCP"}]},
            {"name":"mesh-proxy","image":"proxy:1"}]}}}}
        """);
    // what kubectl apply computes when the user bumps the image, drops env B and adds a container
    JsonNode patch = json("""
        {"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\\"new\\":true}"}},
         "spec":{"template":{"spec":{
            "$setElementOrder/containers":[{"name":"app"},{"name":"metrics"}],
            "containers":[
              {"$setElementOrder/env":[{"name":"A"}],"env":[{"$patch":"delete","name":"B"}],
               "image":"app:v2","name":"app"},
              {"image":"metrics:v1","name":"metrics"}]}}}}
        """);

    ObjectNode patched = DEPLOYMENT.apply(live, patch);

    assertThat(patched.at("/metadata/annotations")).isEqualTo(json("""
        {"kubectl.kubernetes.io/last-applied-configuration":"{\\"new\\":true}","team":"a"}"""));
    assertThat(patched.at("/spec/template/spec/containers")).isEqualTo(json("""
        [{"name":"app","image":"app:v2","env":[{"name":"A","value":"1"}],
          "ports":[{"containerPort":8080,"protocol":"TCP"}]},
         {"name":"metrics","image":"metrics:v1"},
         {"name":"mesh-proxy","image":"proxy:1"}]"""));
    assertThat(patched.at("/spec/replicas").asInt()).isEqualTo(3);
    assertThat(patched.toString()).doesNotContain("$setElementOrder").doesNotContain("$patch");
  }

  @Test
  void setElementOrderAloneReordersAList() {
    ObjectNode live = pod("[{\"name\":\"a\",\"image\":\"a\"},{\"name\":\"b\",\"image\":\"b\"}]");

    ObjectNode patched = POD.apply(live,
        json("{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"b\"},{\"name\":\"a\"}]}}"));

    assertThat(names(patched.at("/spec/containers"))).containsExactly("b", "a");
  }

  @Test
  void setElementOrderKeepsServerOnlyItemsInTheirRelativePlace() {
    ObjectNode live = pod("[{\"name\":\"a\"},{\"name\":\"injected\"},{\"name\":\"b\"}]");

    ObjectNode patched = POD.apply(live, json("""
        {"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"}],
                 "containers":[{"name":"b","image":"b:2"}]}}"""));

    assertThat(names(patched.at("/spec/containers"))).containsExactly("a", "injected", "b");
    assertThat(patched.at("/spec/containers/2/image").asString()).isEqualTo("b:2");
  }

  @Test
  void deleteDirectiveRemovesAContainer() {
    ObjectNode live = pod("[{\"name\":\"app\",\"image\":\"a\"},{\"name\":\"debug\",\"image\":\"d\"}]");

    ObjectNode patched = POD.apply(live,
        json("{\"spec\":{\"containers\":[{\"$patch\":\"delete\",\"name\":\"debug\"}]}}"));

    assertThat(patched.at("/spec/containers")).isEqualTo(json("[{\"name\":\"app\",\"image\":\"a\"}]"));
  }

  @Test
  void containerIsMergedByNameAndItsEnvAndPortsByTheirKeys() {
    ObjectNode live = pod("""
        [{"name":"app","image":"a:1","env":[{"name":"A","value":"1"}],
          "ports":[{"containerPort":80,"name":"http"}],"volumeMounts":[{"name":"v","mountPath":"/data"}]}]""");

    ObjectNode patched = POD.apply(live, json("""
        {"spec":{"containers":[{"name":"app",
          "env":[{"name":"A","value":"2"},{"name":"B","value":"3"}],
          "ports":[{"containerPort":80,"protocol":"TCP"}],
          "volumeMounts":[{"mountPath":"/data","readOnly":true}]}]}}"""));

    JsonNode app = patched.at("/spec/containers/0");
    assertThat(app.path("image").asString()).isEqualTo("a:1");
    assertThat(app.path("env")).isEqualTo(json("[{\"name\":\"A\",\"value\":\"2\"},{\"name\":\"B\",\"value\":\"3\"}]"));
    assertThat(app.path("ports")).isEqualTo(json("[{\"containerPort\":80,\"name\":\"http\",\"protocol\":\"TCP\"}]"));
    assertThat(app.path("volumeMounts")).isEqualTo(json("[{\"name\":\"v\",\"mountPath\":\"/data\",\"readOnly\":true}]"));
  }

  @Test
  void newListItemIsPlacedBeforeServerItemsAsUpstreamDoes() {
    ObjectNode live = pod("[{\"name\":\"patch-demo-ctr\",\"image\":\"nginx\"}]");

    ObjectNode patched = POD.apply(live,
        json("{\"spec\":{\"containers\":[{\"name\":\"patch-demo-ctr-2\",\"image\":\"redis\"}]}}"));

    assertThat(names(patched.at("/spec/containers"))).containsExactly("patch-demo-ctr-2", "patch-demo-ctr");
  }

  @Test
  void conditionsAreMergedByType() {
    ObjectNode live = obj("""
        {"kind":"Pod","metadata":{"name":"p"},"status":{"phase":"Running","conditions":[
          {"type":"PodScheduled","status":"True"},{"type":"Ready","status":"False","reason":"Starting"}]}}""");

    ObjectNode patched = POD.apply(live, json("""
        {"status":{"conditions":[{"type":"Ready","status":"True","reason":null}]}}"""));

    assertThat(patched.at("/status/conditions")).isEqualTo(json("""
        [{"type":"PodScheduled","status":"True"},{"type":"Ready","status":"True"}]"""));
    assertThat(patched.at("/status/phase").asString()).isEqualTo("Running");
  }

  @Test
  void newConditionIsAddedBeforeExistingOnes() {
    ObjectNode live = obj("{\"kind\":\"Pod\",\"status\":{\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"True\"}]}}");

    ObjectNode patched = POD.apply(live, json("{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}"));

    assertThat(patched.at("/status/conditions/0/type").asString()).isEqualTo("Ready");
    assertThat(patched.at("/status/conditions/1/type").asString()).isEqualTo("PodScheduled");
  }

  @Test
  void containerStatusesAreReplacedBecauseUpstreamDeclaresNoMergeKey() {
    ObjectNode live = obj("""
        {"kind":"Pod","status":{"containerStatuses":[{"name":"a","ready":true},{"name":"b","ready":true}]}}""");

    ObjectNode patched = POD.apply(live, json("{\"status\":{\"containerStatuses\":[{\"name\":\"a\",\"ready\":false}]}}"));

    assertThat(patched.at("/status/containerStatuses")).isEqualTo(json("[{\"name\":\"a\",\"ready\":false}]"));
  }

  @Test
  void ownerReferencesAreMergedByUid() {
    ObjectNode live = obj("""
        {"kind":"Pod","metadata":{"name":"p","ownerReferences":[
          {"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u1","controller":true}]}}""");

    ObjectNode patched = POD.apply(live, json("""
        {"metadata":{"ownerReferences":[
          {"uid":"u1","blockOwnerDeletion":true},
          {"apiVersion":"v1","kind":"ConfigMap","name":"cm","uid":"u2"}]}}"""));

    JsonNode refs = patched.at("/metadata/ownerReferences");
    assertThat(refs).hasSize(2);
    assertThat(refs.get(0)).isEqualTo(json("""
        {"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u1","controller":true,
         "blockOwnerDeletion":true}"""));
    assertThat(refs.get(1).path("uid").asString()).isEqualTo("u2");
  }

  @Test
  void ownerReferenceIsRemovedWithDeleteDirectiveByUid() {
    ObjectNode live = obj("""
        {"kind":"ConfigMap","metadata":{"name":"c","ownerReferences":[{"uid":"u1","name":"a"},{"uid":"u2","name":"b"}]}}""");

    ObjectNode patched = StrategicMergePatch.forKind("", "ConfigMap").apply(live,
        json("{\"metadata\":{\"ownerReferences\":[{\"$patch\":\"delete\",\"uid\":\"u1\"}]}}"));

    assertThat(patched.at("/metadata/ownerReferences")).isEqualTo(json("[{\"uid\":\"u2\",\"name\":\"b\"}]"));
  }

  @Test
  void finalizersMergeAsASetAndDeleteFromPrimitiveListRemovesValues() {
    ObjectNode live = obj("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"finalizers\":[\"a\",\"b\"]}}");

    ObjectNode added = POD.apply(live, json("{\"metadata\":{\"finalizers\":[\"c\",\"a\"]}}"));
    ObjectNode removed = POD.apply(live, json("{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"a\"]}}"));

    assertThat(added.at("/metadata/finalizers")).isEqualTo(json("[\"c\",\"a\",\"b\"]"));
    assertThat(removed.at("/metadata/finalizers")).isEqualTo(json("[\"b\"]"));
  }

  @Test
  void kubectlApplyRemovingAFinalizerSendsOrderAndDeletionLists() {
    ObjectNode live = obj("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"finalizers\":[\"x\",\"a\",\"b\"]}}");

    ObjectNode patched = POD.apply(live, json("""
        {"metadata":{"$setElementOrder/finalizers":["b","a"],"$deleteFromPrimitiveList/finalizers":["x"]}}"""));

    assertThat(patched.at("/metadata/finalizers")).isEqualTo(json("[\"b\",\"a\"]"));
  }

  @Test
  void cordonSetsUnschedulableAndKeepsTheRest() {
    ObjectNode live = obj("""
        {"kind":"Node","metadata":{"name":"n1","labels":{"zone":"a"}},"spec":{"podCIDR":"10.0.0.0/24"}}""");

    ObjectNode patched = NODE.apply(live, json("{\"spec\":{\"unschedulable\":true}}"));

    assertThat(patched.at("/spec")).isEqualTo(json("{\"podCIDR\":\"10.0.0.0/24\",\"unschedulable\":true}"));
    assertThat(patched.at("/metadata/labels/zone").asString()).isEqualTo("a");
  }

  @Test
  void nodeTaintsAreReplacedWholesale() {
    ObjectNode live = obj("""
        {"kind":"Node","spec":{"taints":[{"key":"a","effect":"NoSchedule"},{"key":"b","effect":"NoExecute"}]}}""");

    ObjectNode patched = NODE.apply(live,
        json("{\"spec\":{\"taints\":[{\"key\":\"node.kubernetes.io/unschedulable\",\"effect\":\"NoSchedule\"}]}}"));

    assertThat(patched.at("/spec/taints")).hasSize(1);
    assertThat(patched.at("/spec/taints/0/key").asString()).isEqualTo("node.kubernetes.io/unschedulable");
  }

  @Test
  void nodeStatusAddressesAndConditionsMergeByType() {
    ObjectNode live = obj("""
        {"kind":"Node","status":{
          "addresses":[{"type":"InternalIP","address":"10.0.0.1"},{"type":"Hostname","address":"n1"}],
          "conditions":[{"type":"Ready","status":"True"},{"type":"MemoryPressure","status":"False"}]}}""");

    ObjectNode patched = NODE.apply(live, json("""
        {"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.2"}],
                   "conditions":[{"type":"Ready","status":"Unknown"}]}}"""));

    assertThat(patched.at("/status/addresses")).isEqualTo(json("""
        [{"type":"InternalIP","address":"10.0.0.2"},{"type":"Hostname","address":"n1"}]"""));
    assertThat(patched.at("/status/conditions")).isEqualTo(json("""
        [{"type":"Ready","status":"Unknown"},{"type":"MemoryPressure","status":"False"}]"""));
  }

  @Test
  void podTolerationsAreReplacedWholesale() {
    ObjectNode live = obj("""
        {"kind":"Pod","spec":{"tolerations":[{"key":"a","operator":"Exists"},{"key":"b","operator":"Exists"}]}}""");

    ObjectNode patched = POD.apply(live, json("{\"spec\":{\"tolerations\":[{\"key\":\"c\",\"operator\":\"Exists\"}]}}"));

    assertThat(patched.at("/spec/tolerations")).isEqualTo(json("[{\"key\":\"c\",\"operator\":\"Exists\"}]"));
  }

  @Test
  void scaleAndRolloutRestartPatchesMergeIntoTheDeployment() {
    ObjectNode live = obj("""
        {"kind":"Deployment","spec":{"replicas":2,"template":{"metadata":{"annotations":{"a":"1"}},
          "spec":{"containers":[{"name":"app","image":"app:v1"}]}}}}""");

    ObjectNode scaled = DEPLOYMENT.apply(live, json("{\"spec\":{\"replicas\":5}}"));
    ObjectNode restarted = DEPLOYMENT.apply(live, json("""
        {"spec":{"template":{"metadata":{"annotations":{
          "kubectl.kubernetes.io/restartedAt":"2024-05-01T10:00:00Z"}}}}}"""));

    assertThat(scaled.at("/spec/replicas").asInt()).isEqualTo(5);
    assertThat(restarted.at("/spec/template/metadata/annotations")).isEqualTo(json("""
        {"a":"1","kubectl.kubernetes.io/restartedAt":"2024-05-01T10:00:00Z"}"""));
    assertThat(restarted.at("/spec/template/spec")).isEqualTo(live.at("/spec/template/spec"));
  }

  @Test
  void volumesAreMergedByName() {
    ObjectNode live = obj("""
        {"kind":"Pod","spec":{"volumes":[{"name":"data","emptyDir":{}},{"name":"cfg","configMap":{"name":"c"}}]}}""");

    ObjectNode patched = POD.apply(live, json("""
        {"spec":{"volumes":[{"name":"cfg","configMap":{"name":"c2"}}]}}"""));

    assertThat(patched.at("/spec/volumes")).isEqualTo(json("""
        [{"name":"data","emptyDir":{}},{"name":"cfg","configMap":{"name":"c2"}}]"""));
  }

  @Test
  void customResourceFallsBackToJsonMergePatch() {
    StrategicMergePatch widget = StrategicMergePatch.forKind("example.com", "Widget");
    ObjectNode live = obj("""
        {"apiVersion":"example.com/v1","kind":"Widget","spec":{"containers":[{"name":"a"},{"name":"b"}],"x":1}}""");

    ObjectNode patched = widget.apply(live, json("{\"spec\":{\"containers\":[{\"name\":\"c\"}]}}"));

    assertThat(widget.isStrategic()).isFalse();
    assertThat(patched.at("/spec")).isEqualTo(json("{\"containers\":[{\"name\":\"c\"}],\"x\":1}"));
  }

  @Test
  void builtinKindWithoutItsOwnTableStillMergesOwnerReferencesByUid() {
    StrategicMergePatch lease = StrategicMergePatch.forObject(obj("{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\"}"));
    ObjectNode live = obj("{\"kind\":\"Lease\",\"metadata\":{\"ownerReferences\":[{\"uid\":\"u1\"}]}}");

    ObjectNode patched = lease.apply(live, json("{\"metadata\":{\"ownerReferences\":[{\"uid\":\"u2\"}]}}"));

    assertThat(lease.isStrategic()).isTrue();
    assertThat(patched.at("/metadata/ownerReferences")).hasSize(2);
  }

  @Test
  void neitherArgumentIsMutated() {
    ObjectNode live = pod("[{\"name\":\"a\",\"image\":\"a\"}]");
    JsonNode patch = json("{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"b\"},{\"name\":\"c\"}]}}");
    ObjectNode liveBefore = live.deepCopy();
    JsonNode patchBefore = patch.deepCopy();

    POD.apply(live, patch);

    assertThat(live).isEqualTo(liveBefore);
    assertThat(patch).isEqualTo(patchBefore);
  }

  @Test
  void sharedPatcherGivesTheSameResultOnManyThreads() throws Exception {
    ObjectNode live = pod("[{\"name\":\"a\",\"image\":\"a\"},{\"name\":\"b\",\"image\":\"b\"}]");
    JsonNode patch = json("""
        {"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"a","image":"a2"}]}}""");
    ObjectNode expected = POD.apply(live, patch);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Callable<ObjectNode>> tasks = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        tasks.add(() -> POD.apply(live, patch));
      }
      for (Future<ObjectNode> result : pool.invokeAll(tasks)) {
        assertThat(result.get()).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- helpers -----------------------------------------------------------------------------------

  private static ObjectNode pod(String containers) {
    return obj("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":"
        + containers + "}}");
  }

  private static List<String> names(JsonNode list) {
    List<String> out = new ArrayList<>();
    list.forEach(item -> out.add(item.path("name").asString()));
    return out;
  }

  private static ObjectNode obj(String text) {
    return (ObjectNode) JSON.readTree(text);
  }

  private static JsonNode json(String text) {
    return JSON.readTree(text);
  }
}
