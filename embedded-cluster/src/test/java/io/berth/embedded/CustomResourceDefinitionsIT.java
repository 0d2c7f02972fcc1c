package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceSubresourceStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CustomResourceDefinitions over real HTTP: the PodGroup CRD from {@code deploy/crds} applied and its objects
 * served like built-in ones (CRUD, watch, status subresource, discovery), CRD validation, scope, and deletion.
 */
class CustomResourceDefinitionsIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  private static final String POD_GROUPS = "scheduling.x-k8s.io/v1alpha1";
  private static final Path POD_GROUP_CRD = Path.of("..", "deploy", "crds", "scheduling.x-k8s.io_podgroups.yaml");

  private static CustomResourceDefinition applyPodGroupCrd(KubernetesClient client) {
    CustomResourceDefinition crd = client.apiextensions().v1().customResourceDefinitions()
        .load(POD_GROUP_CRD.toFile()).item();
    if (client.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName()).get() == null) {
      client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
    }
    return crd;
  }

  private static GenericKubernetesResource podGroup(String name, int minMember) {
    return new GenericKubernetesResourceBuilder().withApiVersion(POD_GROUPS).withKind("PodGroup")
        .withNewMetadata().withName(name).withNamespace("default").endMetadata()
        .addToAdditionalProperties("spec", Map.of("minMember", minMember))
        .addToAdditionalProperties("status", Map.of("phase", "Running"))
        .build();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> section(GenericKubernetesResource r, String name) {
    return (Map<String, Object>) r.getAdditionalProperties().get(name);
  }

  @Test
  void podGroupCrdFromDeployRoundTripsAPodGroup() {
    KubernetesClient client = CLUSTER.client();
    applyPodGroupCrd(client);
    var groups = client.genericKubernetesResources(POD_GROUPS, "PodGroup").inNamespace("default");
    GenericKubernetesResource created = groups.resource(podGroup("round-trip", 3)).create();
    assertThat(created.getMetadata().getUid()).isNotEmpty();
    assertThat(section(created, "spec")).containsEntry("minMember", 3);
    assertThat(created.getAdditionalProperties()).as("create drops status when it is a subresource")
        .doesNotContainKey("status");
    assertThat(groups.withName("round-trip").get().getMetadata().getName()).isEqualTo("round-trip");
    assertThat(groups.list().getItems()).extracting(r -> r.getMetadata().getName()).contains("round-trip");
    groups.withName("round-trip").delete();
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> groups.withName("round-trip").get() == null);
  }

  @Test
  void schemaRejectsMinMemberBelowOneNamingTheField() {
    KubernetesClient client = CLUSTER.client();
    applyPodGroupCrd(client);
    var groups = client.genericKubernetesResources(POD_GROUPS, "PodGroup").inNamespace("default");
    assertThatThrownBy(() -> groups.resource(podGroup("zero", 0)).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(422);
          assertThat(e.getMessage()).contains("PodGroup").contains("zero")
              .contains("spec.minMember in body should be greater than or equal to 1");
        });
    GenericKubernetesResource badQuantity = podGroup("bad-quantity", 1);
    badQuantity.getAdditionalProperties().put("spec", Map.of("minMember", 1, "minResources", Map.of("cpu", "lots")));
    assertThatThrownBy(() -> groups.resource(badQuantity).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getMessage())
            .contains("spec.minResources.cpu"));
  }

  @Test
  void fieldsTheSchemaDoesNotDeclareArePruned() {
    KubernetesClient client = CLUSTER.client();
    applyPodGroupCrd(client);
    var groups = client.genericKubernetesResources(POD_GROUPS, "PodGroup").inNamespace("default");
    GenericKubernetesResource pg = podGroup("pruned", 2);
    pg.getAdditionalProperties().put("spec", Map.of("minMember", 2, "bogus", true));
    pg.getAdditionalProperties().put("extra", "x");
    GenericKubernetesResource created = groups.resource(pg).create();
    assertThat(section(created, "spec")).containsOnlyKeys("minMember");
    assertThat(created.getAdditionalProperties()).doesNotContainKey("extra");
    groups.withName("pruned").delete();
  }

  @Test
  void statusUpdatesAreValidatedAgainstTheSchema() {
    KubernetesClient client = CLUSTER.client();
    applyPodGroupCrd(client);
    var groups = client.genericKubernetesResources(POD_GROUPS, "PodGroup").inNamespace("default");
    groups.resource(podGroup("bad-phase", 1)).create();
    GenericKubernetesResource current = groups.withName("bad-phase").get();
    current.getAdditionalProperties().put("status", Map.of("phase", "Exploded"));
    assertThatThrownBy(() -> groups.resource(current).updateStatus())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(422);
          assertThat(e.getMessage()).contains("status.phase: Unsupported value: \"Exploded\"");
        });
    groups.withName("bad-phase").delete();
  }

  @Test
  void discoveryListsTheCustomResourceWithItsStatusSubresourceAndShortNames() {
    KubernetesClient client = CLUSTER.client();
    applyPodGroupCrd(client);
    assertThat(client.getApiGroups().getGroups()).extracting(g -> g.getName()).contains("scheduling.x-k8s.io");
    List<APIResource> resources = client.getApiResources(POD_GROUPS).getResources();
    assertThat(resources).extracting(APIResource::getName).contains("podgroups", "podgroups/status");
    APIResource podGroups = resources.stream().filter(r -> r.getName().equals("podgroups")).findFirst().orElseThrow();
    assertThat(podGroups.getNamespaced()).isTrue();
    assertThat(podGroups.getKind()).isEqualTo("PodGroup");
    assertThat(podGroups.getShortNames()).containsExactly("pg", "pgs");
  }

  @Test
  void mainResourceUpdatesIgnoreStatusAndStatusUpdatesIgnoreSpec() {
    KubernetesClient client = CLUSTER.client();
    applyPodGroupCrd(client);
    var groups = client.genericKubernetesResources(POD_GROUPS, "PodGroup").inNamespace("default");
    groups.resource(podGroup("split", 2)).create();

    GenericKubernetesResource withStatus = groups.withName("split").get();
    withStatus.getAdditionalProperties().put("status", Map.of("phase", "Scheduling", "scheduled", 1));
    withStatus.getAdditionalProperties().put("spec", Map.of("minMember", 9));
    GenericKubernetesResource afterStatus = groups.resource(withStatus).updateStatus();
    assertThat(section(afterStatus, "status")).containsEntry("phase", "Scheduling").containsEntry("scheduled", 1);
    assertThat(section(afterStatus, "spec")).as("/status ignores spec").containsEntry("minMember", 2);

    GenericKubernetesResource withSpec = groups.withName("split").get();
    withSpec.getAdditionalProperties().put("spec", Map.of("minMember", 4));
    withSpec.getAdditionalProperties().put("status", Map.of("phase", "Failed"));
    GenericKubernetesResource afterUpdate = groups.resource(withSpec).update();
    assertThat(section(afterUpdate, "spec")).containsEntry("minMember", 4);
    assertThat(section(afterUpdate, "status")).as("the main resource ignores status").containsEntry("phase",
        "Scheduling");
    assertThat(afterUpdate.getMetadata().getGeneration()).isEqualTo(2L);
    groups.withName("split").delete();
  }

  @Test
  void watchSeesAddedModifiedAndDeletedPodGroups() throws Exception {
    KubernetesClient client = CLUSTER.client();
    applyPodGroupCrd(client);
    var groups = client.genericKubernetesResources(POD_GROUPS, "PodGroup").inNamespace("default");
    List<String> events = new CopyOnWriteArrayList<>();
    try (Watch ignored = groups.watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, GenericKubernetesResource resource) {
        if (resource.getMetadata().getName().equals("watched")) {
          events.add(action.name());
        }
      }

      @Override
      public void onClose(WatcherException cause) {
      }
    })) {
      groups.resource(podGroup("watched", 1)).create();
      groups.withName("watched").edit(r -> {
        r.getAdditionalProperties().put("spec", Map.of("minMember", 5));
        return r;
      });
      groups.withName("watched").delete();
      Awaitility.await().atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(events).containsExactly("ADDED", "MODIFIED", "DELETED"));
    }
  }

  @Test
  void clusterScopedCrdServesObjectsWithoutNamespace() {
    KubernetesClient client = CLUSTER.client();
    client.apiextensions().v1().customResourceDefinitions().resource(crd("widgets", "Widget", "Cluster", false))
        .create();
    var widgets = client.genericKubernetesResources("example.berth.io/v1", "Widget");
    widgets.resource(new GenericKubernetesResourceBuilder().withApiVersion("example.berth.io/v1").withKind("Widget")
        .withNewMetadata().withName("w1").endMetadata().build()).create();
    GenericKubernetesResource w = widgets.withName("w1").get();
    assertThat(w.getMetadata().getNamespace()).isNull();
    assertThat(client.getApiResources("example.berth.io/v1").getResources()).extracting(APIResource::getName)
        .contains("widgets").doesNotContain("widgets/status");
  }

  @Test
  void deletingTheCrdStopsServingItAndRemovesItsObjects() {
    KubernetesClient client = CLUSTER.client();
    var crds = client.apiextensions().v1().customResourceDefinitions();
    crds.resource(crd("gadgets", "Gadget", "Namespaced", true)).create();
    ResourceDefinitionContext gadgets = new ResourceDefinitionContext.Builder().withGroup("example.berth.io")
        .withVersion("v1").withPlural("gadgets").withKind("Gadget").withNamespaced(true).build();
    client.genericKubernetesResources(gadgets).inNamespace("default").resource(new GenericKubernetesResourceBuilder()
        .withApiVersion("example.berth.io/v1").withKind("Gadget").withNewMetadata().withName("g1").endMetadata()
        .build()).create();
    crds.withName("gadgets.example.berth.io").delete();
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> crds.withName("gadgets.example.berth.io").get() == null);
    assertThatThrownBy(() -> client.genericKubernetesResources(gadgets).inNamespace("default").list())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(404));

    crds.resource(crd("gadgets", "Gadget", "Namespaced", true)).create();
    assertThat(client.genericKubernetesResources(gadgets).inNamespace("default").list().getItems())
        .as("a recreated CRD does not resurrect the old objects").isEmpty();
  }

  @Test
  void deletingANamespaceDeletesItsCustomResources() {
    KubernetesClient client = CLUSTER.client();
    applyPodGroupCrd(client);
    client.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata()
        .withName("crd-ns").endMetadata().build()).create();
    var groups = client.genericKubernetesResources(POD_GROUPS, "PodGroup").inNamespace("crd-ns");
    GenericKubernetesResource pg = podGroup("doomed", 1);
    pg.getMetadata().setNamespace("crd-ns");
    groups.resource(pg).create();
    client.namespaces().withName("crd-ns").delete();
    Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(groups.list().getItems())
        .isEmpty());
  }

  @Test
  void invalidCrdIsRejectedNamingTheField() {
    KubernetesClient client = CLUSTER.client();
    CustomResourceDefinition wrongName = crd("things", "Thing", "Namespaced", false);
    wrongName.getMetadata().setName("stuff.example.berth.io");
    assertThatThrownBy(() -> client.apiextensions().v1().customResourceDefinitions().resource(wrongName).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(422);
          assertThat(e.getMessage()).contains("metadata.name").contains("spec.names.plural");
        });
    CustomResourceDefinition badScope = crd("things", "Thing", "Global", false);
    assertThatThrownBy(() -> client.apiextensions().v1().customResourceDefinitions().resource(badScope).create())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getMessage())
            .contains("spec.scope"));
  }

  @Test
  void concurrentCrdCreationAndObjectWritesAllSucceed() throws Exception {
    KubernetesClient client = CLUSTER.client();
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < 6; t++) {
        String plural = "parallel" + t + "s";
        String kind = "Parallel" + t;
        results.add(pool.submit(() -> {
          client.apiextensions().v1().customResourceDefinitions()
              .resource(crd(plural, kind, "Namespaced", true)).create();
          ResourceDefinitionContext ctx = new ResourceDefinitionContext.Builder().withGroup("example.berth.io")
              .withVersion("v1").withPlural(plural).withKind(kind).withNamespaced(true).build();
          for (int i = 0; i < 10; i++) {
            client.genericKubernetesResources(ctx).inNamespace("default").resource(
                new GenericKubernetesResourceBuilder().withApiVersion("example.berth.io/v1").withKind(kind)
                    .withNewMetadata().withName("o" + i).endMetadata().build()).create();
          }
          return client.genericKubernetesResources(ctx).inNamespace("default").list().getItems().size();
        }));
      }
      for (Future<Integer> f : results) {
        assertThat(f.get()).isEqualTo(10);
      }
      assertThat(client.getApiResources("example.berth.io/v1").getResources()).extracting(APIResource::getName)
          .contains("parallel0s", "parallel5s");
    } finally {
      pool.shutdownNow();
    }
  }

  private static CustomResourceDefinition crd(String plural, String kind, String scope, boolean status) {
    return new CustomResourceDefinitionBuilder().withNewMetadata().withName(plural + ".example.berth.io")
        .endMetadata().withNewSpec().withGroup("example.berth.io").withScope(scope).withNewNames()
        .withPlural(plural).withKind(kind).endNames().addNewVersion().withName("v1").withServed(true)
        .withStorage(true).withNewSchema().withNewOpenAPIV3Schema().withType("object")
        .withXKubernetesPreserveUnknownFields(true).endOpenAPIV3Schema().endSchema()
        .withNewSubresources().withStatus(status ? new CustomResourceSubresourceStatus() : null).endSubresources().endVersion().endSpec().build();
  }
}
