package io.berth.conformance;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * etcd's v3 JSON gateway (the {@code /v3/kv/*} endpoints on its client URL) for the two calls a test needs that the
 * API server does not offer: the current revision (which kube-apiserver hands out as resourceVersions) and a
 * compaction of the history up to it, after which a watch from an older resourceVersion can no longer be served.
 * Thread-safe: the JDK's HttpClient is.
 */
final class Etcd {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final String url;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  Etcd(String url) {
    this.url = url;
  }

  /** The store's current revision. */
  long revision() throws IOException, InterruptedException {
    // a range over the key "\0" (base64 "AA==") returns no kvs, only the header with the revision
    // the gateway writes int64 fields as JSON strings
    return Long.parseLong(post("/v3/kv/range", "{\"key\":\"AA==\"}").path("header").path("revision")
        .asString());
  }

  /** Compacts the history up to {@code revision} (physically, waiting for it); returns the revision compacted. */
  long compact(long revision) throws IOException, InterruptedException {
    post("/v3/kv/compaction", "{\"revision\":\"" + revision + "\",\"physical\":true}");
    return revision;
  }

  private JsonNode post(String path, String body) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url + path))
        .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("etcd " + path + " answered " + response.statusCode() + ": " + response.body());
    }
    return JSON.readTree(response.body());
  }
}
