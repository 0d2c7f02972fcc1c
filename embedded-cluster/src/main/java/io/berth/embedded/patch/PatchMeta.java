package io.berth.embedded.patch;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Strategic-merge metadata for one object type: for each field, the {@code patchStrategy} and
 * {@code patchMergeKey} that k8s.io/api declares in its Go struct tags, and the type of the field's value
 * (for a list, of its elements). It is the Java stand-in for the reflection over struct tags that
 * apimachinery's {@code strategicpatch} does.
 *
 * <p>A field not described behaves as an untagged Go field: an object value is merged key by key, a list
 * is replaced wholesale. Instances are immutable after {@link Builder#build()} (types are shared between
 * kinds, e.g. one PodSpec for Pod and every pod template) and thread-safe.
 */
public final class PatchMeta {

  /** A field's {@code patchStrategy} tag. */
  public enum Strategy {
    /** No tag: objects merge, lists are replaced. */
    DEFAULT,
    /** {@code merge}: lists merge, by {@link Field#mergeKey()} for objects, as a set for primitives. */
    MERGE,
    /** {@code replace}: an object value is replaced wholesale. */
    REPLACE
  }

  /**
   * One field's metadata.
   *
   * @param strategy the patch strategy
   * @param mergeKey the merge key of a merged list of objects; empty for primitive sets and other fields
   * @param retainKeys whether the tag also carries {@code retainKeys}; informational here, because a
   *     {@code $retainKeys} directive is honoured wherever a patch carries one, as upstream does
   * @param type the metadata of the field's value, or of its elements for a list
   */
  public record Field(Strategy strategy, Optional<String> mergeKey, boolean retainKeys, PatchMeta type) {
    public Field {
      Objects.requireNonNull(strategy, "strategy");
      Objects.requireNonNull(mergeKey, "mergeKey");
      Objects.requireNonNull(type, "type");
    }
  }

  /** Metadata for a type nothing is known about: everything behaves as untagged. */
  public static final PatchMeta OPAQUE = new PatchMeta(Map.of());

  private static final Field UNDESCRIBED = new Field(Strategy.DEFAULT, Optional.empty(), false, OPAQUE);

  private final Map<String, Field> fields; // immutable

  private PatchMeta(Map<String, Field> fields) {
    this.fields = Map.copyOf(fields);
  }

  /** The metadata of {@code name}; an untagged, opaque field when not described. */
  public Field field(String name) {
    return fields.getOrDefault(name, UNDESCRIBED);
  }

  /** A builder for a type's field table. */
  public static Builder builder() {
    return new Builder();
  }

  /** Collects field metadata; confined to the building thread. */
  public static final class Builder {
    private final Map<String, Field> fields = new LinkedHashMap<>();

    private Builder() {}

    /** An untagged field whose value is of type {@code type} (objects merge, lists replace). */
    public Builder field(String name, PatchMeta type) {
      return put(name, new Field(Strategy.DEFAULT, Optional.empty(), false, type));
    }

    /** {@code patchStrategy:"retainKeys"} on an object field (Deployment's {@code strategy}). */
    public Builder retainKeys(String name, PatchMeta type) {
      return put(name, new Field(Strategy.DEFAULT, Optional.empty(), true, type));
    }

    /** {@code patchStrategy:"replace"} on an object field. */
    public Builder replace(String name, PatchMeta type) {
      return put(name, new Field(Strategy.REPLACE, Optional.empty(), false, type));
    }

    /** {@code patchStrategy:"merge" patchMergeKey:"<mergeKey>"} on a list of objects. */
    public Builder mergeList(String name, String mergeKey, PatchMeta elementType) {
      return put(name, new Field(Strategy.MERGE, Optional.of(mergeKey), false, elementType));
    }

    /** {@code patchStrategy:"merge,retainKeys" patchMergeKey:"<mergeKey>"} on a list of objects. */
    public Builder mergeListRetainKeys(String name, String mergeKey, PatchMeta elementType) {
      return put(name, new Field(Strategy.MERGE, Optional.of(mergeKey), true, elementType));
    }

    /** {@code patchStrategy:"merge"} on a list of primitives (a set, e.g. {@code finalizers}). */
    public Builder mergeSet(String name) {
      return put(name, new Field(Strategy.MERGE, Optional.empty(), false, OPAQUE));
    }

    private Builder put(String name, Field field) {
      fields.put(Objects.requireNonNull(name, "name"), field);
      return this;
    }

    /** The immutable metadata. */
    public PatchMeta build() {
      return new PatchMeta(fields);
    }
  }
}
