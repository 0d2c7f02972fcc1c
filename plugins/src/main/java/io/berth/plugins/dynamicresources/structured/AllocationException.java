package io.berth.plugins.dynamicresources.structured;

/**
 * Allocation cannot be decided because something is wrong with a claim, a class or a pool (a
 * selector that fails to compile or evaluate, an unsupported request, an invalid pool): the
 * message names the claim or class and the field, in upstream's wording. Not "does not fit":
 * that is an empty result.
 */
public final class AllocationException extends Exception {
  public AllocationException(String message) {
    super(message);
  }
}
