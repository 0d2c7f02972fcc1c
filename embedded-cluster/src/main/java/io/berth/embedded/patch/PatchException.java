package io.berth.embedded.patch;

import java.util.Objects;

/**
 * A patch that cannot be applied. {@link #status()} is the HTTP status the embedded API server answers
 * with, following kube-apiserver's {@code endpoints/handlers/patch.go}:
 *
 * <ul>
 *   <li>{@link Status#BAD_REQUEST} (400): the body is not parseable as the declared patch type, a JSON
 *       Patch body is not an array, a merge-style patch is not an object, or a strategic-merge directive is
 *       malformed ({@code $retainKeys}, {@code $setElementOrder/…}, {@code $deleteFromPrimitiveList/…}).
 *   <li>{@link Status#UNPROCESSABLE_ENTITY} (422): a well-formed patch that does not apply to this object:
 *       a failed JSON Patch {@code test}, a missing path, an out-of-range index, a list of lists, a list
 *       item without its merge key, an unknown {@code $patch} value.
 * </ul>
 *
 * <p>Patches never produce 409 Conflict by themselves: a conflict comes from the store's
 * {@code metadata.resourceVersion} precondition after the patch is applied. (Upstream answers some
 * strategic-merge failures with 500; this implementation uses 422 for them.) Immutable.
 */
public final class PatchException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The HTTP status a patch failure maps to. */
  public enum Status {
    /** 400: the patch body itself is malformed. */
    BAD_REQUEST(400),
    /** 422: the patch is well-formed but cannot be applied to the current object. */
    UNPROCESSABLE_ENTITY(422);

    private final int code;

    Status(int code) {
      this.code = code;
    }

    /** The HTTP status code. */
    public int code() {
      return code;
    }
  }

  private final Status status;

  public PatchException(Status status, String message) {
    super(message);
    this.status = Objects.requireNonNull(status, "status");
  }

  public PatchException(Status status, String message, Throwable cause) {
    super(message, cause);
    this.status = Objects.requireNonNull(status, "status");
  }

  /** The HTTP status the server should answer with. */
  public Status status() {
    return status;
  }

  static PatchException badRequest(String message) {
    return new PatchException(Status.BAD_REQUEST, message);
  }

  static PatchException unprocessable(String message) {
    return new PatchException(Status.UNPROCESSABLE_ENTITY, message);
  }
}
