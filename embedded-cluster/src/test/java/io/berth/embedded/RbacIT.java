package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.berth.embedded.auth.AuthorizationDecision;
import io.berth.embedded.auth.RuleRef;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * RBAC enforced over real HTTP: the admin, ServiceAccounts bound by Roles and ClusterRoles, upstream's 401 and 403
 * bodies, resourceNames, non-resource URLs, watches, TokenReview and access reviews, and the decision record.
 */
class RbacIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(
      () -> EmbeddedCluster.builder().rbac(true));

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void objects() {
    KubernetesClient admin = CLUSTER.client();
    for (String ns : List.of("a", "b")) {
      admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
      admin.pods().inNamespace(ns).resource(Fixtures.pod("p")).create();
    }
    admin.rbac().roles().inNamespace("a").resource(new RoleBuilder().withNewMetadata().withName("pod-reader")
        .endMetadata().addToRules(new PolicyRuleBuilder().withApiGroups("").withResources("pods").withVerbs("get")
            .build()).build()).create();
    admin.rbac().roleBindings().inNamespace("a").resource(new RoleBindingBuilder().withNewMetadata()
        .withName("reader").endMetadata().withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("Role")
        .withName("pod-reader").endRoleRef().addToSubjects(new SubjectBuilder().withKind("ServiceAccount")
            .withName("reader").build()).build()).create();
  }

  private static KubernetesClient as(String namespace, String serviceAccount) {
    return CLUSTER.cluster().newClient(CLUSTER.cluster().authentication().serviceAccountToken(namespace,
        serviceAccount));
  }

  private static HttpResponse<String> http(String method, String path, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(CLUSTER.cluster().url() + path))
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static KubernetesClientException forbidden(Runnable call) {
    try {
      call.run();
    } catch (KubernetesClientException e) {
      assertThat(e.getCode()).as(e.getMessage()).isEqualTo(403);
      return e;
    }
    throw new AssertionError("expected 403");
  }

  @Test
  void adminIsAllowedEverythingAndTheKubeconfigCarriesItsToken() throws Exception {
    assertThat(CLUSTER.client().pods().inAnyNamespace().list().getItems()).hasSizeGreaterThanOrEqualTo(2);
    assertThat(Files.readString(CLUSTER.cluster().kubeconfig()))
        .contains("token: " + CLUSTER.cluster().authentication().adminToken());
    try (KubernetesClient c = new KubernetesClientBuilder()
        .withConfig(Config.fromKubeconfig(Files.readString(CLUSTER.cluster().kubeconfig()))).build()) {
      assertThat(c.nodes().list().getItems()).isNotNull();
    }
  }

  @Test
  void roleGrantsGetInItsNamespaceOnlyAndDenialsAreUpstreams403() {
    try (KubernetesClient reader = as("a", "reader")) {
      assertThat(reader.pods().inNamespace("a").withName("p").get().getMetadata().getName()).isEqualTo("p");
      KubernetesClientException other = forbidden(() -> reader.pods().inNamespace("b").withName("p").get());
      assertThat(other.getStatus().getMessage()).isEqualTo("pods \"p\" is forbidden: User "
          + "\"system:serviceaccount:a:reader\" cannot get resource \"pods\" in API group \"\" in the namespace \"b\"");
      assertThat(other.getStatus().getReason()).isEqualTo("Forbidden");
      assertThat(other.getStatus().getDetails().getName()).isEqualTo("p");
      assertThat(other.getStatus().getDetails().getKind()).isEqualTo("pods");
      KubernetesClientException list = forbidden(() -> reader.pods().inNamespace("a").list());
      assertThat(list.getStatus().getMessage()).isEqualTo("pods is forbidden: User \"system:serviceaccount:a:reader\""
          + " cannot list resource \"pods\" in API group \"\" in the namespace \"a\"");
      KubernetesClientException binding = forbidden(() -> reader.pods().inNamespace("a").withName("p").edit(
          pod -> new PodBuilder(pod).editMetadata().addToLabels("x", "y").endMetadata().build()));
      assertThat(binding.getStatus().getMessage()).contains("cannot patch resource \"pods\"");
      KubernetesClientException nodes = forbidden(() -> reader.nodes().list());
      assertThat(nodes.getStatus().getMessage()).isEqualTo("nodes is forbidden: User "
          + "\"system:serviceaccount:a:reader\" cannot list resource \"nodes\" in API group \"\" at the cluster scope");
    }
  }

  @Test
  void unknownTokenIs401() throws Exception {
    HttpResponse<String> r = http("GET", "/api/v1/namespaces/a/pods", "not-a-token");
    assertThat(r.statusCode()).isEqualTo(401);
    JsonNode status = JSON.readTree(r.body());
    assertThat(status.path("kind").stringValue()).isEqualTo("Status");
    assertThat(status.path("status").stringValue()).isEqualTo("Failure");
    assertThat(status.path("message").stringValue()).isEqualTo("Unauthorized");
    assertThat(status.path("reason").stringValue()).isEqualTo("Unauthorized");
    assertThat(status.path("code").asInt()).isEqualTo(401);
    assertThat(status.has("details")).isFalse();
    try (KubernetesClient bad = CLUSTER.cluster().newClient("not-a-token")) {
      assertThatThrownBy(() -> bad.pods().inNamespace("a").list()).isInstanceOf(KubernetesClientException.class)
          .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(401));
    }
  }

  @Test
  void noTokenIsAnonymousAndSeesOnlyPublicInfo() throws Exception {
    HttpResponse<String> r = http("GET", "/api/v1/pods", null);
    assertThat(r.statusCode()).isEqualTo(403);
    JsonNode status = JSON.readTree(r.body());
    assertThat(status.path("message").stringValue()).isEqualTo("pods is forbidden: User \"system:anonymous\" cannot "
        + "list resource \"pods\" in API group \"\" at the cluster scope");
    assertThat(status.path("details").path("kind").stringValue()).isEqualTo("pods");
    assertThat(http("GET", "/healthz", null).statusCode()).isEqualTo(200);
    assertThat(http("GET", "/version", null).statusCode()).isEqualTo(200);
    HttpResponse<String> apis = http("GET", "/apis", null);
    assertThat(apis.statusCode()).isEqualTo(403);
    assertThat(JSON.readTree(apis.body()).path("message").stringValue())
        .isEqualTo("forbidden: User \"system:anonymous\" cannot get path \"/apis\"");
    String reader = CLUSTER.cluster().authentication().serviceAccountToken("a", "reader");
    assertThat(http("GET", "/apis", reader).statusCode()).as("system:discovery").isEqualTo(200);
  }

  @Test
  void watchIsAuthorizedAsWatch() throws Exception {
    KubernetesClient admin = CLUSTER.client();
    admin.rbac().roles().inNamespace("b").resource(new RoleBuilder().withNewMetadata().withName("pod-watcher")
        .endMetadata().addToRules(new PolicyRuleBuilder().withApiGroups("").withResources("pods").withVerbs("watch")
            .build()).build()).create();
    admin.rbac().roleBindings().inNamespace("b").resource(new RoleBindingBuilder().withNewMetadata()
        .withName("watcher").endMetadata().withNewRoleRef().withKind("Role").withName("pod-watcher").endRoleRef()
        .addToSubjects(new SubjectBuilder().withKind("ServiceAccount").withName("watcher").withNamespace("b").build())
        .build()).create();
    List<String> seen = new CopyOnWriteArrayList<>();
    try (KubernetesClient watcher = as("b", "watcher");
        Watch w = watcher.pods().inNamespace("b").watch(new Watcher<Pod>() {
          @Override
          public void eventReceived(Action action, Pod pod) {
            seen.add(action + " " + pod.getMetadata().getName());
          }

          @Override
          public void onClose(WatcherException cause) {
          }
        })) {
      admin.pods().inNamespace("b").resource(Fixtures.pod("watched")).create();
      Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> seen.contains("ADDED watched"));
      forbidden(() -> watcher.pods().inNamespace("b").list());
    }
    assertThat(CLUSTER.cluster().authorizer().decisions(d -> d.user().username()
        .equals("system:serviceaccount:b:watcher") && d.attributes().verb().equals("watch")))
        .isNotEmpty().allSatisfy(d -> {
          assertThat(d.allowed()).isTrue();
          assertThat(d.rules()).containsExactly(RuleRef.role("b", "pod-watcher", 0));
        });
    try (KubernetesClient reader = as("a", "reader")) {
      forbidden(() -> reader.pods().inNamespace("a").watch(new Watcher<Pod>() {
        @Override
        public void eventReceived(Action action, Pod resource) {
        }

        @Override
        public void onClose(WatcherException cause) {
        }
      }));
    }
    HttpResponse<String> streamed = http("GET", "/api/v1/namespaces/a/pods?watch=true",
        CLUSTER.cluster().authentication().serviceAccountToken("a", "reader"));
    assertThat(streamed.statusCode()).isEqualTo(403);
    assertThat(JSON.readTree(streamed.body()).path("message").stringValue()).contains("cannot watch resource");
  }

  @Test
  void leaseResourceNamesAllowThatNameOnlyAndNeverCreate() {
    KubernetesClient admin = CLUSTER.client();
    admin.leases().inNamespace("kube-system").resource(new LeaseBuilder().withNewMetadata()
        .withName("berth-scheduler").endMetadata().withNewSpec().withHolderIdentity("x").endSpec().build()).create();
    admin.leases().inNamespace("kube-system").resource(new LeaseBuilder().withNewMetadata()
        .withName("other").endMetadata().build()).create();
    admin.rbac().roles().inNamespace("kube-system").resource(new RoleBuilder().withNewMetadata()
        .withName("leader-election").endMetadata().addToRules(new PolicyRuleBuilder()
            .withApiGroups("coordination.k8s.io").withResources("leases").withResourceNames("berth-scheduler")
            .withVerbs("get", "update", "create").build()).build()).create();
    admin.rbac().roleBindings().inNamespace("kube-system").resource(new RoleBindingBuilder().withNewMetadata()
        .withName("leader-election").endMetadata().withNewRoleRef().withKind("Role").withName("leader-election")
        .endRoleRef().addToSubjects(new SubjectBuilder().withKind("ServiceAccount").withName("sched")
            .withNamespace("berth").build()).build()).create();
    try (KubernetesClient sched = as("berth", "sched")) {
      Lease lease = sched.leases().inNamespace("kube-system").withName("berth-scheduler").get();
      lease.getSpec().setHolderIdentity("sched-0");
      assertThat(sched.leases().inNamespace("kube-system").resource(lease).update().getSpec().getHolderIdentity())
          .isEqualTo("sched-0");
      KubernetesClientException other = forbidden(() -> sched.leases().inNamespace("kube-system").withName("other")
          .get());
      assertThat(other.getStatus().getMessage()).isEqualTo("leases.coordination.k8s.io \"other\" is forbidden: User "
          + "\"system:serviceaccount:berth:sched\" cannot get resource \"leases\" in API group \"coordination.k8s.io\""
          + " in the namespace \"kube-system\"");
      assertThat(other.getStatus().getDetails().getGroup()).isEqualTo("coordination.k8s.io");
      Lease fresh = new LeaseBuilder().withNewMetadata().withName("berth-scheduler-2").endMetadata().build();
      KubernetesClientException create = forbidden(() -> sched.leases().inNamespace("kube-system").resource(fresh)
          .create());
      assertThat(create.getStatus().getMessage()).isEqualTo("leases.coordination.k8s.io is forbidden: User "
          + "\"system:serviceaccount:berth:sched\" cannot create resource \"leases\" in API group "
          + "\"coordination.k8s.io\" in the namespace \"kube-system\"");
      admin.rbac().roles().inNamespace("kube-system").withName("leader-election").edit(r -> new RoleBuilder(r)
          .addToRules(new PolicyRuleBuilder().withApiGroups("coordination.k8s.io").withResources("leases")
              .withVerbs("create").build()).build());
      assertThat(sched.leases().inNamespace("kube-system").resource(fresh).create()).isNotNull();
    }
    List<RuleRef> leaderElection = CLUSTER.cluster().authorizer().policy().role("kube-system", "leader-election")
        .orElseThrow().ruleRefs();
    assertThat(leaderElection).containsExactly(RuleRef.role("kube-system", "leader-election", 0),
        RuleRef.role("kube-system", "leader-election", 1));
    assertThat(CLUSTER.cluster().authorizer().unusedRules(leaderElection, AuthorizationDecision.Origin.REQUEST))
        .isEmpty();
    List<AuthorizationDecision> creates = CLUSTER.cluster().authorizer().decisions(d -> d.user().username()
        .equals("system:serviceaccount:berth:sched") && d.attributes().verb().equals("create") && d.allowed());
    assertThat(creates).singleElement().satisfies(d -> assertThat(d.rules())
        .containsExactly(RuleRef.role("kube-system", "leader-election", 1)));
  }

  @Test
  void listAndWatchCarryTheNameTheirFieldSelectorRequires() {
    KubernetesClient admin = CLUSTER.client();
    admin.configMaps().inNamespace("b").resource(new ConfigMapBuilder().withNewMetadata().withName("settings")
        .endMetadata().build()).create();
    admin.rbac().roles().inNamespace("b").resource(new RoleBuilder().withNewMetadata().withName("settings-reader")
        .endMetadata().addToRules(new PolicyRuleBuilder().withApiGroups("").withResources("configmaps")
            .withResourceNames("settings").withVerbs("list", "watch").build()).build()).create();
    admin.rbac().roleBindings().inNamespace("b").resource(new RoleBindingBuilder().withNewMetadata()
        .withName("settings-reader").endMetadata().withNewRoleRef().withKind("Role").withName("settings-reader")
        .endRoleRef().addToSubjects(new SubjectBuilder().withKind("User").withName("carol").build()).build())
        .create();
    try (KubernetesClient carol = CLUSTER.cluster().newClient(CLUSTER.cluster().authentication()
        .issueToken("carol", List.of()))) {
      assertThat(carol.configMaps().inNamespace("b").withField("metadata.name", "settings").list().getItems())
          .extracting(c -> c.getMetadata().getName()).containsExactly("settings");
      KubernetesClientException all = forbidden(() -> carol.configMaps().inNamespace("b").list());
      assertThat(all.getStatus().getMessage()).isEqualTo("configmaps is forbidden: User \"carol\" cannot list "
          + "resource \"configmaps\" in API group \"\" in the namespace \"b\"");
      KubernetesClientException other = forbidden(() -> carol.configMaps().inNamespace("b")
          .withField("metadata.name", "other").list());
      assertThat(other.getStatus().getMessage()).startsWith("configmaps \"other\" is forbidden: User \"carol\"");
    }
  }

  @Test
  void nonResourceUrlRulesGrantPaths() throws Exception {
    KubernetesClient admin = CLUSTER.client();
    admin.rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata().withName("metrics-reader")
        .endMetadata().addToRules(new PolicyRuleBuilder().withNonResourceURLs("/metrics").withVerbs("get").build())
        .build()).create();
    admin.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata()
        .withName("metrics-reader").endMetadata().withNewRoleRef().withKind("ClusterRole").withName("metrics-reader")
        .endRoleRef().addToSubjects(new SubjectBuilder().withKind("ServiceAccount").withName("prometheus")
            .withNamespace("monitoring").build()).build()).create();
    String token = CLUSTER.cluster().authentication().serviceAccountToken("monitoring", "prometheus");
    assertThat(http("GET", "/metrics", token).statusCode()).as("authorized, then not served").isEqualTo(404);
    HttpResponse<String> denied = http("GET", "/metrics/slis", token);
    assertThat(denied.statusCode()).isEqualTo(403);
    assertThat(JSON.readTree(denied.body()).path("message").stringValue()).isEqualTo(
        "forbidden: User \"system:serviceaccount:monitoring:prometheus\" cannot get path \"/metrics/slis\"");
    assertThat(http("POST", "/metrics", token).statusCode()).isEqualTo(403);
  }

  @Test
  void tokenReviewAndAccessReviewsNeedAuthDelegatorAndAnswerAsUpstream() {
    String readerToken = CLUSTER.cluster().authentication().serviceAccountToken("a", "reader");
    TokenReview review = new TokenReviewBuilder().withNewSpec().withToken(readerToken).endSpec().build();
    try (KubernetesClient reader = as("a", "reader")) {
      KubernetesClientException denied = forbidden(() -> reader.authentication().v1().tokenReviews().create(review));
      assertThat(denied.getStatus().getMessage()).isEqualTo("tokenreviews.authentication.k8s.io is forbidden: User "
          + "\"system:serviceaccount:a:reader\" cannot create resource \"tokenreviews\" in API group "
          + "\"authentication.k8s.io\" at the cluster scope");
      SelfSubjectAccessReview self = reader.authorization().v1().selfSubjectAccessReview().create(
          new SelfSubjectAccessReviewBuilder().withNewSpec().withNewResourceAttributes().withNamespace("a")
              .withVerb("get").withResource("pods").endResourceAttributes().endSpec().build());
      assertThat(self.getStatus().getAllowed()).isTrue();
    }
    CLUSTER.client().rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata()
        .withName("sched-auth-delegator").endMetadata().withNewRoleRef().withKind("ClusterRole")
        .withName("system:auth-delegator").endRoleRef().addToSubjects(new SubjectBuilder().withKind("ServiceAccount")
            .withName("sched").withNamespace("delegating").build()).build()).create();
    try (KubernetesClient sched = as("delegating", "sched")) {
      TokenReview answer = sched.authentication().v1().tokenReviews().create(review);
      assertThat(answer.getStatus().getAuthenticated()).isTrue();
      assertThat(answer.getStatus().getUser().getUsername()).isEqualTo("system:serviceaccount:a:reader");
      assertThat(answer.getStatus().getUser().getGroups()).containsExactly("system:serviceaccounts",
          "system:serviceaccounts:a", "system:authenticated");
      assertThat(answer.getStatus().getUser().getUid()).isNotEmpty();
      assertThat(answer.getStatus().getAudiences()).containsExactly("https://kubernetes.default.svc.cluster.local");
      TokenReview unknown = sched.authentication().v1().tokenReviews().create(new TokenReviewBuilder().withNewSpec()
          .withToken("bogus").endSpec().build());
      assertThat(unknown.getStatus().getAuthenticated()).isFalse();
      assertThat(unknown.getStatus().getError()).isNotEmpty();

      SubjectAccessReview allowed = sched.authorization().v1().subjectAccessReview().create(sar("a"));
      assertThat(allowed.getStatus().getAllowed()).isTrue();
      assertThat(allowed.getStatus().getReason()).isEqualTo(
          "RBAC: allowed by RoleBinding \"reader/a\" of Role \"pod-reader\" to ServiceAccount \"reader/a\"");
      SubjectAccessReview denied = sched.authorization().v1().subjectAccessReview().create(sar("b"));
      assertThat(denied.getStatus().getAllowed()).isFalse();
      SubjectAccessReview path = sched.authorization().v1().subjectAccessReview().create(
          new SubjectAccessReviewBuilder().withNewSpec().withUser("system:anonymous")
              .withGroups("system:unauthenticated").withNewNonResourceAttributes().withPath("/healthz")
              .withVerb("get").endNonResourceAttributes().endSpec().build());
      assertThat(path.getStatus().getAllowed()).isTrue();
      assertThat(path.getStatus().getReason()).contains("ClusterRole \"system:public-info-viewer\"");
      KubernetesClientException invalid = assertThrowsClient(() -> sched.authorization().v1().subjectAccessReview()
          .create(new SubjectAccessReviewBuilder().withNewSpec().withUser("x").endSpec().build()));
      assertThat(invalid.getCode()).isEqualTo(422);
    }
    assertThat(CLUSTER.cluster().authorizer().decisions(d -> d.origin() == AuthorizationDecision.Origin.ACCESS_REVIEW
        && d.user().username().equals("system:serviceaccount:a:reader") && d.allowed()))
        .extracting(AuthorizationDecision::rules).contains(List.of(RuleRef.role("a", "pod-reader", 0)));
  }

  private static KubernetesClientException assertThrowsClient(Runnable call) {
    try {
      call.run();
    } catch (KubernetesClientException e) {
      return e;
    }
    throw new AssertionError("expected a failure");
  }

  private static SubjectAccessReview sar(String namespace) {
    return new SubjectAccessReviewBuilder().withNewSpec().withUser("system:serviceaccount:a:reader")
        .withGroups("system:serviceaccounts", "system:serviceaccounts:a", "system:authenticated")
        .withNewResourceAttributes().withNamespace(namespace).withVerb("get").withResource("pods").withName("p")
        .endResourceAttributes().endSpec().build();
  }

  @Test
  void decisionsRecordTheUserRequestAndAllowingRule() {
    try (KubernetesClient reader = as("a", "reader")) {
      reader.pods().inNamespace("a").withName("p").get();
      forbidden(() -> reader.configMaps().inNamespace("a").withName("cm").get());
    }
    List<AuthorizationDecision> mine = CLUSTER.cluster().authorizer().decisions(d -> d.origin()
        == AuthorizationDecision.Origin.REQUEST && d.user().username().equals("system:serviceaccount:a:reader"));
    assertThat(mine).anySatisfy(d -> {
      assertThat(d.allowed()).isTrue();
      assertThat(d.attributes().verb()).isEqualTo("get");
      assertThat(d.attributes().resource()).isEqualTo("pods");
      assertThat(d.attributes().namespace()).isEqualTo("a");
      assertThat(d.attributes().name()).isEqualTo("p");
      assertThat(d.matches()).singleElement().satisfies(m -> {
        assertThat(m.rule()).isEqualTo(RuleRef.role("a", "pod-reader", 0));
        assertThat(m.bindingKind()).isEqualTo("RoleBinding");
        assertThat(m.bindingNamespace()).isEqualTo("a");
        assertThat(m.bindingName()).isEqualTo("reader");
      });
    });
    assertThat(CLUSTER.cluster().authorizer().denials()).anySatisfy(d -> {
      assertThat(d.user().username()).isEqualTo("system:serviceaccount:a:reader");
      assertThat(d.attributes().resource()).isEqualTo("configmaps");
      assertThat(d.matches()).isEmpty();
    });
  }

  @Test
  void aServiceAccountKubeconfigRunsAsTheServiceAccount(@TempDir Path dir) throws Exception {
    Path file = CLUSTER.cluster().writeKubeconfig(dir.resolve("reader.kubeconfig"),
        CLUSTER.cluster().authentication().serviceAccountToken("a", "reader"));
    try (KubernetesClient c = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(file)))
        .build()) {
      assertThat(c.pods().inNamespace("a").withName("p").get()).isNotNull();
      forbidden(() -> c.pods().inNamespace("b").withName("p").get());
    }
  }

  @Test
  void rbacAndReviewResourcesAreDiscoverableAndServed() throws Exception {
    String admin = CLUSTER.cluster().authentication().adminToken();
    String groups = http("GET", "/apis", admin).body();
    assertThat(groups).contains("\"rbac.authorization.k8s.io/v1\"", "\"authentication.k8s.io/v1\"",
        "\"authorization.k8s.io/v1\"");
    JsonNode rbac = JSON.readTree(http("GET", "/apis/rbac.authorization.k8s.io/v1", admin).body());
    assertThat(rbac.path("resources").findValuesAsString("name")).contains("roles", "rolebindings", "clusterroles",
        "clusterrolebindings");
    JsonNode authz = JSON.readTree(http("GET", "/apis/authorization.k8s.io/v1", admin).body());
    assertThat(authz.path("resources").findValuesAsString("name")).contains("subjectaccessreviews",
        "selfsubjectaccessreviews", "localsubjectaccessreviews");
    assertThat(CLUSTER.client().rbac().clusterRoles().withName("cluster-admin").get()).isNotNull();
    assertThat(CLUSTER.client().rbac().roles().inNamespace("a").list().getItems()).extracting(r -> r.getMetadata()
        .getName()).containsExactly("pod-reader");
    ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withName("cm").endMetadata().build();
    assertThat(CLUSTER.client().configMaps().inNamespace("b").resource(cm).create()).isNotNull();
    assertThat(http("GET", "/apis/authorization.k8s.io/v1/subjectaccessreviews", admin).statusCode())
        .isEqualTo(405);
  }
}
