package io.berth.framework;

import java.util.List;
import java.util.Objects;

/**
 * What a {@link SignPlugin} returns for one pod: the fragments that cover every pod field the
 * plugin reads, or a non-success status saying the pod cannot be signed (upstream returns
 * {@code Unschedulable} for that; an {@code Error} is logged). Immutable.
 */
public record SignResult(List<SignFragment> fragments, Status status) {
  private static final SignResult NONE = new SignResult(List.of(), Status.SUCCESS);

  public SignResult {
    fragments = List.copyOf(fragments);
    Objects.requireNonNull(status, "status");
  }

  /** The pod is signable and the plugin contributes these fragments. */
  public static SignResult of(SignFragment... fragments) {
    return fragments.length == 0 ? NONE : new SignResult(List.of(fragments), Status.SUCCESS);
  }

  /** The pod is signable and the plugin reads nothing pod-specific beyond other fragments. */
  public static SignResult none() {
    return NONE;
  }

  /** The plugin cannot sign the pod: batching is off for it. */
  public static SignResult unsignable(String reason) {
    return new SignResult(List.of(), Status.unschedulable(reason));
  }

  public boolean isSuccess() {
    return status.isSuccess();
  }
}
