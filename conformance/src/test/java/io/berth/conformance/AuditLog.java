package io.berth.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads kube-apiserver's JSON audit log (one event per line, written as each request completes) into
 * {@link Entry} records. The API server writes it in blocking mode, so a request whose response a client has seen
 * is already in the file. Thread-safe: stateless but for the immutable path.
 */
final class AuditLog {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /**
   * One completed request. {@code code} is the HTTP status the server answered; {@code apiGroup} is {@code ""} for
   * the core group, {@code namespace} {@code ""} for a cluster-scoped request; {@code completed} is when the server
   * finished it (the event's {@code stageTimestamp}; {@link java.time.Instant#EPOCH} when absent).
   */
  record Entry(String user, String verb, String uri, String apiGroup, String namespace, String resource,
      String subresource, String name, int code, String message, java.time.Instant completed) {

    Entry(String user, String verb, String uri, String apiGroup, String namespace, String resource,
        String subresource, String name, int code, String message) {
      this(user, verb, uri, apiGroup, namespace, resource, subresource, name, code, message, java.time.Instant.EPOCH);
    }

    /** Refused by the server: any 4xx or 5xx. */
    boolean refused() {
      return code >= 400;
    }

    /**
     * Refused for what the request was, not for the state it met: any 4xx or 5xx but 404 Not Found and 409 Conflict,
     * which a correct client meets in races (a Lease not yet created, an update on a stale resourceVersion) on any
     * server. A rejected request means the client sent what the real server does not accept (400, 403, 405, 415,
     * 422, ...).
     */
    boolean rejected() {
      return refused() && code != 404 && code != 409;
    }

    /**
     * What kind of request this was, for comparing two clients' traffic: the verb and the resource as
     * {@code group/resource/subresource} ({@code core} for the core group, no subresource part if none), e.g.
     * {@code create core/pods/binding}, {@code create events.k8s.io/events}, {@code patch core/pods/status}.
     */
    String kind() {
      return verb + " " + (apiGroup.isEmpty() ? "core" : apiGroup) + "/" + resource
          + (subresource.isEmpty() ? "" : "/" + subresource);
    }

    @Override
    public String toString() {
      return code + " " + verb + " " + uri + (message.isEmpty() ? "" : " (" + message + ")") + " by " + user;
    }
  }

  private final Path file;

  AuditLog(Path file) {
    this.file = file;
  }

  /**
   * Completed requests (stage ResponseComplete or Panic) matching {@code filter}, in order. kube-apiserver may be
   * appending while this reads: a last line without its newline is an event still being written and is left out.
   */
  List<Entry> entries(Predicate<Entry> filter) {
    if (!Files.exists(file)) {
      return List.of();
    }
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String complete = text.substring(0, text.lastIndexOf('\n') + 1);
    return complete.lines().filter(line -> !line.isBlank()).map(JSON::readTree)
        .filter(event -> !"ResponseStarted".equals(event.path("stage").asString()))
        .map(AuditLog::entry).filter(filter).toList();
  }

  /** The requests {@code user} made that the server refused (4xx, 5xx), in order. */
  List<Entry> refused(String user) {
    return entries(e -> e.user().equals(user) && e.refused());
  }

  /** The requests {@code user} made that the server {@linkplain Entry#rejected() rejected}, in order. */
  List<Entry> rejected(String user) {
    return entries(e -> e.user().equals(user) && e.rejected());
  }

  /**
   * How many requests of each {@linkplain Entry#kind() kind} {@code user} made, skipping the user's first
   * {@code skip} requests (those made before a measured window), largest count first.
   */
  java.util.LinkedHashMap<String, Long> kinds(String user, long skip) {
    java.util.Map<String, Long> counts = entries(e -> e.user().equals(user)).stream().skip(skip)
        .collect(java.util.stream.Collectors.groupingBy(Entry::kind, java.util.stream.Collectors.counting()));
    java.util.LinkedHashMap<String, Long> sorted = new java.util.LinkedHashMap<>();
    counts.entrySet().stream()
        .sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed()
            .thenComparing(java.util.Map.Entry.comparingByKey()))
        .forEach(e -> sorted.put(e.getKey(), e.getValue()));
    return sorted;
  }

  /** How many requests {@code user} made. */
  long count(String user) {
    return entries(e -> e.user().equals(user)).size();
  }

  private static Entry entry(JsonNode event) {
    JsonNode ref = event.path("objectRef");
    JsonNode status = event.path("responseStatus");
    return new Entry(event.path("user").path("username").asString(), event.path("verb").asString(),
        event.path("requestURI").asString(), ref.path("apiGroup").asString(""), ref.path("namespace").asString(""),
        ref.path("resource").asString(""), ref.path("subresource").asString(""), ref.path("name").asString(""),
        status.path("code").asInt(0), status.path("message").asString(""), completed(event));
  }

  private static java.time.Instant completed(JsonNode event) {
    String stamp = event.path("stageTimestamp").asString("");
    return stamp.isEmpty() ? java.time.Instant.EPOCH : java.time.Instant.parse(stamp);
  }
}
