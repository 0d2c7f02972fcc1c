package io.berth.embedded.server;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one request asks for, parsed from its method, path and query the way kube-apiserver's request-info factory
 * does: the verb ({@code get list watch create update patch delete deletecollection}), API group and version,
 * namespace, resource, name and subresource. Requests outside {@code /api} and {@code /apis/<group>/<version>} are
 * "non-resource" ({@link #resourceRequest()} false). Immutable.
 */
public record RequestInfo(
    String method,
    String path,
    Map<String, String> query,
    boolean resourceRequest,
    String verb,
    String group,
    String version,
    String namespace,
    String resource,
    String name,
    String subresource) {

  /** Parses {@code method} and {@code uri} (path with optional query string). */
  public static RequestInfo parse(String method, String uri) {
    String path = uri;
    String rawQuery = "";
    int q = uri.indexOf('?');
    if (q >= 0) {
      path = uri.substring(0, q);
      rawQuery = uri.substring(q + 1);
    }
    Map<String, String> query = parseQuery(rawQuery);
    String m = method.toUpperCase(java.util.Locale.ROOT);
    List<String> parts = segments(path);
    int prefix;
    String group;
    String version;
    if (parts.size() >= 2 && parts.get(0).equals("api")) {
      group = "";
      version = parts.get(1);
      prefix = 2;
    } else if (parts.size() >= 3 && parts.get(0).equals("apis")) {
      group = parts.get(1);
      version = parts.get(2);
      prefix = 3;
    } else {
      return new RequestInfo(m, path, query, false, m.toLowerCase(java.util.Locale.ROOT), "", "", "", "", "", "");
    }
    List<String> rest = parts.subList(prefix, parts.size());
    if (rest.isEmpty()) {
      // Discovery of a group version, e.g. /api/v1.
      return new RequestInfo(m, path, query, false, "get", group, version, "", "", "", "");
    }
    boolean watchPrefix = false;
    if (rest.get(0).equals("watch")) {
      watchPrefix = true;
      rest = rest.subList(1, rest.size());
    }
    String namespace = "";
    if (rest.size() > 1 && rest.get(0).equals("namespaces")) {
      namespace = rest.get(1);
      if (rest.size() > 2 && !rest.get(2).equals("status") && !rest.get(2).equals("finalize")) {
        rest = rest.subList(2, rest.size());
      }
    }
    if (rest.isEmpty()) {
      return new RequestInfo(m, path, query, false, "get", group, version, namespace, "", "", "");
    }
    String resource = rest.get(0);
    String name = rest.size() > 1 ? rest.get(1) : "";
    String subresource = rest.size() > 2 ? String.join("/", rest.subList(2, rest.size())) : "";
    if (resource.equals("namespaces")) {
      // The namespace object itself: /api/v1/namespaces/{name}[/status]
      namespace = "";
    }
    boolean watch = watchPrefix || "true".equals(query.get("watch")) || "1".equals(query.get("watch"));
    String verb = switch (m) {
      case "GET", "HEAD" -> name.isEmpty() ? (watch ? "watch" : "list") : (watch ? "watch" : "get");
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> name.isEmpty() ? "deletecollection" : "delete";
      default -> m.toLowerCase(java.util.Locale.ROOT);
    };
    return new RequestInfo(m, path, query, true, verb, group, version, namespace, resource, name, subresource);
  }

  /** The non-empty segments of {@code path} between slashes (a hand-written split: this runs for every request). */
  private static List<String> segments(String path) {
    List<String> parts = new ArrayList<>(8);
    int start = 0;
    int n = path.length();
    while (start < n) {
      int slash = path.indexOf('/', start);
      int end = slash < 0 ? n : slash;
      if (end > start) {
        parts.add(path.substring(start, end));
      }
      start = end + 1;
    }
    return parts;
  }

  private static Map<String, String> parseQuery(String raw) {
    if (raw.isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String k = decode(eq < 0 ? pair : pair.substring(0, eq));
      String v = eq < 0 ? "" : decode(pair.substring(eq + 1));
      out.putIfAbsent(k, v);
    }
    return Collections.unmodifiableMap(out);
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  /** A query parameter, if present. */
  public Optional<String> param(String key) {
    return Optional.ofNullable(query.get(key));
  }

  /** The resource with its subresource, as fault injection and the request log name it ({@code pods/binding}). */
  public String resourcePath() {
    return subresource.isEmpty() ? resource : resource + "/" + subresource;
  }
}
