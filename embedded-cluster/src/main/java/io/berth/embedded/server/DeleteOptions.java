package io.berth.embedded.server;

import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * The parts of {@code metav1.DeleteOptions} the server honours, from a request body or query parameters.
 * Immutable.
 *
 * @param gracePeriodSeconds the requested grace period (pods only), empty for the pod's own
 * @param propagationPolicy {@code Orphan}, {@code Background} or {@code Foreground}; empty for the default
 *     (Background)
 * @param preconditionUid delete only if the object has this UID
 * @param preconditionResourceVersion delete only if the object is at this version
 */
public record DeleteOptions(Optional<Long> gracePeriodSeconds, Optional<String> propagationPolicy,
    Optional<String> preconditionUid, Optional<String> preconditionResourceVersion) {

  /** No options: the defaults. */
  public static final DeleteOptions DEFAULT =
      new DeleteOptions(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

  public static DeleteOptions withPropagation(String policy) {
    return new DeleteOptions(Optional.empty(), Optional.of(policy), Optional.empty(), Optional.empty());
  }

  public static DeleteOptions withGracePeriod(long seconds) {
    return new DeleteOptions(Optional.of(seconds), Optional.empty(), Optional.empty(), Optional.empty());
  }

  /** Reads options from a DeleteOptions body (may be null) overlaid by query parameters, as kube-apiserver does. */
  static DeleteOptions from(JsonNode body, RequestInfo request) {
    Optional<Long> grace = Optional.empty();
    Optional<String> policy = Optional.empty();
    Optional<String> uid = Optional.empty();
    Optional<String> rv = Optional.empty();
    if (body != null && body.isObject()) {
      JsonNode g = Json.at(body, "gracePeriodSeconds");
      if (g != null && g.isNumber()) {
        grace = Optional.of(g.asLong());
      }
      policy = Optional.ofNullable(Json.text(body, "propagationPolicy"));
      JsonNode orphan = Json.at(body, "orphanDependents");
      if (policy.isEmpty() && orphan != null && orphan.isBoolean()) {
        policy = Optional.of(orphan.asBoolean() ? "Orphan" : "Background");
      }
      uid = Optional.ofNullable(Json.text(body, "preconditions", "uid"));
      rv = Optional.ofNullable(Json.text(body, "preconditions", "resourceVersion"));
    }
    Optional<String> qGrace = request.param("gracePeriodSeconds");
    if (qGrace.isPresent()) {
      try {
        grace = Optional.of(Long.parseLong(qGrace.get()));
      } catch (NumberFormatException e) {
        throw ApiException.badRequest("gracePeriodSeconds: Invalid value: \"" + qGrace.get() + "\": not an integer");
      }
    }
    if (request.param("propagationPolicy").isPresent()) {
      policy = request.param("propagationPolicy");
    } else if (request.param("orphanDependents").isPresent() && policy.isEmpty()) {
      policy = Optional.of("true".equals(request.query().get("orphanDependents")) ? "Orphan" : "Background");
    }
    policy.ifPresent(p -> {
      if (!p.equals("Orphan") && !p.equals("Background") && !p.equals("Foreground")) {
        throw new ApiException(422, "Invalid", "DeleteOptions.propagationPolicy: Unsupported value: \"" + p
            + "\": supported values: \"Foreground\", \"Background\", \"Orphan\"");
      }
    });
    return new DeleteOptions(grace, policy, uid, rv);
  }
}
