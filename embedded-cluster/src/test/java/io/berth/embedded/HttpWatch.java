package io.berth.embedded;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A watch read over plain chunked HTTP, as kubectl and client-go read it; collects the events it receives. */
final class HttpWatch implements AutoCloseable {

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  final List<JsonNode> events = new CopyOnWriteArrayList<>();
  volatile boolean ended;
  private final InputStream body;
  private final Thread reader;
  final int status;

  HttpWatch(String url) throws Exception {
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpResponse<InputStream> response = client.send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
        HttpResponse.BodyHandlers.ofInputStream());
    status = response.statusCode();
    body = response.body();
    reader = new Thread(() -> {
      try (BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
        String line;
        while ((line = lines.readLine()) != null) {
          if (!line.isBlank()) {
            events.add(MAPPER.readTree(line));
          }
        }
      } catch (Exception e) {
        // the stream was closed by close() or by the server
      } finally {
        ended = true;
      }
    }, "http-watch-reader");
    reader.setDaemon(true);
    reader.start();
  }

  /** "TYPE:name" for every event but bookmarks. */
  List<String> summary() {
    return events.stream().filter(e -> !"BOOKMARK".equals(e.path("type").asString()))
        .map(e -> e.path("type").asString() + ":" + e.path("object").path("metadata").path("name").asString())
        .toList();
  }

  /** The resourceVersion of the last event received. */
  String lastResourceVersion() {
    return events.get(events.size() - 1).path("object").path("metadata").path("resourceVersion").asString();
  }

  @Override
  public void close() throws Exception {
    body.close();
  }
}
