package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The real kubectl against a cluster enforcing RBAC. */
class KubectlRbacIT {

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(
      () -> EmbeddedCluster.builder().rbac(true));

  @RegisterExtension
  static final EmbeddedClusterExtension TLS = new EmbeddedClusterExtension(
      () -> EmbeddedCluster.builder().rbac(true).tls(true));

  @TempDir
  static Path dir;

  record Result(int exit, String out) {
  }

  @BeforeAll
  static void requireKubectl() {
    boolean found = false;
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      found |= Files.isExecutable(Path.of(d, "kubectl"));
    }
    Assumptions.assumeTrue(found, "kubectl is not on the PATH");
  }

  private static Result kubectl(Path kubeconfig, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig.toString(),
        "--request-timeout=20s"));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
      try {
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      } catch (java.io.IOException e) {
        return e.toString();
      }
    });
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("kubectl " + String.join(" ", args) + " did not finish");
    }
    return new Result(process.exitValue(), output.get(5, TimeUnit.SECONDS));
  }

  /**
   * client-go (kubectl) applies a kubeconfig's credentials only over TLS, and the embedded cluster serves plain
   * HTTP: kubectl is {@code system:anonymous} when RBAC is on. It still gets upstream's answers: the public-info
   * paths, and 403s it reports as upstream's.
   */
  @Test
  void kubectlOverPlainHttpIsAnonymousAndGetsUpstreamsAnswers() throws Exception {
    Path sa = CLUSTER.cluster().writeServiceAccountKubeconfig(dir.resolve("app.kubeconfig"), "team", "app");
    assertThat(Files.readString(sa)).contains("token: " + CLUSTER.cluster().authentication()
        .serviceAccountToken("team", "app"));
    Result health = kubectl(sa, "get", "--raw", "/healthz");
    assertThat(health.exit()).as(health.out()).isZero();
    assertThat(health.out().trim()).isEqualTo("ok");
    Result canI = kubectl(CLUSTER.cluster().kubeconfig(), "auth", "can-i", "get", "pods");
    assertThat(canI.exit()).isEqualTo(1);
    assertThat(canI.out()).contains("Error from server (Forbidden): selfsubjectaccessreviews.authorization.k8s.io is "
        + "forbidden: User \"system:anonymous\" cannot create resource \"selfsubjectaccessreviews\" in API group "
        + "\"authorization.k8s.io\" at the cluster scope");
    Result raw = kubectl(sa, "get", "--raw", "/api/v1/namespaces/default/pods");
    assertThat(raw.exit()).isEqualTo(1);
    assertThat(raw.out()).contains("Error from server (Forbidden): pods is forbidden: User \"system:anonymous\" "
        + "cannot list resource \"pods\" in API group \"\" in the namespace \"default\"");
  }

  private static Result admin(String... args) throws Exception {
    Result r = kubectl(TLS.cluster().kubeconfig(), args);
    assertThat(r.exit()).as("kubectl %s exited %s: %s", String.join(" ", args), r.exit(), r.out()).isZero();
    return r;
  }

  @Test
  void overTlsTheAdminManagesRbacAndAServiceAccountIsHeldToItsRole() throws Exception {
    assertThat(TLS.cluster().url()).startsWith("https://");
    assertThat(admin("auth", "can-i", "*", "*").out().trim()).isEqualTo("yes");
    assertThat(admin("get", "clusterroles").out()).contains("cluster-admin", "system:auth-delegator");
    // kubectl's typed creates send protobuf, which the embedded server reads only for reviews: apply JSON instead.
    Path objects = Files.writeString(dir.resolve("team.yaml"), """
        apiVersion: v1
        kind: Namespace
        metadata:
          name: team
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: web
          namespace: team
        spec:
          containers:
          - name: web
            image: nginx:1.27
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: Role
        metadata:
          name: pod-reader
          namespace: team
        rules:
        - apiGroups: [""]
          resources: [pods]
          verbs: [get]
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: RoleBinding
        metadata:
          name: pod-reader
          namespace: team
        roleRef:
          apiGroup: rbac.authorization.k8s.io
          kind: Role
          name: pod-reader
        subjects:
        - kind: ServiceAccount
          name: app
          namespace: team
        """);
    admin("apply", "-f", objects.toString());
    assertThat(admin("get", "rolebindings", "-n", "team").out()).contains("pod-reader");

    Path sa = TLS.cluster().writeServiceAccountKubeconfig(dir.resolve("tls-app.kubeconfig"), "team", "app");
    assertThat(kubectl(sa, "auth", "can-i", "get", "pods", "-n", "team").out().trim()).isEqualTo("yes");
    Result list = kubectl(sa, "auth", "can-i", "list", "pods", "-n", "team");
    assertThat(list.exit()).isEqualTo(1);
    assertThat(list.out().trim()).isEqualTo("no");
    Result get = kubectl(sa, "get", "pod", "web", "-n", "team", "-o", "name");
    assertThat(get.exit()).as(get.out()).isZero();
    assertThat(get.out().trim()).isEqualTo("pod/web");
    Result denied = kubectl(sa, "get", "pod", "web", "-n", "default");
    assertThat(denied.exit()).isEqualTo(1);
    assertThat(denied.out()).contains("Error from server (Forbidden): pods \"web\" is forbidden: User "
        + "\"system:serviceaccount:team:app\" cannot get resource \"pods\" in API group \"\" in the namespace "
        + "\"default\"");
  }
}
