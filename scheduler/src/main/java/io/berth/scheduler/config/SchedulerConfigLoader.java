package io.berth.scheduler.config;

import io.berth.framework.runtime.PluginSet;
import io.berth.framework.runtime.Registry;
import io.berth.plugins.DefaultProfile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Loads a {@code kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration} (YAML, or JSON when
 * the document starts with {@code '{'}) into a {@link SchedulerConfiguration}, the way
 * kube-scheduler v1.32 does: strict decoding (unknown fields, duplicate keys and wrong types are
 * errors), then defaulting (profiles' plugins merged with {@link DefaultProfile}'s multiPoint set
 * as {@code mergePlugins} does), then validation; every problem is reported at once in a
 * {@link SchedulerConfigException} naming the file and each field path. Plugin names are checked
 * against the {@link Registry} the profiles will be built from. The daemon calls it once at start
 * (then {@link SchedulerConfiguration#withSchedulerName} for {@code --scheduler-name}). Stateless
 * and thread-safe; parses with the Jackson 3 that fabric8 8 brings ({@code tools.jackson}).
 */
public final class SchedulerConfigLoader {
  // thread-safe and immutable once built
  private static final ObjectMapper YAML = YAMLMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
      .build();
  // thread-safe and immutable once built
  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
      .build();

  private static final Pattern DUPLICATE_KEY = Pattern.compile("^Duplicate property \"([^\"]*)\"");

  private SchedulerConfigLoader() {}

  /** Loads the configuration file {@code file}. */
  public static SchedulerConfiguration load(Path file, Registry registry) {
    String content;
    try {
      content = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw SchedulerConfigException.inFile(file,
          List.of(FieldError.document("cannot read the file: " + e.getClass().getSimpleName()
              + (file.toString().equals(e.getMessage()) ? "" : ": " + e.getMessage()))), e);
    }
    return load(content, registry,
        (errors) -> SchedulerConfigException.inFile(file, errors, null));
  }

  /** Loads a configuration held in a string (YAML or JSON). */
  public static SchedulerConfiguration load(String content, Registry registry) {
    return load(content, registry, (errors) -> SchedulerConfigException.inContent(errors, null));
  }

  /**
   * The configuration kube-scheduler runs with when given no file: every default, one profile
   * "default-scheduler" with no per-extension-point plugins and the default multiPoint set (the
   * default plugins {@code registry} knows).
   */
  public static SchedulerConfiguration defaults(Registry registry) {
    return build(DecodedConfig.empty(), registry,
        (errors) -> SchedulerConfigException.inContent(errors, null));
  }

  private static SchedulerConfiguration load(String content, Registry registry,
      Function<List<FieldError>, SchedulerConfigException> failure) {
    JsonNode root;
    try {
      root = content.strip().startsWith("{") ? JSON.readTree(content) : YAML.readTree(content);
    } catch (JacksonException e) {
      throw failure.apply(List.of(FieldError.document(parseProblem(e))));
    }
    ConfigDecoder decoder = new ConfigDecoder();
    DecodedConfig decoded = decoder.decode(root);
    if (!decoder.errors().isEmpty()) {
      throw failure.apply(decoder.errors());
    }
    return build(decoded, registry, failure);
  }

  private static SchedulerConfiguration build(DecodedConfig decoded, Registry registry,
      Function<List<FieldError>, SchedulerConfigException> failure) {
    PluginSet defaultMultiPoint = DefaultProfile.multiPoint(registry::contains);
    SchedulerConfiguration config = ConfigDefaults.apply(decoded, defaultMultiPoint);
    List<FieldError> errors = ConfigValidator.validate(decoded, config, registry);
    if (!errors.isEmpty()) {
      throw failure.apply(errors);
    }
    return config;
  }

  /** "line 3, column 7: cannot parse: <what the parser said>", on one line. */
  private static String parseProblem(JacksonException e) {
    String problem = "cannot parse: " + parserMessage(String.valueOf(e.getOriginalMessage()));
    TokenStreamLocation location = e.getLocation();
    if (location != null && location.getLineNr() > 0) {
      return String.format(Locale.ROOT, "line %d, column %d: %s", location.getLineNr(),
          location.getColumnNr(), problem);
    }
    return problem;
  }

  /**
   * The parser's words without SnakeYAML's source excerpts (" in reader, line 2, column 1:"
   * followed by the indented line and a caret), which repeat the location given up front.
   */
  private static String parserMessage(String message) {
    Matcher duplicate = DUPLICATE_KEY.matcher(message);
    if (duplicate.find()) {
      return "duplicate field \"" + duplicate.group(1) + "\"";
    }
    List<String> parts = new ArrayList<>();
    for (String line : message.split("\\R")) {
      if (!line.isBlank() && !Character.isWhitespace(line.charAt(0))) {
        parts.add(line.strip());
      }
    }
    return parts.isEmpty() ? message.strip() : String.join(": ", parts);
  }
}
