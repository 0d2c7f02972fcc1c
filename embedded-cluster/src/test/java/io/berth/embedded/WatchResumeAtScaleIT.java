package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.embedded.server.StoredObject;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Watch resumption with 100,000 objects of one type in the store (loaded in bulk) and a history of 20,000 events:
 * a watch over HTTP from a resourceVersion inside the history gets exactly the events after it, in order, and one
 * from before the history's start gets 410 Gone.
 */
class WatchResumeAtScaleIT {

  private static final int OBJECTS = 100_000;
  private static final int HISTORY = 20_000;
  private static final int BATCH = 10_000;
  private static final String NS = "resume";

  @RegisterExtension
  static final EmbeddedClusterExtension CLUSTER = new EmbeddedClusterExtension(() -> EmbeddedCluster.builder()
      .historyCapacity(HISTORY));

  // the resourceVersion of the i-th object created, filled once by load()
  private static final long[] VERSIONS = new long[OBJECTS];

  @BeforeAll
  static void load() {
    CLUSTER.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata()
        .build()).create();
    for (int from = 0; from < OBJECTS; from += BATCH) {
      List<ConfigMap> batch = new ArrayList<>(BATCH);
      for (int i = from; i < from + BATCH; i++) {
        batch.add(new ConfigMapBuilder().withNewMetadata().withName(name(i)).withNamespace(NS).endMetadata()
            .addToData("index", Integer.toString(i)).build());
      }
      List<StoredObject> stored = CLUSTER.cluster().createAll(batch);
      for (int i = 0; i < stored.size(); i++) {
        VERSIONS[from + i] = stored.get(i).resourceVersion();
      }
    }
  }

  private static String name(int i) {
    return String.format("cm-%06d", i);
  }

  private static String watchUrl(long rv) {
    return CLUSTER.cluster().url() + "/api/v1/namespaces/" + NS + "/configmaps?watch=true&resourceVersion=" + rv;
  }

  @Test
  void theStoreHoldsEveryObject() {
    assertThat(CLUSTER.cluster().store().count(io.berth.embedded.server.ResourceTypes.CONFIG_MAPS))
        .isEqualTo(OBJECTS);
    assertThat(CLUSTER.client().configMaps().inNamespace(NS).withName(name(OBJECTS - 1)).get().getData())
        .containsEntry("index", Integer.toString(OBJECTS - 1));
  }

  @Test
  void aWatchFromInsideTheHistoryGetsExactlyTheLaterEventsInOrder() throws Exception {
    int resumeAfter = OBJECTS - 15_000;
    List<String> expected = new ArrayList<>();
    for (int i = resumeAfter + 1; i < OBJECTS; i++) {
      expected.add("ADDED:" + name(i));
    }
    try (HttpWatch watch = new HttpWatch(watchUrl(VERSIONS[resumeAfter]))) {
      Awaitility.await().atMost(60, TimeUnit.SECONDS).until(() -> watch.summary().size() >= expected.size());
      assertThat(watch.summary()).containsExactlyElementsOf(expected);
      assertThat(watch.lastResourceVersion()).isEqualTo(Long.toString(VERSIONS[OBJECTS - 1]));
    }
  }

  @Test
  void aWatchFromBeforeTheHistoryGets410Gone() throws Exception {
    try (HttpWatch watch = new HttpWatch(watchUrl(VERSIONS[OBJECTS - HISTORY - 10]))) {
      Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> watch.ended);
      assertThat(watch.events).hasSize(1);
      assertThat(watch.events.get(0).path("type").asString()).isEqualTo("ERROR");
      assertThat(watch.events.get(0).path("object").path("code").asInt()).isEqualTo(410);
    }
  }
}
