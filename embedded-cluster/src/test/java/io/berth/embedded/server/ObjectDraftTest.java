package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * A version serialized before the lock and stamped under it is byte for byte what serializing the stamped tree
 * gives, including when the placeholder shows up elsewhere in the object; a deletion's tombstone likewise.
 */
class ObjectDraftTest {

  private static ObjectNode pod(String name) {
    ObjectNode o = Json.object();
    o.put("apiVersion", "v1");
    o.put("kind", "Pod");
    o.putObject("spec").putArray("containers").addObject().put("name", "main").put("image", "nginx");
    ObjectNode meta = o.putObject("metadata");
    meta.put("name", name);
    meta.put("namespace", "default");
    meta.putObject("annotations").put("note", "resourceVersion \"7\" ünïcödé");
    return o;
  }

  private static String placeholder() throws ReflectiveOperationException {
    Field f = ObjectDraft.class.getDeclaredField("PLACEHOLDER");
    f.setAccessible(true);
    return (String) f.get(null);
  }

  @Test
  void aStampedDraftIsTheSerializedStampedTree() {
    for (long rv : new long[] {1, 9, 10, 12_345, Long.MAX_VALUE}) {
      ObjectNode tree = pod("p");
      StoredObject stored = new ObjectDraft(ResourceTypes.PODS, tree).stamp(rv);
      assertThat(stored.resourceVersion()).isEqualTo(rv);
      assertThat(Json.text(stored.tree(), "metadata", "resourceVersion")).isEqualTo(Long.toString(rv));
      ObjectNode expected = pod("p");
      Json.metadata(expected).put("resourceVersion", Long.toString(rv));
      assertThat(new String(stored.json(), StandardCharsets.UTF_8))
          .isEqualTo(new String(Json.bytes(expected), StandardCharsets.UTF_8));
    }
  }

  @Test
  void anObjectThatCarriesThePlaceholderIsSerializedAgainWhenStamped() throws Exception {
    ObjectNode tree = pod("p");
    Json.objectAt(tree, "metadata", "annotations").put("copied", placeholder());
    StoredObject stored = new ObjectDraft(ResourceTypes.PODS, tree).stamp(42);
    ObjectNode expected = pod("p");
    Json.objectAt(expected, "metadata", "annotations").put("copied", placeholder());
    Json.metadata(expected).put("resourceVersion", "42");
    assertThat(stored.json()).isEqualTo(Json.bytes(expected));
  }

  @Test
  void aTombstoneIsTheLastStateAtTheDeletionsVersion() {
    StoredObject stored = new ObjectDraft(ResourceTypes.PODS, pod("p")).stamp(41);
    StoredObject tombstone = stored.restamped(1_000);
    ObjectNode expected = pod("p");
    Json.metadata(expected).put("resourceVersion", "1000");
    assertThat(tombstone.json()).isEqualTo(Json.bytes(expected));
    assertThat(tombstone.resourceVersion()).isEqualTo(1_000);
    assertThat(tombstone.key()).isEqualTo(stored.key());
    assertThat(tombstone.labels()).isEqualTo(stored.labels());
    assertThat(tombstone.tree()).isEqualTo(expected);
  }

  @Test
  void aTombstoneWhoseVersionAppearsTwiceIsSerializedAgain() {
    ObjectNode tree = pod("p");
    // an Event-like object naming the same version elsewhere
    tree.putObject("involvedObject").put("resourceVersion", "41");
    StoredObject stored = new ObjectDraft(ResourceTypes.PODS, tree).stamp(41);
    StoredObject tombstone = stored.restamped(50);
    assertThat(Json.text(tombstone.tree(), "metadata", "resourceVersion")).isEqualTo("50");
    assertThat(Json.text(tombstone.tree(), "involvedObject", "resourceVersion")).isEqualTo("41");
  }

  @Test
  void onlyOccurrenceFindsASingleMatchAndRefusesRepeats() {
    byte[] needle = "abc".getBytes(StandardCharsets.US_ASCII);
    assertThat(ObjectDraft.onlyOccurrence("xxabcxx".getBytes(StandardCharsets.US_ASCII), needle)).isEqualTo(2);
    assertThat(ObjectDraft.onlyOccurrence("abcxabc".getBytes(StandardCharsets.US_ASCII), needle)).isEqualTo(-1);
    assertThat(ObjectDraft.onlyOccurrence("ababab".getBytes(StandardCharsets.US_ASCII), needle)).isEqualTo(-1);
    assertThat(ObjectDraft.onlyOccurrence("ab".getBytes(StandardCharsets.US_ASCII), needle)).isEqualTo(-1);
    assertThat(ObjectDraft.onlyOccurrence("aabc".getBytes(StandardCharsets.US_ASCII), needle)).isEqualTo(1);
  }

  @Test
  void anObjectWithoutANameIsRefusedBeforeTheLock() {
    ObjectNode tree = pod("p");
    Json.metadata(tree).remove("name");
    assertThatThrownBy(() -> new ObjectDraft(ResourceTypes.PODS, tree))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("metadata.name");
  }
}
