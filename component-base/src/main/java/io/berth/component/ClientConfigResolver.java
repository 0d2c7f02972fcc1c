package io.berth.component;

import io.fabric8.kubernetes.api.model.Cluster;
import io.fabric8.kubernetes.api.model.Context;
import io.fabric8.kubernetes.api.model.NamedCluster;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Finds the API server configuration the way DESIGN.md promises: the {@code --kubeconfig} file if given (it wins
 * over everything else), otherwise the files named by {@code KUBECONFIG}, otherwise the in-cluster service account
 * (recognised by {@code KUBERNETES_SERVICE_HOST}, as client-go's {@code InClusterConfig} does). A kubeconfig that
 * is missing, unparseable, or whose current context does not lead to a cluster with a server is a
 * {@link ConfigurationException} naming the flag (or variable) and the field, which the daemons turn into exit
 * status 2; so is having no configuration at all. Stateless apart from the environment lookup; thread-safe.
 */
public final class ClientConfigResolver {

  static final String KUBECONFIG_ENV = "KUBECONFIG";
  static final String SERVICE_HOST_ENV = "KUBERNETES_SERVICE_HOST";

  private static final KubernetesSerialization YAML = new KubernetesSerialization();

  private final UnaryOperator<String> env;

  /** A resolver reading the process environment. */
  public ClientConfigResolver() {
    this(System::getenv);
  }

  /** A resolver reading {@code env} instead of the process environment (tests). */
  ClientConfigResolver(UnaryOperator<String> env) {
    this.env = Objects.requireNonNull(env, "env");
  }

  /**
   * The configuration to use.
   *
   * @param kubeconfigFlag the value of {@code --kubeconfig}, if given
   * @throws ConfigurationException if the configuration found cannot be used, or none is found
   */
  public Config resolve(Optional<Path> kubeconfigFlag) {
    if (kubeconfigFlag.isPresent()) {
      Path file = kubeconfigFlag.get();
      validateKubeconfig(file, DaemonOptions.KUBECONFIG);
      return Config.fromKubeconfig(file.toFile());
    }
    String kubeconfigEnv = env.apply(KUBECONFIG_ENV);
    if (kubeconfigEnv != null && !kubeconfigEnv.isBlank()) {
      List<Path> existing = new ArrayList<>();
      for (String entry : kubeconfigEnv.split(File.pathSeparator)) {
        if (!entry.isBlank() && Files.isRegularFile(Path.of(entry))) {
          existing.add(Path.of(entry));
        }
      }
      if (existing.isEmpty()) {
        throw new ConfigurationException(KUBECONFIG_ENV, KUBECONFIG_ENV + " (" + kubeconfigEnv
            + ") names no existing file");
      }
      if (existing.size() == 1) {
        validateKubeconfig(existing.get(0), KUBECONFIG_ENV);
        return Config.fromKubeconfig(existing.get(0).toFile());
      }
      // Several files are merged by fabric8 exactly as kubectl merges them; each must at least parse.
      existing.forEach(file -> parse(file, KUBECONFIG_ENV));
      return Config.autoConfigure(null);
    }
    String serviceHost = env.apply(SERVICE_HOST_ENV);
    if (serviceHost != null && !serviceHost.isBlank()) {
      return Config.autoConfigure(null);
    }
    throw new ConfigurationException(DaemonOptions.KUBECONFIG, "no cluster configuration: pass "
        + DaemonOptions.KUBECONFIG + " FILE, set " + KUBECONFIG_ENV + ", or run in a pod ("
        + SERVICE_HOST_ENV + " is not set)");
  }

  /** Checks that {@code file} is a kubeconfig whose current context names a cluster with a server. */
  static void validateKubeconfig(Path file, String source) {
    io.fabric8.kubernetes.api.model.Config kubeconfig = parse(file, source);
    String where = source + " " + file;
    String current = kubeconfig.getCurrentContext();
    if (current == null || current.isEmpty()) {
      throw new ConfigurationException(source, where + ": field current-context is missing");
    }
    Optional<Context> context = Optional.ofNullable(kubeconfig.getContexts()).orElse(List.of()).stream()
        .filter(c -> current.equals(c.getName())).map(NamedContext::getContext).filter(Objects::nonNull)
        .findFirst();
    if (context.isEmpty()) {
      throw new ConfigurationException(source, where + ": current-context \"" + current
          + "\" is not among the contexts");
    }
    String clusterName = context.get().getCluster();
    Optional<Cluster> cluster = Optional.ofNullable(kubeconfig.getClusters()).orElse(List.of()).stream()
        .filter(c -> Objects.equals(clusterName, c.getName())).map(NamedCluster::getCluster)
        .filter(Objects::nonNull).findFirst();
    if (cluster.isEmpty()) {
      throw new ConfigurationException(source, where + ": context \"" + current + "\" names cluster \""
          + clusterName + "\", which is not among the clusters");
    }
    String server = cluster.get().getServer();
    if (server == null || server.isBlank()) {
      throw new ConfigurationException(source, where + ": field server of cluster \"" + clusterName
          + "\" is missing");
    }
  }

  private static io.fabric8.kubernetes.api.model.Config parse(Path file, String source) {
    if (!Files.isRegularFile(file)) {
      throw new ConfigurationException(source, source + " " + file + ": no such file");
    }
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new ConfigurationException(source, source + " " + file + ": cannot be read: " + e.getMessage(), e);
    }
    try {
      io.fabric8.kubernetes.api.model.Config kubeconfig =
          YAML.unmarshal(text, io.fabric8.kubernetes.api.model.Config.class);
      if (kubeconfig == null) {
        throw new ConfigurationException(source, source + " " + file + ": the file is empty");
      }
      return kubeconfig;
    } catch (RuntimeException e) {
      if (e instanceof ConfigurationException ce) {
        throw ce;
      }
      String reason = String.valueOf(e.getMessage()).lines().findFirst().orElse("unparseable");
      throw new ConfigurationException(source, source + " " + file + " is not a valid kubeconfig: " + reason, e);
    }
  }
}
