package io.berth.scheduler.apidispatcher;

import java.util.Map;

/**
 * The built-in call types and their relevances (upstream's {@code apicalls.Relevances}): a
 * binding is more relevant than a status patch, so a binding replaces a pending patch of the same
 * pod and a patch arriving while a binding is queued or running is skipped. Types of equal
 * relevance must be for different kinds of object. Immutable.
 */
public final class ApiCalls {
  /** A patch of a pod's status (condition, nomination): {@code call_type="pod_status_patch"}. */
  public static final String POD_STATUS_PATCH = "pod_status_patch";
  /** A pod's binding to a node: {@code call_type="pod_binding"}. */
  public static final String POD_BINDING = "pod_binding";

  /** Type to relevance; the higher wins. */
  public static final Map<String, Integer> RELEVANCES = Map.of(POD_STATUS_PATCH, 1, POD_BINDING, 2);

  private ApiCalls() {}
}
