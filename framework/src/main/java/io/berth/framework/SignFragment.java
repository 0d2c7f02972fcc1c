package io.berth.framework;

import java.util.Objects;

/**
 * One piece of a pod's scheduling signature, as upstream's {@code fwk.SignFragment}: a signer
 * name ({@link PodSigners}) and the value of the pod fields it covers. Values are compared with
 * {@code equals}, so they must be immutable value objects (records, lists, fabric8 model objects
 * copied from the pod and never mutated). Immutable; thread-safe when its value is.
 *
 * @param key the signer name, shared by plugins that read the same pod fields
 * @param value what the pod has in those fields; may be null
 */
public record SignFragment(String key, Object value) {
  public SignFragment {
    Objects.requireNonNull(key, "key");
  }
}
