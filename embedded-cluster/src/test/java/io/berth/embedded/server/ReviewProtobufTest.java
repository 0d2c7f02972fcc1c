package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** Protobuf review bodies, as client-go's typed clients encode them, read into the JSON the endpoints use. */
class ReviewProtobufTest {

  private static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7fL) != 0) {
      out.write((int) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  private static byte[] field(int number, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    varint(out, (long) number << 3 | 2);
    varint(out, value.length);
    out.writeBytes(value);
    return out.toByteArray();
  }

  private static byte[] field(int number, String value) {
    return field(number, value.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  private static byte[] envelope(String apiVersion, String kind, byte[] raw) {
    byte[] typeMeta = concat(field(1, apiVersion), field(2, kind));
    return concat(new byte[] {'k', '8', 's', 0}, field(1, typeMeta), field(2, raw),
        field(4, "application/vnd.kubernetes.protobuf"));
  }

  @Test
  void readsASubjectAccessReviewSpec() {
    byte[] attributes = concat(field(1, "team"), field(2, "get"), field(3, "apps"), field(5, "deployments"),
        field(6, "scale"), field(7, "web"), field(8, concat(field(1, "x"))));
    byte[] metadata = concat(field(1, "ignored"));
    // A varint field (wire type 0) inside the spec must be skipped.
    byte[] spec = concat(field(1, attributes), field(3, "alice"), field(4, "devs"), field(4, "ops"),
        new byte[] {(byte) (9 << 3), 1}, field(6, "uid-1"));
    ObjectNode review = ReviewProtobuf.decode(ReviewEndpoints.SUBJECT_ACCESS_REVIEWS,
        envelope("authorization.k8s.io/v1", "SubjectAccessReview", concat(field(1, metadata), field(2, spec))));
    assertThat(Json.string(review.get("spec"))).isEqualTo("{\"resourceAttributes\":{\"namespace\":\"team\","
        + "\"verb\":\"get\",\"group\":\"apps\",\"resource\":\"deployments\",\"subresource\":\"scale\",\"name\":\"web\"},"
        + "\"user\":\"alice\",\"groups\":[\"devs\",\"ops\"],\"uid\":\"uid-1\"}");
  }

  @Test
  void readsNonResourceAttributesAndTokenReviews() {
    byte[] spec = concat(field(2, concat(field(1, "/metrics"), field(2, "get"))));
    ObjectNode self = ReviewProtobuf.decode(ReviewEndpoints.SELF_SUBJECT_ACCESS_REVIEWS,
        envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview", field(2, spec)));
    assertThat(Json.string(self.get("spec")))
        .isEqualTo("{\"nonResourceAttributes\":{\"path\":\"/metrics\",\"verb\":\"get\"}}");
    ObjectNode token = ReviewProtobuf.decode(ReviewEndpoints.TOKEN_REVIEWS, envelope("authentication.k8s.io/v1",
        "TokenReview", field(2, concat(field(1, "t0ken"), field(2, "aud-1"), field(2, "aud-2")))));
    assertThat(Json.string(token.get("spec"))).isEqualTo("{\"token\":\"t0ken\",\"audiences\":[\"aud-1\",\"aud-2\"]}");
  }

  @Test
  void rejectsBodiesThatAreNotKubernetesProtobuf() {
    assertThatThrownBy(() -> ReviewProtobuf.decode(ReviewEndpoints.TOKEN_REVIEWS, "{}".getBytes(
        StandardCharsets.UTF_8))).isInstanceOf(ApiException.class).hasMessageContaining("not a Kubernetes protobuf");
    assertThatThrownBy(() -> ReviewProtobuf.decode(ReviewEndpoints.TOKEN_REVIEWS, new byte[] {'k', '8', 's', 0, 0x12,
        0x7f})).isInstanceOf(ApiException.class).hasMessageContaining("truncated");
  }
}
