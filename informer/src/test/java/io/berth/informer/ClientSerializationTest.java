package io.berth.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.ObjectReader;

/** The readers decode as fabric8's own serialization does, skip managedFields on request, and are shared safely. */
class ClientSerializationTest {

  private static final KubernetesSerialization FABRIC8 = new KubernetesSerialization();

  private static Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("ns").withResourceVersion("7")
        .withLabels(Map.of("app", "web")).withUid("uid-" + name)
        .withManagedFields(new ManagedFieldsEntryBuilder().withManager("kubectl").withOperation("Update")
            .withApiVersion("v1").withFieldsType("FieldsV1")
            .withNewFieldsV1().addToAdditionalProperties("f:metadata", Map.of("f:labels", Map.of())).endFieldsV1()
            .build())
        .endMetadata()
        .withNewSpec().withNodeName("n1").addNewContainer().withName("c").withImage("nginx")
        .withNewResources().addToRequests("cpu", new Quantity("100m")).endResources().endContainer().endSpec()
        .withNewStatus().withPhase("Running").endStatus()
        .build();
  }

  @Test
  void decodesAsFabric8sDefaultSerialization() {
    ClientSerialization json = new ClientSerialization();
    String text = FABRIC8.asJson(pod("a"));
    Pod mine = json.reader(Pod.class, false).readValue(text);
    assertThat(mine).isEqualTo(FABRIC8.unmarshal(text, Pod.class));
    assertThat(mine.getMetadata().getManagedFields()).hasSize(1);
    // and it is a KubernetesSerialization like any other: fabric8's own calls work on it
    assertThat(json.unmarshal(text, Pod.class)).isEqualTo(mine);
    assertThat(json.asJson(mine)).isEqualTo(FABRIC8.asJson(mine));
  }

  @Test
  void theSkippingReaderLeavesOutManagedFieldsAndNothingElse() {
    ClientSerialization json = new ClientSerialization();
    String text = FABRIC8.asJson(pod("b"));
    Pod skipped = json.reader(Pod.class, true).readValue(text);
    assertThat(skipped.getMetadata().getManagedFields()).isEmpty();
    assertThat(skipped.getMetadata().getAdditionalProperties()).doesNotContainKey("managedFields");
    Pod expected = FABRIC8.unmarshal(text, Pod.class);
    expected.getMetadata().setManagedFields(new ArrayList<>());
    assertThat(skipped).isEqualTo(expected);
  }

  @Test
  void readersAreCachedPerClassAndSkipSetting() {
    ClientSerialization json = new ClientSerialization();
    assertThat(json.reader(Pod.class, false)).isSameAs(json.reader(Pod.class, false))
        .isNotSameAs(json.reader(Pod.class, true));
    assertThat(json.reader(Node.class, true)).isSameAs(json.reader(Node.class, true));
    assertThat(ClientSerialization.shared()).isSameAs(ClientSerialization.shared());
  }

  @Test
  void manyThreadsShareOneReaderPerClassAndDecodeCorrectly() throws Exception {
    ClientSerialization json = new ClientSerialization();
    int threads = 8;
    int perThread = 500;
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      texts.add(FABRIC8.asJson(pod("p-" + i)));
    }
    Set<ObjectReader> podReaders = ConcurrentHashMap.newKeySet();
    Set<ObjectReader> skippingReaders = ConcurrentHashMap.newKeySet();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int seed = t;
        results.add(pool.submit(() -> {
          start.await();
          int ok = 0;
          for (int i = 0; i < perThread; i++) {
            boolean skip = (i + seed) % 2 == 0;
            ObjectReader reader = json.reader(Pod.class, skip);
            (skip ? skippingReaders : podReaders).add(reader);
            int k = (i * 7 + seed) % texts.size();
            Pod pod = reader.readValue(texts.get(k));
            if (pod.getMetadata().getName().equals("p-" + k)
                && pod.getMetadata().getManagedFields().size() == (skip ? 0 : 1)
                && "n1".equals(pod.getSpec().getNodeName())) {
              ok++;
            }
          }
          return ok;
        }));
      }
      start.countDown();
      for (Future<Integer> result : results) {
        assertThat(result.get(60, TimeUnit.SECONDS)).isEqualTo(perThread);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(podReaders).hasSize(1);
    assertThat(skippingReaders).hasSize(1);
  }
}
