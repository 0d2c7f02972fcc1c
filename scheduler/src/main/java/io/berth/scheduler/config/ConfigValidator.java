package io.berth.scheduler.config;

import static io.berth.scheduler.config.FieldError.child;
import static io.berth.scheduler.config.FieldError.index;

import io.berth.framework.runtime.ExtensionPoint;
import io.berth.framework.runtime.PluginRef;
import io.berth.framework.runtime.PluginSet;
import io.berth.framework.runtime.ProfileConfig;
import io.berth.framework.runtime.Registry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * kube-scheduler v1.32's configuration validation (pkg/scheduler/apis/config/validation and
 * component-base's leader election and client connection checks) plus what Berth can tell before
 * building a framework: every plugin name in a profile is registered, and no profile certainly
 * lacks a queueSort or bind plugin.
 *
 * <p>Which interfaces a plugin implements is unknown here (the registry holds factories), so the
 * queueSort and bind checks only reject what must fail whatever the plugins implement: more than
 * one explicit queueSort plugin, or a point with no explicit plugin where multiPoint cannot supply
 * one either (disabled with {@code "*"}, or every multiPoint plugin disabled there). Whether the
 * expanded profile ends with exactly one queueSort and at least one bind plugin, and whether the
 * profiles share one queueSort plugin when it comes through multiPoint, is the runtime's check.
 * Stateless.
 */
final class ConfigValidator {
  /** client-go's leaderelection.JitterFactor: renewDeadline must exceed retryPeriod by it. */
  private static final double JITTER_FACTOR = 1.2;

  private ConfigValidator() {}

  /**
   * Problems in {@code config} ({@code decoded} after defaulting); {@code decoded} supplies the
   * user's own plugin lists, so that paths index what the user wrote.
   */
  static List<FieldError> validate(DecodedConfig decoded, SchedulerConfiguration config,
      Registry registry) {
    List<FieldError> errors = new ArrayList<>();
    if (config.parallelism() <= 0) {
      errors.add(FieldError.invalid("parallelism", config.parallelism(),
          "should be an integer value greater than zero"));
    }
    leaderElection(config.leaderElection(), errors);
    if (config.clientConnection().burst() < 0) {
      errors.add(FieldError.invalid("clientConnection.burst", config.clientConnection().burst(),
          "must be non-negative"));
    }
    percentage("percentageOfNodesToScore", config.percentageOfNodesToScore(), errors);
    if (config.podInitialBackoffSeconds() <= 0) {
      errors.add(FieldError.invalid("podInitialBackoffSeconds", config.podInitialBackoffSeconds(),
          "must be greater than 0"));
    }
    if (config.podMaxBackoffSeconds() < config.podInitialBackoffSeconds()) {
      errors.add(FieldError.invalid("podMaxBackoffSeconds", config.podMaxBackoffSeconds(),
          "must be greater than or equal to podInitialBackoffSeconds"));
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < config.profiles().size(); i++) {
      String path = index("profiles", i);
      ProfileConfig profile = config.profiles().get(i);
      if (profile.schedulerName().isEmpty()) {
        errors.add(FieldError.required(child(path, "schedulerName"), ""));
      } else if (!names.add(profile.schedulerName())) {
        errors.add(FieldError.duplicate(child(path, "schedulerName"), profile.schedulerName()));
      }
      if (i < decoded.profiles().size()) {
        DecodedConfig.Profile written = decoded.profiles().get(i);
        percentage(child(path, "percentageOfNodesToScore"), written.percentageOfNodesToScore(),
            errors);
        pluginNames(path, written, registry, errors);
      }
      queueSortAndBind(path, profile, errors);
    }
    commonQueueSort(decoded, config.profiles(), errors);
    return errors;
  }

  private static void leaderElection(SchedulerConfiguration.LeaderElection le,
      List<FieldError> errors) {
    if (!le.leaderElect()) {
      return;
    }
    String path = "leaderElection";
    positive(child(path, "leaseDuration"), le.leaseDuration(), errors);
    positive(child(path, "renewDeadline"), le.renewDeadline(), errors);
    positive(child(path, "retryPeriod"), le.retryPeriod(), errors);
    if (le.leaseDuration().compareTo(le.renewDeadline()) <= 0) {
      errors.add(FieldError.invalid(child(path, "leaseDuration"),
          GoDuration.format(le.leaseDuration()),
          "must be greater than renewDeadline (" + GoDuration.format(le.renewDeadline()) + ")"));
    }
    Duration jitteredRetry = Duration.ofNanos(
        (long) (JITTER_FACTOR * le.retryPeriod().toNanos()));
    if (isPositive(le.retryPeriod()) && isPositive(le.renewDeadline())
        && le.renewDeadline().compareTo(jitteredRetry) <= 0) {
      errors.add(FieldError.invalid(child(path, "renewDeadline"),
          GoDuration.format(le.renewDeadline()), "must be greater than retryPeriod * "
              + JITTER_FACTOR + " (" + GoDuration.format(jitteredRetry) + ")"));
    }
    if (!le.resourceLock().equals(ConfigDefaults.RESOURCE_LOCK)) {
      errors.add(FieldError.invalid(child(path, "resourceLock"), le.resourceLock(),
          "resourceLock value must be \"leases\""));
    }
  }

  private static boolean isPositive(Duration value) {
    return !value.isNegative() && !value.isZero();
  }

  private static void positive(String path, Duration value, List<FieldError> errors) {
    if (!isPositive(value)) {
      errors.add(FieldError.invalid(path, GoDuration.format(value), "must be greater than zero"));
    }
  }

  private static void percentage(String path, OptionalInt value, List<FieldError> errors) {
    if (value.isPresent() && (value.getAsInt() < 0 || value.getAsInt() > 100)) {
      errors.add(FieldError.invalid(path, value.getAsInt(), "not in valid range [0-100]"));
    }
  }

  private static void pluginNames(String path, DecodedConfig.Profile profile, Registry registry,
      List<FieldError> errors) {
    String pluginsPath = child(path, "plugins");
    pluginSetNames(child(pluginsPath, "multiPoint"), profile.multiPoint(), registry, errors);
    for (ExtensionPoint point : ExtensionPoint.values()) {
      pluginSetNames(child(pluginsPath, point.configName()), profile.pluginSet(point), registry,
          errors);
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < profile.pluginConfig().size(); i++) {
      String name = profile.pluginConfig().get(i).name();
      String namePath = child(index(child(path, "pluginConfig"), i), "name");
      pluginName(namePath, name, false, registry, errors);
      if (!name.isEmpty() && !seen.add(name)) {
        errors.add(FieldError.duplicate(namePath, name));
      }
    }
  }

  private static void pluginSetNames(String path, PluginSet set, Registry registry,
      List<FieldError> errors) {
    for (int i = 0; i < set.enabled().size(); i++) {
      pluginName(child(index(child(path, "enabled"), i), "name"), set.enabled().get(i).name(),
          false, registry, errors);
    }
    for (int i = 0; i < set.disabled().size(); i++) {
      pluginName(child(index(child(path, "disabled"), i), "name"), set.disabled().get(i), true,
          registry, errors);
    }
  }

  private static void pluginName(String path, String name, boolean allowAll, Registry registry,
      List<FieldError> errors) {
    if (name.isEmpty()) {
      errors.add(FieldError.required(path, ""));
    } else if (!(allowAll && name.equals(PluginMerge.ALL)) && !registry.contains(name)) {
      errors.add(FieldError.invalid(path, name, "unknown plugin"));
    }
  }

  private static void queueSortAndBind(String path, ProfileConfig profile,
      List<FieldError> errors) {
    String pluginsPath = child(path, "plugins");
    int queueSorts = profile.pluginSet(ExtensionPoint.QUEUE_SORT).enabled().size();
    if (queueSorts > 1) {
      errors.add(FieldError.invalid(child(child(pluginsPath, "queueSort"), "enabled"), queueSorts,
          "only one queue sort plugin can be enabled"));
    }
    for (ExtensionPoint point : List.of(ExtensionPoint.QUEUE_SORT, ExtensionPoint.BIND)) {
      if (certainlyEmpty(profile, point)) {
        errors.add(FieldError.required(child(pluginsPath, point.configName()),
            "no " + point.configName() + " plugin can be enabled: none is enabled there and "
                + "multiPoint cannot supply one (its plugins are all disabled there)"));
      }
    }
  }

  /** True when neither the point's own list nor a multiPoint plugin can put a plugin there. */
  private static boolean certainlyEmpty(ProfileConfig profile, ExtensionPoint point) {
    PluginSet own = profile.pluginSet(point);
    if (!own.enabled().isEmpty()) {
      return false;
    }
    if (own.disabled().contains(PluginMerge.ALL)) {
      return true;
    }
    return profile.multiPoint().enabled().stream()
        .allMatch(plugin -> own.disabled().contains(plugin.name()));
  }

  /**
   * As upstream's validateCommonQueueSort: every profile's explicit queueSort set equals the
   * first profile's, and so do the args of the first profile's explicit queueSort plugin.
   */
  private static void commonQueueSort(DecodedConfig decoded, List<ProfileConfig> profiles,
      List<FieldError> errors) {
    PluginSet canon = profiles.get(0).pluginSet(ExtensionPoint.QUEUE_SORT);
    String queueSort = canon.enabled().isEmpty() ? "" : canon.enabled().get(0).name();
    Map<String, Object> canonArgs = profiles.get(0).argsOf(queueSort);
    for (int i = 1; i < profiles.size(); i++) {
      String path = index("profiles", i);
      PluginSet current = profiles.get(i).pluginSet(ExtensionPoint.QUEUE_SORT);
      if (!current.equals(canon)) {
        errors.add(FieldError.invalid(child(child(path, "plugins"), "queueSort"), render(current),
            "must be the same for all profiles"));
      }
      if (!queueSort.isEmpty() && !profiles.get(i).argsOf(queueSort).equals(canonArgs)) {
        errors.add(FieldError.invalid(pluginConfigPath(decoded, i, queueSort),
            profiles.get(i).argsOf(queueSort),
            "queueSort plugin " + FieldError.render(queueSort)
                + " args must be the same for all profiles"));
      }
    }
  }

  private static String pluginConfigPath(DecodedConfig decoded, int profile, String plugin) {
    String path = child(index("profiles", profile), "pluginConfig");
    List<DecodedConfig.PluginConfig> configs = profile < decoded.profiles().size()
        ? decoded.profiles().get(profile).pluginConfig()
        : List.of();
    for (int j = 0; j < configs.size(); j++) {
      if (configs.get(j).name().equals(plugin)) {
        return child(index(path, j), "args");
      }
    }
    return path;
  }

  private static FieldError.Literal render(PluginSet set) {
    return new FieldError.Literal("{enabled: " + set.enabled().stream().map(ConfigValidator::render)
        .collect(Collectors.joining(", ", "[", "]"))
        + ", disabled: " + set.disabled() + "}");
  }

  private static String render(PluginRef ref) {
    return ref.weight() == 0 ? ref.name() : ref.name() + "(weight " + ref.weight() + ")";
  }
}
