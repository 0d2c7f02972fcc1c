package io.berth.embedded.fault;

import java.time.Instant;

/**
 * One request the embedded API server received, as the request log keeps it. Immutable.
 *
 * @param time when it arrived
 * @param verb kube-apiserver's verb: get, list, watch, create, update, patch, delete, deletecollection (or the
 *     lower-case HTTP method for non-resource requests)
 * @param group API group, empty for core
 * @param resource plural resource, empty for non-resource requests
 * @param subresource subresource ({@code status}, {@code binding}...), empty for the main resource
 * @param namespace namespace, empty when none
 * @param name object name, empty for collections
 * @param path the request path, without the query
 * @param query the decoded query parameters
 */
public record RequestRecord(Instant time, String verb, String group, String resource, String subresource,
    String namespace, String name, String path, java.util.Map<String, String> query) {

  /** {@code resource} or {@code resource/subresource}. */
  public String resourcePath() {
    return subresource.isEmpty() ? resource : resource + "/" + subresource;
  }
}
