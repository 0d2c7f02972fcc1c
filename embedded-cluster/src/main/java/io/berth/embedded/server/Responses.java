package io.berth.embedded.server;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * Builds the server's HTTP responses: objects, lists assembled from the stored JSON of their items without
 * re-serializing them, and {@code metav1.Status} bodies for errors. Stateless and thread-safe.
 */
public final class Responses {

  private static final String JSON = "application/json";

  private Responses() {
  }

  /** A JSON response with {@code code} and {@code body}. */
  static ApiResponse json(int code, byte[] body) {
    return ApiResponse.of(code, JSON, body);
  }

  static ApiResponse object(int code, StoredObject object) {
    return json(code, object.json());
  }

  static ApiResponse tree(int code, ObjectNode tree) {
    return json(code, Json.bytes(tree));
  }

  /** The response for a failed request. */
  static ApiResponse error(ApiException e) {
    return json(e.code(), statusBytes(e));
  }

  /** A {@code metav1.Status} describing {@code e}. */
  public static byte[] statusBytes(ApiException e) {
    ObjectNode status = Json.object();
    status.put("kind", "Status");
    status.put("apiVersion", "v1");
    status.putObject("metadata");
    status.put("status", "Failure");
    status.put("message", e.getMessage());
    status.put("reason", e.reason());
    if (e.details() != null) {
      ObjectNode details = status.putObject("details");
      if (e.details().name() != null) {
        details.put("name", e.details().name());
      }
      if (e.details().group() != null && !e.details().group().isEmpty()) {
        details.put("group", e.details().group());
      }
      if (e.details().kind() != null && !e.details().kind().isEmpty()) {
        details.put("kind", e.details().kind());
      }
    }
    status.put("code", e.code());
    return Json.bytes(status);
  }

  /** A success {@code metav1.Status} (binding, eviction, deletecollection answers). */
  static ApiResponse success(int code) {
    return json(code, code == 201 ? CREATED : successBytes(code));
  }

  private static final byte[] CREATED = successBytes(201);

  private static byte[] successBytes(int code) {
    ObjectNode status = Json.object();
    status.put("kind", "Status");
    status.put("apiVersion", "v1");
    status.putObject("metadata");
    status.put("status", "Success");
    status.put("code", code);
    return Json.bytes(status);
  }

  /** A list of {@code type} whose items are the stored objects' own JSON. */
  public static byte[] listBytes(ResourceType type, long resourceVersion, String continueToken, Long remaining,
      List<StoredObject> items) {
    StringBuilder head = new StringBuilder(128);
    head.append("{\"kind\":\"").append(type.listKind()).append("\",\"apiVersion\":\"").append(type.apiVersion())
        .append("\",\"metadata\":{\"resourceVersion\":\"").append(resourceVersion).append('"');
    if (continueToken != null) {
      head.append(",\"continue\":\"").append(continueToken).append('"');
    }
    if (remaining != null) {
      head.append(",\"remainingItemCount\":").append(remaining);
    }
    head.append("},\"items\":[");
    int size = head.length() + 2;
    for (StoredObject o : items) {
      size += o.json().length + 1;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(size);
    out.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
    boolean first = true;
    for (StoredObject o : items) {
      if (!first) {
        out.write(',');
      }
      first = false;
      out.writeBytes(o.json());
    }
    out.writeBytes("]}".getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }
}
