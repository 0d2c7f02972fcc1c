package io.berth.plugins.dynamicresources;

import io.berth.plugins.helper.PluginArgFields;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * DynamicResources' arguments ({@code DynamicResourcesArgs} of
 * {@code kubescheduler.config.k8s.io/v1}): {@code filterTimeout} bounds one Filter call's device
 * search (default 10s, 0 disables the bound), {@code bindingTimeout} bounds how long PreBind may
 * wait on device binding conditions (default 600s; kept for compatibility, nothing here waits on
 * binding conditions). Durations in Go's syntax ({@code 10s}, {@code 1m30s}). Immutable.
 */
public record DynamicResourcesArgs(Duration filterTimeout, Duration bindingTimeout) {
  public static final Duration DEFAULT_FILTER_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_BINDING_TIMEOUT = Duration.ofSeconds(600);
  public static final DynamicResourcesArgs DEFAULTS =
      new DynamicResourcesArgs(DEFAULT_FILTER_TIMEOUT, DEFAULT_BINDING_TIMEOUT);

  private static final Pattern PART = Pattern.compile("([0-9]*(?:\\.[0-9]*)?)(ns|us|µs|ms|s|m|h)");

  /**
   * Parses and validates the pluginConfig args.
   *
   * @throws IllegalArgumentException naming each invalid or unknown field
   */
  public static DynamicResourcesArgs parse(Map<String, Object> args) {
    List<String> errors = new ArrayList<>();
    PluginArgFields.rejectUnknown(args, Set.of("filterTimeout", "bindingTimeout"), errors);
    Duration filter = duration(args, "filterTimeout", DEFAULT_FILTER_TIMEOUT, errors);
    Duration binding = duration(args, "bindingTimeout", DEFAULT_BINDING_TIMEOUT, errors);
    if (filter != null && filter.isNegative()) {
      errors.add(PluginArgFields.invalid("filterTimeout", args.get("filterTimeout"),
          "must be zero or positive"));
    }
    if (binding != null && (binding.isNegative() || binding.isZero())) {
      errors.add(PluginArgFields.invalid("bindingTimeout", args.get("bindingTimeout"),
          "must be positive"));
    }
    PluginArgFields.throwIfAny(errors);
    return new DynamicResourcesArgs(filter, binding);
  }

  private static Duration duration(Map<String, Object> args, String key, Duration dflt,
      List<String> errors) {
    Object raw = args.get(key);
    if (raw == null) {
      return dflt;
    }
    if (!(raw instanceof String text)) {
      errors.add(PluginArgFields.invalid(key, raw, "must be a duration such as \"10s\""));
      return null;
    }
    Duration d = goDuration(text);
    if (d == null) {
      errors.add(PluginArgFields.invalid(key, raw, "must be a duration such as \"10s\""));
    }
    return d;
  }

  // Go's time.ParseDuration: an optional sign, then number+unit parts
  static Duration goDuration(String text) {
    String s = text.trim();
    boolean negative = s.startsWith("-");
    if (negative || s.startsWith("+")) {
      s = s.substring(1);
    }
    if (s.equals("0")) {
      return Duration.ZERO;
    }
    if (s.isEmpty()) {
      return null;
    }
    Matcher m = PART.matcher(s);
    BigDecimal nanos = BigDecimal.ZERO;
    int at = 0;
    while (at < s.length()) {
      if (!m.find(at) || m.start() != at || m.group(1).isEmpty() || m.group(1).equals(".")) {
        return null;
      }
      BigDecimal unit = switch (m.group(2)) {
        case "ns" -> BigDecimal.ONE;
        case "us", "µs" -> BigDecimal.valueOf(1_000);
        case "ms" -> BigDecimal.valueOf(1_000_000);
        case "s" -> BigDecimal.valueOf(1_000_000_000);
        case "m" -> BigDecimal.valueOf(60_000_000_000L);
        default -> BigDecimal.valueOf(3_600_000_000_000L);
      };
      nanos = nanos.add(new BigDecimal(m.group(1)).multiply(unit));
      at = m.end();
    }
    Duration d = Duration.ofNanos(nanos.longValue());
    return negative ? d.negated() : d;
  }
}
