package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Write semantics exercised in process: generated-name collisions, deletion with finalizers. */
class ResourceOperationsTest {

  /** Real hooks, but generated names come from a script. */
  private static final class ScriptedNames implements ServerHooks {
    private final DefaultServerHooks delegate = new DefaultServerHooks(Clock.systemUTC());
    private final Deque<String> names;

    ScriptedNames(List<String> names) {
      this.names = new ArrayDeque<>(names);
    }

    @Override
    public ObjectNode applyDefaults(ResourceType type, ObjectNode obj, JsonNode previous, ObjectStore store) {
      return delegate.applyDefaults(type, obj, previous, store);
    }

    @Override
    public ObjectNode applyPatch(ResourceType type, String contentType, ObjectNode current, byte[] body) {
      return delegate.applyPatch(type, contentType, current, body);
    }

    @Override
    public Predicate<StoredObject> labelSelector(String selector) {
      return delegate.labelSelector(selector);
    }

    @Override
    public Predicate<StoredObject> fieldSelector(ResourceType type, String selector) {
      return delegate.fieldSelector(type, selector);
    }

    @Override
    public Predicate<Map<String, String>> labelSelectorObject(JsonNode selector) {
      return delegate.labelSelectorObject(selector);
    }

    @Override
    public String generateName(String base) {
      return base + names.removeFirst();
    }
  }

  private static ResourceOperations operations(List<String> names) {
    ResourceOperations ops = new ResourceOperations(new ObjectStore(1000), new ScriptedNames(names),
        Clock.systemUTC());
    ObjectNode ns = Json.object();
    ns.putObject("metadata").put("name", "default");
    ops.create(ResourceTypes.NAMESPACES, "", ns);
    return ops;
  }

  private static ObjectNode configMap(String name, String generateName) {
    ObjectNode cm = Json.object();
    ObjectNode meta = cm.putObject("metadata");
    if (name != null) {
      meta.put("name", name);
    }
    if (generateName != null) {
      meta.put("generateName", generateName);
    }
    return cm;
  }

  @Test
  void aGeneratedNameThatCollidesIsRetriedWithAnother() {
    ResourceOperations ops = operations(List.of("aaaaa", "aaaaa", "bbbbb"));
    ops.create(ResourceTypes.CONFIG_MAPS, "default", configMap(null, "web-"));
    StoredObject second = ops.create(ResourceTypes.CONFIG_MAPS, "default", configMap(null, "web-"));
    assertThat(second.name()).isEqualTo("web-bbbbb");
  }

  @Test
  void generatedNamesThatKeepCollidingEndInAlreadyExists() {
    ResourceOperations ops = operations(List.of("aaaaa", "aaaaa", "aaaaa", "aaaaa", "aaaaa", "aaaaa", "aaaaa",
        "aaaaa", "aaaaa"));
    ops.create(ResourceTypes.CONFIG_MAPS, "default", configMap(null, "web-"));
    assertThatThrownBy(() -> ops.create(ResourceTypes.CONFIG_MAPS, "default", configMap(null, "web-")))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(409));
  }

  @Test
  void orphanDeletionAddsTheOrphanFinalizerAndKeepsTheObject() {
    ResourceOperations ops = operations(List.of());
    ops.create(ResourceTypes.CONFIG_MAPS, "default", configMap("owner", null));
    ResourceOperations.DeleteResult result = ops.delete(ResourceTypes.CONFIG_MAPS, "default", "owner",
        DeleteOptions.withPropagation("Orphan"));
    assertThat(result.removed()).isFalse();
    assertThat(ResourceOperations.finalizers(result.object().tree())).containsExactly("orphan");
    ops.removeFinalizer(ResourceTypes.CONFIG_MAPS, "default", "owner", "orphan");
    assertThat(ops.store().get(ResourceTypes.CONFIG_MAPS, "default", "owner")).isEmpty();
  }

  @Test
  void aDeletePreconditionOnTheUidMustMatch() {
    ResourceOperations ops = operations(List.of());
    ops.create(ResourceTypes.CONFIG_MAPS, "default", configMap("guarded", null));
    DeleteOptions wrongUid = new DeleteOptions(java.util.Optional.empty(), java.util.Optional.empty(),
        java.util.Optional.of("not-the-uid"), java.util.Optional.empty());
    assertThatThrownBy(() -> ops.delete(ResourceTypes.CONFIG_MAPS, "default", "guarded", wrongUid))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(409));
    assertThat(ops.store().get(ResourceTypes.CONFIG_MAPS, "default", "guarded")).isPresent();
  }
}
