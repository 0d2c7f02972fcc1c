package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** The binding subresource in process: ClearingNominatedNodeNameAfterBinding on and off. */
class PodSubresourcesTest {
  private final ResourceOperations ops = new ResourceOperations(new ObjectStore(1000),
      new DefaultServerHooks(Clock.systemUTC()), Clock.systemUTC());

  private void createNominatedPod(String name, String nominatedNode) {
    ObjectNode ns = Json.object();
    ns.putObject("metadata").put("name", "default");
    ops.create(ResourceTypes.NAMESPACES, "", ns);
    ObjectNode pod = Json.object();
    pod.putObject("metadata").put("name", name);
    pod.putObject("spec").putArray("containers").addObject().put("name", "c").put("image", "pause");
    ops.create(ResourceTypes.PODS, "default", pod);
    // As a status write would: create resets the status.
    ObjectStore store = ops.store();
    store.write(() -> {
      ObjectNode next = ops.get(ResourceTypes.PODS, "default", name).copy();
      Json.objectAt(next, "status").put("nominatedNodeName", nominatedNode);
      return store.put(ResourceTypes.PODS, next);
    });
    assertThat(Json.text(ops.get(ResourceTypes.PODS, "default", name).tree(), "status",
        "nominatedNodeName")).isEqualTo(nominatedNode);
  }

  private static ObjectNode binding(String pod, String node) {
    ObjectNode b = Json.object();
    b.putObject("metadata").put("name", pod);
    b.putObject("target").put("kind", "Node").put("name", node);
    return b;
  }

  @Test
  void bindingClearsTheNominatedNodeNameByDefaultAsV136() {
    createNominatedPod("p", "n1");

    StoredObject bound = new PodSubresources(ops).bind("default", "p", binding("p", "n1"));

    assertThat(Json.text(bound.tree(), "spec", "nodeName")).isEqualTo("n1");
    assertThat(bound.tree().path("status").has("nominatedNodeName")).isFalse();
    assertThat(ops.get(ResourceTypes.PODS, "default", "p").tree().path("status")
        .has("nominatedNodeName")).isFalse();
  }

  @Test
  void withTheGateOffBindingKeepsTheNominatedNodeName() {
    createNominatedPod("p", "n2");

    StoredObject bound = new PodSubresources(ops, false).bind("default", "p", binding("p", "n1"));

    assertThat(Json.text(bound.tree(), "spec", "nodeName")).isEqualTo("n1");
    assertThat(Json.text(bound.tree(), "status", "nominatedNodeName")).isEqualTo("n2");
  }
}
