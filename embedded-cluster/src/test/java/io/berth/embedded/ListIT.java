package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Pagination and label and field selectors on lists. */
class ListIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  @BeforeAll
  static void pods() {
    KubernetesClient client = CLUSTER.client();
    for (String ns : new String[] {"paged", "selectors"}) {
      client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
    }
    for (int i = 0; i < 25; i++) {
      client.pods().inNamespace("paged").resource(Fixtures.pod(String.format("p-%02d", i))).create();
    }
    String[][] pods = {{"a", "prod", "web"}, {"b", "staging", "web"}, {"c", "dev", "db"}, {"d", null, "db"}};
    for (String[] p : pods) {
      Map<String, String> labels = new java.util.HashMap<>();
      if (p[1] != null) {
        labels.put("env", p[1]);
      }
      labels.put("tier", p[2]);
      client.pods().inNamespace("selectors").resource(Fixtures.pod(p[0], labels)).create();
    }
    client.bindings().inNamespace("selectors").resource(new io.fabric8.kubernetes.api.model.BindingBuilder()
        .withNewMetadata().withName("a").endMetadata().withNewTarget().withKind("Node").withName("n1")
        .endTarget().build()).create();
  }

  @Test
  void pagesAreASnapshotAtTheFirstPagesVersion() {
    KubernetesClient client = CLUSTER.client();
    PodList first = client.pods().inNamespace("paged").list(new ListOptionsBuilder().withLimit(10L).build());
    assertThat(first.getItems()).hasSize(10);
    assertThat(first.getMetadata().getContinue()).isNotBlank();
    assertThat(first.getMetadata().getRemainingItemCount()).isEqualTo(15L);
    client.pods().inNamespace("paged").resource(Fixtures.pod("p-00a-late")).create();
    List<String> names = new ArrayList<>(first.getItems().stream().map(p -> p.getMetadata().getName()).toList());
    String token = first.getMetadata().getContinue();
    while (token != null && !token.isEmpty()) {
      PodList page = client.pods().inNamespace("paged").list(new ListOptionsBuilder().withLimit(10L)
          .withContinue(token).build());
      assertThat(page.getMetadata().getResourceVersion()).isEqualTo(first.getMetadata().getResourceVersion());
      page.getItems().forEach(p -> names.add(p.getMetadata().getName()));
      token = page.getMetadata().getContinue();
    }
    assertThat(names).hasSize(25).doesNotHaveDuplicates().doesNotContain("p-00a-late").isSorted();
  }

  @Test
  void anUnknownContinueTokenIsExpired() {
    KubernetesClient client = CLUSTER.client();
    String forged = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString("999999:10".getBytes());
    assertThatThrownBy(() -> client.pods().inNamespace("paged").list(new ListOptionsBuilder().withLimit(10L)
        .withContinue(forged).build()))
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(410));
  }

  private static List<String> names(PodList list) {
    return list.getItems().stream().map(p -> p.getMetadata().getName()).sorted().toList();
  }

  @Test
  void setBasedLabelSelectorsAreEvaluated() {
    KubernetesClient client = CLUSTER.client();
    var pods = client.pods().inNamespace("selectors");
    assertThat(names(pods.withLabelIn("env", "prod", "staging").list())).containsExactly("a", "b");
    assertThat(names(pods.withLabelNotIn("env", "prod").list())).containsExactly("b", "c", "d");
    assertThat(names(pods.withoutLabel("env").list())).containsExactly("d");
    assertThat(names(pods.withLabel("env").list())).containsExactly("a", "b", "c");
    assertThat(names(pods.withLabelSelector(new io.fabric8.kubernetes.api.model.LabelSelectorBuilder()
        .addNewMatchExpression().withKey("tier").withOperator("In").withValues("db").endMatchExpression()
        .addNewMatchExpression().withKey("env").withOperator("NotIn").withValues("dev").endMatchExpression()
        .build()).list())).containsExactly("d");
  }

  @Test
  void fieldSelectorsOnNodeNameAndPhaseAreEvaluated() {
    KubernetesClient client = CLUSTER.client();
    var pods = client.pods().inNamespace("selectors");
    assertThat(names(pods.withField("spec.nodeName", "n1").list())).containsExactly("a");
    assertThat(names(pods.withField("spec.nodeName", "").list())).containsExactly("b", "c", "d");
    assertThat(names(pods.withoutField("spec.nodeName", "").list())).containsExactly("a");
    assertThat(names(pods.withField("status.phase", "Pending").withoutField("metadata.name", "b").list()))
        .containsExactly("a", "c", "d");
    assertThat(names(pods.withField("spec.schedulerName", "default-scheduler").list()))
        .containsExactly("a", "b", "c", "d");
  }

  @Test
  void anUnsupportedFieldIsABadRequest() {
    KubernetesClient client = CLUSTER.client();
    assertThatThrownBy(() -> client.pods().inNamespace("selectors").withField("spec.unknownField", "x").list())
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
          assertThat(e.getCode()).isEqualTo(400);
          assertThat(e.getMessage()).contains("spec.unknownField");
        });
  }

  @Test
  void listingAcrossNamespacesReturnsEveryNamespace() {
    KubernetesClient client = CLUSTER.client();
    assertThat(client.pods().inAnyNamespace().withLabel("tier", "db").list().getItems())
        .extracting(p -> p.getMetadata().getNamespace()).containsOnly("selectors").hasSize(2);
  }

  @Test
  void theClustersClientsShareTheirTransportAndMappingAndOutliveEachOther() {
    KubernetesClient first = CLUSTER.cluster().newClient();
    KubernetesClient second = CLUSTER.cluster().newClient();
    assertThat(first.getKubernetesSerialization()).isSameAs(second.getKubernetesSerialization());
    assertThat(first.pods().inNamespace("paged").list().getItems()).hasSize(25);
    first.close();
    // closing one client leaves the shared Vert.x and the others working
    assertThat(second.pods().inNamespace("paged").list().getItems()).hasSize(25);
    second.close();
    try (KubernetesClient third = CLUSTER.cluster().newClient()) {
      assertThat(third.pods().inNamespace("selectors").list().getItems()).hasSize(4);
    }
  }
}
