package io.berth.embedded.server;

/**
 * A request failure that becomes a {@code metav1.Status} response with kube-apiserver's code, reason and message.
 * Immutable.
 */
public final class ApiException extends RuntimeException {

  private final int code;
  private final String reason;
  private final transient StatusDetails details;

  /** Optional details of a Status: the object's name, group and kind. */
  public record StatusDetails(String name, String group, String kind) {
  }

  public ApiException(int code, String reason, String message) {
    this(code, reason, message, null);
  }

  public ApiException(int code, String reason, String message, StatusDetails details) {
    super(message, null, false, false);
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  public int code() {
    return code;
  }

  public String reason() {
    return reason;
  }

  public StatusDetails details() {
    return details;
  }

  public static ApiException badRequest(String message) {
    return new ApiException(400, "BadRequest", message);
  }

  public static ApiException notFound(ResourceType type, String name) {
    return new ApiException(404, "NotFound", type.qualifiedResource() + " \"" + name + "\" not found",
        new StatusDetails(name, type.group(), type.resource()));
  }

  public static ApiException alreadyExists(ResourceType type, String name) {
    return new ApiException(409, "AlreadyExists", type.qualifiedResource() + " \"" + name + "\" already exists",
        new StatusDetails(name, type.group(), type.resource()));
  }

  public static ApiException conflict(ResourceType type, String name, String why) {
    return new ApiException(409, "Conflict",
        "Operation cannot be fulfilled on " + type.qualifiedResource() + " \"" + name + "\": " + why,
        new StatusDetails(name, type.group(), type.resource()));
  }

  public static ApiException invalid(ResourceType type, String name, String fieldMessage) {
    return new ApiException(422, "Invalid",
        type.kind() + " \"" + name + "\" is invalid: " + fieldMessage,
        new StatusDetails(name, type.group(), type.kind()));
  }

  /** 401: the request's credentials are not valid (upstream's body, message and reason are both "Unauthorized"). */
  public static ApiException unauthorized() {
    return new ApiException(401, "Unauthorized", "Unauthorized");
  }

  /**
   * 403 with {@code message} (see {@code AuthorizationAttributes.forbiddenMessage}) and details naming the
   * resource as upstream ({@code kind} is the resource; all empty for a non-resource request).
   */
  public static ApiException forbidden(String message, String group, String resource, String name) {
    return new ApiException(403, "Forbidden", message,
        new StatusDetails(name == null || name.isEmpty() ? null : name, group, resource));
  }

  public static ApiException gone(String message) {
    return new ApiException(410, "Expired", message);
  }

  public static ApiException methodNotAllowed(String message) {
    return new ApiException(405, "MethodNotAllowed", message);
  }

  public static ApiException unsupportedMediaType(String contentType) {
    return new ApiException(415, "UnsupportedMediaType", "the body of the request was in an unknown format: "
        + contentType);
  }

  public static ApiException tooManyRequests(String message) {
    return new ApiException(429, "TooManyRequests", message);
  }

  public static ApiException internal(String message) {
    return new ApiException(500, "InternalError", message);
  }
}
