package io.berth.framework;

import java.util.Map;
import java.util.TreeMap;

/**
 * A pod's scheduling signature: the union of its {@link SignFragment}s keyed by signer name, as
 * upstream's {@code fwk.PodSignature} (there a JSON encoding; here the values themselves, so no
 * serialization runs on the hot path). Equal signatures mean equal feasibility and scores.
 * Immutable; the hash is computed once. Thread-safe.
 */
public final class PodSignature {
  private final Map<String, Object> fragments;
  private final int hash;

  private PodSignature(Map<String, Object> fragments) {
    this.fragments = fragments;
    this.hash = fragments.hashCode();
  }

  /** A signature of {@code fragments} (by signer name; later values for a key win). */
  public static PodSignature of(Map<String, Object> fragments) {
    return new PodSignature(java.util.Collections.unmodifiableMap(new TreeMap<>(fragments)));
  }

  /** The fragments by signer name, sorted. */
  public Map<String, Object> fragments() {
    return fragments;
  }

  @Override
  public boolean equals(Object o) {
    return o == this || o instanceof PodSignature s && s.hash == hash
        && s.fragments.equals(fragments);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return "PodSignature" + fragments;
  }
}
