package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.embedded.auth.AuthorizationDecision;
import io.berth.embedded.auth.RuleRef;
import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * RBAC off (the default): requests are served whatever their token and nothing is recorded for them, while
 * TokenReview and SubjectAccessReview still answer from the issued tokens and the stored RBAC objects.
 */
class RbacOffIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension();

  @Test
  void requestsAreServedWithoutOrWithAnyTokenAndNotRecorded() throws Exception {
    assertThat(CLUSTER.cluster().rbacEnabled()).isFalse();
    assertThat(Files.readString(CLUSTER.cluster().kubeconfig())).doesNotContain("token");
    try (KubernetesClient anyToken = CLUSTER.cluster().newClient("no-such-token")) {
      anyToken.pods().inNamespace("default").resource(Fixtures.pod("off")).create();
      assertThat(anyToken.pods().inNamespace("default").withName("off").get()).isNotNull();
    }
    assertThat(CLUSTER.client().nodes().list().getItems()).isEmpty();
    assertThat(CLUSTER.cluster().authorizer().decisions(d -> d.origin() == AuthorizationDecision.Origin.REQUEST))
        .isEmpty();
    assertThat(CLUSTER.client().rbac().clusterRoles().withName("cluster-admin").get()).as("no bootstrap roles")
        .isNull();
  }

  @Test
  void reviewsAnswerFromTheStoredRbacObjects() {
    KubernetesClient client = CLUSTER.client();
    client.rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata().withName("node-reader")
        .endMetadata().addToRules(new PolicyRuleBuilder().withApiGroups("").withResources("nodes")
            .withVerbs("get", "list", "watch").build()).build()).create();
    client.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata()
        .withName("node-readers").endMetadata().withNewRoleRef().withKind("ClusterRole").withName("node-reader")
        .endRoleRef().addToSubjects(new SubjectBuilder().withKind("Group").withName("readers").build()).build())
        .create();
    SubjectAccessReview allowed = client.authorization().v1().subjectAccessReview().create(
        new SubjectAccessReviewBuilder().withNewSpec().withUser("dave").withGroups("readers")
            .withNewResourceAttributes().withVerb("list").withResource("nodes").endResourceAttributes().endSpec()
            .build());
    assertThat(allowed.getStatus().getAllowed()).isTrue();
    assertThat(allowed.getStatus().getReason()).isEqualTo(
        "RBAC: allowed by ClusterRoleBinding \"node-readers\" of ClusterRole \"node-reader\" to Group \"readers\"");
    SubjectAccessReview denied = client.authorization().v1().subjectAccessReview().create(
        new SubjectAccessReviewBuilder().withNewSpec().withUser("dave")
            .withNewResourceAttributes().withVerb("list").withResource("nodes").endResourceAttributes().endSpec()
            .build());
    assertThat(denied.getStatus().getAllowed()).isFalse();
    assertThat(CLUSTER.cluster().authorizer().rulesUsed(AuthorizationDecision.Origin.ACCESS_REVIEW))
        .contains(RuleRef.clusterRole("node-reader", 0));

    String token = CLUSTER.cluster().authentication().issueToken("erin", List.of("team"));
    TokenReview review = client.authentication().v1().tokenReviews().create(new TokenReviewBuilder().withNewSpec()
        .withToken(token).endSpec().build());
    assertThat(review.getStatus().getAuthenticated()).isTrue();
    assertThat(review.getStatus().getUser().getUsername()).isEqualTo("erin");
    assertThat(review.getStatus().getUser().getGroups()).containsExactly("team", "system:authenticated");
  }
}
