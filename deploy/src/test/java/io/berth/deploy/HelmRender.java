package io.berth.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code helm template} of the chart through helm-java (Helm's own Go code, in process): a release name, a
 * namespace, values files and {@code --set} values. Build it, then {@link #call()}. Confined to the calling thread.
 */
public final class HelmRender {
  private static final Logger LOG = LoggerFactory.getLogger(HelmRender.class);

  /** The release and namespace of deploy/manifests and of most tests. */
  static final String RELEASE = "berth";
  static final String NAMESPACE = "kube-system";

  private String release = RELEASE;
  private String namespace = NAMESPACE;
  private final List<Path> valuesFiles = new ArrayList<>();
  private final Map<String, Object> sets = new LinkedHashMap<>();

  public static HelmRender chart() {
    return new HelmRender();
  }

  public HelmRender release(String name) {
    this.release = name;
    return this;
  }

  public HelmRender namespace(String name) {
    this.namespace = name;
    return this;
  }

  public HelmRender values(Path file) {
    valuesFiles.add(file);
    return this;
  }

  /** A {@code --set key=value}; Helm parses the value as it would on the command line. */
  public HelmRender set(String key, Object value) {
    sets.put(key, value);
    return this;
  }

  /** The rendered YAML stream; throws IllegalStateException with Helm's message when rendering fails. */
  public String call() {
    TemplateCommand template = new Helm(DeployPaths.chart()).template()
        .withName(release)
        .withNamespace(namespace);
    for (Path file : valuesFiles) {
      template = template.withValuesFile(file);
    }
    for (Map.Entry<String, Object> e : sets.entrySet()) {
      template = template.set(e.getKey(), e.getValue());
    }
    LOG.debug("helm template {} -n {} {} {}", release, namespace, valuesFiles, sets);
    return template.call();
  }

  /** The rendered documents. */
  public Rendered documents() {
    return Rendered.parse(call());
  }
}
