package io.berth.controller.deployment;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;

/**
 * The {@value #LABEL} value of a Deployment's ReplicaSets and the template equality that ignores it
 * (upstream {@code controller.ComputeHash} and {@code deploymentutil.EqualIgnoreHash}).
 *
 * <p>The hash is FNV-1a (32 bit) over {@link CanonicalTemplate}'s canonical JSON of the template, followed,
 * when a collision count is given, by its 32-bit little-endian value padded to 8 bytes as upstream writes it;
 * the unsigned decimal of the sum is then spelled in upstream's SafeEncodeString alphabet (each digit
 * character c becomes {@code ALPHABET[c % 27]}), giving e.g. "5d59d67564". It depends only on template
 * content and collision count, so it is stable across JVM runs and object identity. It is not byte-identical
 * to kube-controller-manager's (which hashes Go's in-memory dump of the struct); a cluster handed over from
 * upstream keeps its existing ReplicaSets, which are matched by template equality, never by hash.
 *
 * <p>Stateless and thread-safe.
 */
public final class PodTemplateHash {

  /** Label (and selector key) that ties a ReplicaSet and its pods to one template of a Deployment. */
  public static final String LABEL = "pod-template-hash";

  /** upstream rand.SafeEncodeString alphabet: no vowels, no look-alikes (0, 1, 3). */
  static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

  private static final int FNV_OFFSET_BASIS = 0x811c9dc5;
  private static final int FNV_PRIME = 0x01000193;

  private PodTemplateHash() {
  }

  /**
   * The pod-template-hash of {@code template}; {@code collisionCount} (the Deployment's
   * {@code status.collisionCount}, may be null) changes the result whenever present, so a Deployment whose
   * ReplicaSet name collides with a foreign one gets a new name by bumping it.
   */
  public static String compute(PodTemplateSpec template, Integer collisionCount) {
    int hash = fnv1a32(FNV_OFFSET_BASIS, CanonicalTemplate.bytes(template));
    if (collisionCount != null) {
      byte[] count = new byte[8];
      int c = collisionCount;
      count[0] = (byte) c;
      count[1] = (byte) (c >>> 8);
      count[2] = (byte) (c >>> 16);
      count[3] = (byte) (c >>> 24);
      hash = fnv1a32(hash, count);
    }
    return safeEncode(Integer.toUnsignedString(hash));
  }

  /**
   * Whether two templates are equal ignoring the {@value #LABEL} label (upstream EqualIgnoreHash): a
   * Deployment's template never carries it, its ReplicaSets' templates always do.
   */
  public static boolean equalIgnoreHash(PodTemplateSpec a, PodTemplateSpec b) {
    if (sameSpec(a, b)) {
      // equal specs (and extra fields) have equal canonical forms: only the metadata is left to compare, and
      // the spec, the largest part, is not converted to a tree on every sync of every ReplicaSet
      return CanonicalTemplate.tree(new PodTemplateSpec(a.getMetadata(), null), LABEL)
          .equals(CanonicalTemplate.tree(new PodTemplateSpec(b.getMetadata(), null), LABEL));
    }
    return CanonicalTemplate.tree(a, LABEL).equals(CanonicalTemplate.tree(b, LABEL));
  }

  /**
   * Whether the two templates' specs and extra fields are equal by the model's own {@code equals}, which, like the
   * canonical form, compares quantities by value and maps without order; false (the canonical comparison decides)
   * when either is null or a quantity does not parse.
   */
  private static boolean sameSpec(PodTemplateSpec a, PodTemplateSpec b) {
    if (a == null || b == null || a.getSpec() == null || b.getSpec() == null) {
      return false;
    }
    try {
      return a.getSpec().equals(b.getSpec())
          && java.util.Objects.equals(a.getAdditionalProperties(), b.getAdditionalProperties());
    } catch (RuntimeException e) {
      return false;
    }
  }

  static int fnv1a32(int seed, byte[] data) {
    int hash = seed;
    for (byte b : data) {
      hash ^= (b & 0xff);
      hash *= FNV_PRIME;
    }
    return hash;
  }

  static String safeEncode(String s) {
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      out.append(ALPHABET.charAt(s.charAt(i) % ALPHABET.length()));
    }
    return out.toString();
  }
}
