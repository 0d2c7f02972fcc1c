package io.berth.embedded.server;

import io.berth.embedded.auth.AuthorizationAttributes;
import io.berth.embedded.auth.AuthorizationDecision;
import io.berth.embedded.auth.RbacAuthorizer;
import io.berth.embedded.auth.TokenAuthenticator;
import io.berth.embedded.auth.UserInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The create-only review resources, answered and never stored: {@code authentication.k8s.io/v1 tokenreviews}
 * (which user a token authenticates) and {@code authorization.k8s.io/v1 subjectaccessreviews},
 * {@code selfsubjectaccessreviews} and namespaced {@code localsubjectaccessreviews} (whether a user may do
 * something). Access reviews are answered by the {@link RbacAuthorizer} from the stored RBAC objects whether or
 * not the cluster enforces RBAC on requests, so a test can get real answers without enforcement; their decisions
 * are recorded with origin {@code ACCESS_REVIEW}.
 *
 * <p>Called on the transport's threads. Thread-safe: immutable, its collaborators are thread-safe.
 */
final class ReviewEndpoints {

  /** The audience of every token the embedded cluster issues (upstream: the API server's implicit audience). */
  static final String API_AUDIENCE = "https://kubernetes.default.svc.cluster.local";

  /** A review resource as discovery lists it. */
  record ReviewResource(String group, String version, String resource, String kind, boolean namespaced) {
    String apiVersion() {
      return group + "/" + version;
    }
  }

  static final ReviewResource TOKEN_REVIEWS =
      new ReviewResource("authentication.k8s.io", "v1", "tokenreviews", "TokenReview", false);
  static final ReviewResource LOCAL_SUBJECT_ACCESS_REVIEWS = new ReviewResource("authorization.k8s.io", "v1",
      "localsubjectaccessreviews", "LocalSubjectAccessReview", true);
  static final ReviewResource SELF_SUBJECT_ACCESS_REVIEWS = new ReviewResource("authorization.k8s.io", "v1",
      "selfsubjectaccessreviews", "SelfSubjectAccessReview", false);
  static final ReviewResource SUBJECT_ACCESS_REVIEWS = new ReviewResource("authorization.k8s.io", "v1",
      "subjectaccessreviews", "SubjectAccessReview", false);

  /** Every review resource, in discovery order. */
  static final List<ReviewResource> ALL = List.of(TOKEN_REVIEWS, LOCAL_SUBJECT_ACCESS_REVIEWS,
      SELF_SUBJECT_ACCESS_REVIEWS, SUBJECT_ACCESS_REVIEWS);

  private final TokenAuthenticator tokens;
  private final RbacAuthorizer authorizer;

  ReviewEndpoints(TokenAuthenticator tokens, RbacAuthorizer authorizer) {
    this.tokens = tokens;
    this.authorizer = authorizer;
  }

  /** The review resource {@code info} addresses, if it is one. */
  static Optional<ReviewResource> find(RequestInfo info) {
    if (!info.resourceRequest()) {
      return Optional.empty();
    }
    for (ReviewResource r : ALL) {
      if (r.group().equals(info.group()) && r.version().equals(info.version()) && r.resource().equals(info.resource())
          && r.namespaced() == !info.namespace().isEmpty()) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }

  /**
   * Answers {@code info} on {@code resource}, a create with {@code body} (JSON, or protobuf as client-go's typed
   * clients send) by {@code user}; the answer is JSON.
   */
  ApiResponse serve(ReviewResource resource, RequestInfo info, String contentType, byte[] body, UserInfo user) {
    if (!info.verb().equals("create") || !info.name().isEmpty() || !info.subresource().isEmpty()) {
      throw ApiException.methodNotAllowed("the server does not allow this method on the requested resource");
    }
    ObjectNode review = contentType != null && contentType.startsWith(ReviewProtobuf.CONTENT_TYPE)
        ? ReviewProtobuf.decode(resource, body) : Json.parseObject(body);
    review.put("apiVersion", resource.apiVersion());
    review.put("kind", resource.kind());
    if (!review.path("metadata").isObject()) {
      review.putObject("metadata");
    }
    ObjectNode spec = review.path("spec").isObject() ? (ObjectNode) review.get("spec") : review.putObject("spec");
    ObjectNode status = resource == TOKEN_REVIEWS ? tokenReview(spec) : accessReview(resource, info, spec, user);
    review.set("status", status);
    return Responses.tree(201, review);
  }

  private ObjectNode tokenReview(ObjectNode spec) {
    String token = Json.text(spec, "token");
    if (token == null || token.isEmpty()) {
      throw ApiException.badRequest("token is required for TokenReview in authentication");
    }
    List<String> wanted = strings(spec.get("audiences"));
    ObjectNode status = Json.object();
    List<String> audiences = wanted.isEmpty() ? List.of(API_AUDIENCE)
        : wanted.stream().filter(API_AUDIENCE::equals).toList();
    Optional<UserInfo> user = tokens.authenticate(token);
    if (user.isEmpty()) {
      status.put("authenticated", false);
      status.putObject("user");
      status.put("error", "invalid bearer token");
      return status;
    }
    if (audiences.isEmpty()) {
      // As upstream's audience-agnostic authenticators: none of the requested audiences is the API server's.
      status.put("authenticated", false);
      status.putObject("user");
      return status;
    }
    status.put("authenticated", true);
    ObjectNode u = status.putObject("user");
    u.put("username", user.get().username());
    if (!user.get().uid().isEmpty()) {
      u.put("uid", user.get().uid());
    }
    ArrayNode groups = u.putArray("groups");
    user.get().groups().forEach(groups::add);
    ArrayNode auds = status.putArray("audiences");
    audiences.forEach(auds::add);
    return status;
  }

  private ObjectNode accessReview(ReviewResource resource, RequestInfo info, ObjectNode spec, UserInfo caller) {
    JsonNode resourceAttributes = spec.get("resourceAttributes");
    JsonNode nonResourceAttributes = spec.get("nonResourceAttributes");
    boolean hasResource = resourceAttributes != null && resourceAttributes.isObject();
    boolean hasNonResource = nonResourceAttributes != null && nonResourceAttributes.isObject();
    if (!hasResource && !hasNonResource) {
      throw invalid(resource, "spec.resourceAttributes: Required value: exactly one of nonResourceAttributes or "
          + "resourceAttributes must be specified");
    }
    if (hasResource && hasNonResource) {
      throw invalid(resource, "spec.nonResourceAttributes: Invalid value: \"null\": cannot be specified in "
          + "combination with resourceAttributes");
    }
    UserInfo user;
    if (resource == SELF_SUBJECT_ACCESS_REVIEWS) {
      user = caller;
    } else {
      String name = textOrEmpty(spec, "user");
      List<String> groups = strings(spec.get("groups"));
      if (name.isEmpty() && groups.isEmpty()) {
        throw invalid(resource, "spec.user: Invalid value: \"\": at least one of user or group must be specified");
      }
      user = new UserInfo(name, textOrEmpty(spec, "uid"), groups);
    }
    if (resource == LOCAL_SUBJECT_ACCESS_REVIEWS) {
      if (hasNonResource) {
        throw invalid(resource, "spec.nonResourceAttributes: Invalid value: \"null\": disallowed on this kind of "
            + "request");
      }
      String ns = textOrEmpty(resourceAttributes, "namespace");
      if (!ns.equals(info.namespace())) {
        throw ApiException.badRequest("spec.resourceAttributes.namespace must match namespace: " + info.namespace());
      }
    }
    AuthorizationAttributes attributes = hasResource
        ? new AuthorizationAttributes(user, true, textOrEmpty(resourceAttributes, "verb"),
            textOrEmpty(resourceAttributes, "group"), textOrEmpty(resourceAttributes, "version"),
            textOrEmpty(resourceAttributes, "namespace"), textOrEmpty(resourceAttributes, "resource"),
            textOrEmpty(resourceAttributes, "subresource"), textOrEmpty(resourceAttributes, "name"), "")
        : AuthorizationAttributes.nonResource(user, textOrEmpty(nonResourceAttributes, "verb"),
            textOrEmpty(nonResourceAttributes, "path"));
    AuthorizationDecision decision = authorizer.authorize(attributes, AuthorizationDecision.Origin.ACCESS_REVIEW);
    ObjectNode status = Json.object();
    status.put("allowed", decision.allowed());
    if (!decision.reason().isEmpty()) {
      status.put("reason", decision.reason());
    }
    return status;
  }

  private static ApiException invalid(ReviewResource resource, String fieldMessage) {
    return new ApiException(422, "Invalid",
        resource.kind() + "." + resource.group() + " \"\" is invalid: " + fieldMessage,
        new ApiException.StatusDetails(null, resource.group(), resource.kind()));
  }

  private static String textOrEmpty(JsonNode node, String field) {
    String s = Json.text(node, field);
    return s == null ? "" : s;
  }

  private static List<String> strings(JsonNode node) {
    List<String> out = new ArrayList<>();
    if (node != null && node.isArray()) {
      for (JsonNode e : node) {
        if (e.isString()) {
          out.add(e.stringValue());
        }
      }
    }
    return out;
  }
}
