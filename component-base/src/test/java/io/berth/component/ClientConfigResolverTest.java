package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientConfigResolverTest {

  @TempDir
  Path dir;

  private Path kubeconfig(String name, String server) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, """
        apiVersion: v1
        kind: Config
        clusters:
        - name: c
          cluster:
            server: %s
        contexts:
        - name: ctx
          context:
            cluster: c
            user: u
        current-context: ctx
        users:
        - name: u
          user: {}
        """.formatted(server));
    return file;
  }

  private static ClientConfigResolver resolver(Map<String, String> env) {
    return new ClientConfigResolver(env::get);
  }

  @Test
  void theFlagWinsOverKubeconfigVariable() throws IOException {
    Path flag = kubeconfig("flag.yaml", "http://127.0.0.1:1111");
    Path env = kubeconfig("env.yaml", "http://127.0.0.1:2222");
    Config config = resolver(Map.of("KUBECONFIG", env.toString(), "KUBERNETES_SERVICE_HOST", "10.0.0.1"))
        .resolve(Optional.of(flag));
    assertThat(config.getMasterUrl()).startsWith("http://127.0.0.1:1111");
  }

  @Test
  void withoutTheFlagTheKubeconfigVariableIsUsed() throws IOException {
    Path env = kubeconfig("env.yaml", "http://127.0.0.1:2222");
    Config config = resolver(Map.of("KUBECONFIG", env.toString())).resolve(Optional.empty());
    assertThat(config.getMasterUrl()).startsWith("http://127.0.0.1:2222");
  }

  @Test
  void aMissingFlagFileIsAnErrorNamingTheFlag() {
    Path missing = dir.resolve("nope.yaml");
    assertThatThrownBy(() -> resolver(Map.of()).resolve(Optional.of(missing)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("--kubeconfig")
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("no such file")
        .extracting(e -> ((ConfigurationException) e).source()).isEqualTo("--kubeconfig");
  }

  @Test
  void unparseableYamlIsAnErrorNamingTheFlag() throws IOException {
    Path file = dir.resolve("bad.yaml");
    Files.writeString(file, "clusters: [not closed\n");
    assertThatThrownBy(() -> resolver(Map.of()).resolve(Optional.of(file)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("--kubeconfig")
        .hasMessageContaining("not a valid kubeconfig");
  }

  @Test
  void aKubeconfigWithoutCurrentContextNamesTheField() throws IOException {
    Path file = dir.resolve("noctx.yaml");
    Files.writeString(file, "apiVersion: v1\nkind: Config\nclusters: []\n");
    assertThatThrownBy(() -> resolver(Map.of()).resolve(Optional.of(file)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("--kubeconfig")
        .hasMessageContaining("current-context");
  }

  @Test
  void aContextNamingAMissingClusterNamesIt() throws IOException {
    Path file = dir.resolve("nocluster.yaml");
    Files.writeString(file, """
        apiVersion: v1
        kind: Config
        contexts:
        - name: ctx
          context:
            cluster: ghost
        current-context: ctx
        """);
    assertThatThrownBy(() -> resolver(Map.of()).resolve(Optional.of(file)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("\"ghost\"");
  }

  @Test
  void aClusterWithoutServerNamesTheField() throws IOException {
    Path file = kubeconfig("noserver.yaml", "''");
    assertThatThrownBy(() -> resolver(Map.of()).resolve(Optional.of(file)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("field server");
  }

  @Test
  void aKubeconfigVariableNamingNoFileIsAnErrorNamingIt() {
    assertThatThrownBy(() -> resolver(Map.of("KUBECONFIG", dir.resolve("gone").toString()))
        .resolve(Optional.empty()))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("KUBECONFIG");
  }

  @Test
  void noConfigurationAtAllIsAnErrorNamingTheFlag() {
    assertThatThrownBy(() -> resolver(Map.of()).resolve(Optional.empty()))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("--kubeconfig")
        .hasMessageContaining("KUBECONFIG");
  }
}
