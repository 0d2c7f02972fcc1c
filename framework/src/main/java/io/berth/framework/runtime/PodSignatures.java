package io.berth.framework.runtime;

import io.berth.framework.Code;
import io.berth.framework.Plugin;
import io.berth.framework.PodSignature;
import io.berth.framework.PodSigners;
import io.berth.framework.SignFragment;
import io.berth.framework.SignPlugin;
import io.berth.framework.SignResult;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signs pods for one profile, as upstream's {@code computeBatchablePlugins} and {@code SignPod}:
 * signing is on only when every enabled PreFilter, Filter, PreScore and Score plugin implements
 * {@link SignPlugin} (otherwise it logs once, at construction, which plugins do not); a pod's
 * signature is its scheduler name plus every such plugin's fragments, or null when one plugin
 * finds it unsignable or the pod has resource claims (upstream's DynamicResources plugin refuses
 * those; Berth has no DRA plugin). Immutable after construction and thread-safe; the batch calls it from the
 * scheduling thread once per attempt.
 */
public final class PodSignatures {
  private static final Logger LOG = LoggerFactory.getLogger(PodSignatures.class);

  /** Upstream's extension point name for signing ({@code metrics.Sign}). */
  public static final String SIGN = "Sign";

  private final String profileName;
  private final List<SignPlugin> signers;
  private final boolean enabled;
  private final ExtensionPointMetrics metrics;

  private PodSignatures(String profileName, List<SignPlugin> signers, boolean enabled,
      ExtensionPointMetrics metrics) {
    this.profileName = profileName;
    this.signers = List.copyOf(signers);
    this.enabled = enabled;
    this.metrics = metrics;
  }

  /**
   * The signer for a profile whose PreFilter, Filter, PreScore and Score plugins are
   * {@code pluginLists} (a plugin at several points is signed once).
   */
  @SafeVarargs
  public static PodSignatures of(String profileName, List<? extends Plugin>... pluginLists) {
    return of(profileName, ExtensionPointMetrics.NOOP, pluginLists);
  }

  /**
   * As {@link #of(String, List[])}, observing each signing as
   * {@code scheduler_framework_extension_point_duration_seconds{extension_point="Sign"}}.
   */
  @SafeVarargs
  public static PodSignatures of(String profileName, ExtensionPointMetrics metrics,
      List<? extends Plugin>... pluginLists) {
    List<Plugin> candidates = new ArrayList<>();
    for (List<? extends Plugin> l : pluginLists) {
      candidates.addAll(l);
    }
    List<SignPlugin> signers = new ArrayList<>();
    Set<String> seen = new java.util.HashSet<>();
    Set<String> unsupported = new LinkedHashSet<>();
    for (Plugin pl : candidates) {
      if (!seen.add(pl.name())) {
        continue;
      }
      if (pl instanceof SignPlugin s) {
        signers.add(s);
      } else {
        unsupported.add(pl.name());
      }
    }
    boolean enabled = unsupported.isEmpty();
    if (!enabled) {
      LOG.info("Disabling signatures for profile {} because plugins do not support it: {}",
          profileName, unsupported);
    }
    return new PodSignatures(profileName, signers, enabled, metrics);
  }

  /** Whether pods of this profile can be signed at all. */
  public boolean enabled() {
    return enabled;
  }

  /**
   * The pod's signature, or null when signing is off or a plugin cannot sign it. The duration is
   * observed with the status of the signing (upstream's deferred observation always reads
   * Success, its status variable being shadowed; here an unsignable pod reads Unschedulable).
   */
  public PodSignature sign(Pod pod) {
    long start = System.nanoTime();
    String[] code = {Code.SUCCESS.displayName()};
    try {
      return signOrNull(pod, code);
    } finally {
      metrics.observe(SIGN, code[0], profileName, System.nanoTime() - start);
    }
  }

  private PodSignature signOrNull(Pod pod, String[] code) {
    if (!enabled) {
      return null;
    }
    if (pod.getSpec() != null && pod.getSpec().getResourceClaims() != null
        && !pod.getSpec().getResourceClaims().isEmpty()) {
      // upstream's DynamicResources plugin refuses these; Berth has no DRA plugin to do it
      code[0] = Code.UNSCHEDULABLE.displayName();
      return null;
    }
    Map<String, Object> sig = new HashMap<>();
    sig.put(PodSigners.SCHEDULER_NAME, PodSigners.schedulerName(pod));
    for (SignPlugin pl : signers) {
      SignResult r;
      try {
        r = pl.signPod(pod);
      } catch (RuntimeException e) {
        LOG.error("SignPod failed for plugin {} in profile {}", pl.name(), profileName, e);
        code[0] = Code.ERROR.displayName();
        return null;
      }
      if (!r.isSuccess()) {
        code[0] = r.status().code().displayName();
        if (r.status().code() == Code.ERROR) {
          LOG.error("SignPod failed for plugin {}: {}", pl.name(), r.status().message());
        } else if (LOG.isTraceEnabled()) {
          LOG.trace("SignPod can't sign pod due to plugin {}: {}", pl.name(), r.status());
        }
        return null;
      }
      for (SignFragment f : r.fragments()) {
        sig.put(f.key(), f.value());
      }
    }
    return PodSignature.of(sig);
  }
}
