package io.berth.embedded.server;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads the protobuf bodies client-go's typed clients send for the review resources (kubectl auth can-i sends a
 * SelfSubjectAccessReview as {@code application/vnd.kubernetes.protobuf}) into the JSON tree the review endpoints
 * read: the {@code k8s\0} envelope ({@code runtime.Unknown}), then the review's {@code spec} fields by their
 * numbers in upstream's {@code generated.proto}. Only the spec is read; metadata and status are ignored (the
 * answer is JSON, which the client accepts). Stateless and thread-safe.
 */
final class ReviewProtobuf {

  /** The content type of Kubernetes protobuf bodies. */
  static final String CONTENT_TYPE = "application/vnd.kubernetes.protobuf";

  private static final byte[] MAGIC = {'k', '8', 's', 0};

  private ReviewProtobuf() {
  }

  /** The review in {@code body} as JSON ({@code spec} only), for {@code resource}. */
  static ObjectNode decode(ReviewEndpoints.ReviewResource resource, byte[] body) {
    if (body.length < MAGIC.length || !Arrays.equals(Arrays.copyOf(body, MAGIC.length), MAGIC)) {
      throw ApiException.badRequest("the request body is not a Kubernetes protobuf message");
    }
    byte[] raw = null;
    Reader unknown = new Reader(Arrays.copyOfRange(body, MAGIC.length, body.length));
    while (unknown.more()) {
      int tag = unknown.tag();
      if (tag >>> 3 == 2 && (tag & 7) == 2) {
        raw = unknown.bytes();
      } else {
        unknown.skip(tag);
      }
    }
    ObjectNode review = Json.object();
    ObjectNode spec = review.putObject("spec");
    if (raw == null) {
      return review;
    }
    Reader message = new Reader(raw);
    while (message.more()) {
      int tag = message.tag();
      if (tag >>> 3 == 2 && (tag & 7) == 2) {
        readSpec(resource, new Reader(message.bytes()), spec);
      } else {
        message.skip(tag);
      }
    }
    return review;
  }

  private static void readSpec(ReviewEndpoints.ReviewResource resource, Reader in, ObjectNode spec) {
    boolean token = resource == ReviewEndpoints.TOKEN_REVIEWS;
    ArrayNode list = null;
    while (in.more()) {
      int tag = in.tag();
      int field = tag >>> 3;
      if ((tag & 7) != 2) {
        in.skip(tag);
        continue;
      }
      if (token) {
        switch (field) {
          case 1 -> spec.put("token", in.string());
          case 2 -> {
            list = spec.has("audiences") ? (ArrayNode) spec.get("audiences") : spec.putArray("audiences");
            list.add(in.string());
          }
          default -> in.bytes();
        }
        continue;
      }
      switch (field) {
        case 1 -> readStrings(new Reader(in.bytes()), spec.putObject("resourceAttributes"),
            List.of("namespace", "verb", "group", "version", "resource", "subresource", "name"));
        case 2 -> readStrings(new Reader(in.bytes()), spec.putObject("nonResourceAttributes"),
            List.of("path", "verb"));
        case 3 -> spec.put("user", in.string());
        case 4 -> {
          list = spec.has("groups") ? (ArrayNode) spec.get("groups") : spec.putArray("groups");
          list.add(in.string());
        }
        case 6 -> spec.put("uid", in.string());
        default -> in.bytes();
      }
    }
  }

  /** Reads string fields 1..n of a message into {@code out} under {@code names}; other fields are skipped. */
  private static void readStrings(Reader in, ObjectNode out, List<String> names) {
    while (in.more()) {
      int tag = in.tag();
      int field = tag >>> 3;
      if ((tag & 7) == 2 && field >= 1 && field <= names.size()) {
        out.put(names.get(field - 1), in.string());
      } else {
        in.skip(tag);
      }
    }
  }

  /** A protobuf wire-format reader over one message. Not thread-safe; used by one call. */
  private static final class Reader {
    private final byte[] b;
    private int pos;

    Reader(byte[] b) {
      this.b = b;
    }

    boolean more() {
      return pos < b.length;
    }

    int tag() {
      return (int) varint();
    }

    long varint() {
      long result = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= b.length) {
          throw ApiException.badRequest("truncated protobuf body");
        }
        byte x = b[pos++];
        result |= (long) (x & 0x7f) << shift;
        if ((x & 0x80) == 0) {
          return result;
        }
      }
      throw ApiException.badRequest("malformed protobuf varint");
    }

    byte[] bytes() {
      long n = varint();
      if (n < 0 || pos + n > b.length) {
        throw ApiException.badRequest("truncated protobuf body");
      }
      byte[] out = Arrays.copyOfRange(b, pos, pos + (int) n);
      pos += (int) n;
      return out;
    }

    String string() {
      return new String(bytes(), StandardCharsets.UTF_8);
    }

    void skip(int tag) {
      switch (tag & 7) {
        case 0 -> varint();
        case 1 -> advance(8);
        case 2 -> bytes();
        case 5 -> advance(4);
        default -> throw ApiException.badRequest("unsupported protobuf wire type " + (tag & 7));
      }
    }

    private void advance(int n) {
      if (pos + n > b.length) {
        throw ApiException.badRequest("truncated protobuf body");
      }
      pos += n;
    }
  }
}
