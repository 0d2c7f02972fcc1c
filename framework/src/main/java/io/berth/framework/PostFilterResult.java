package io.berth.framework;

/** What a PostFilter plugin returns: a status and a nomination. Immutable. */
public record PostFilterResult(Status status, NominatingInfo nominatingInfo) {
  public static PostFilterResult of(Status status) {
    return new PostFilterResult(status, NominatingInfo.NOOP);
  }
}
