package io.berth.informer;

import static io.berth.informer.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ThreadSafeStoreTest {

  private static final String BY_NODE = "byNode";
  private static final String BY_LABEL = "byLabel";

  private ThreadSafeStore<Pod> store;

  @BeforeEach
  void setUp() {
    store = ThreadSafeStore.withNamespaceIndex();
    store.addIndexers(Map.of(BY_NODE, p -> List.of(Pods.nodeName(p))));
  }

  @Test
  void addThenGetByObjectAndKey() {
    Pod web = pod("ns1", "web", "1");
    store.add(web);
    assertThat(store.get(pod("ns1", "web", "9"))).containsSame(web);
    assertThat(store.getByKey("ns1/web")).containsSame(web);
    assertThat(store.getByKey("ns2/web")).isEmpty();
    assertThat(store.listKeys()).containsExactly("ns1/web");
    assertThat(store.list()).containsExactly(web);
  }

  @Test
  void updateReplacesObjectUnderSameKey() {
    store.add(pod("ns1", "web", "1"));
    Pod newer = pod("ns1", "web", "2");
    store.update(newer);
    assertThat(store.list()).containsExactly(newer);
  }

  @Test
  void namespaceIndexIsBuiltIn() {
    store.add(pod("ns1", "a", "1"));
    store.add(pod("ns1", "b", "1"));
    store.add(pod("ns2", "c", "1"));
    assertThat(store.indexKeys(Indexer.NAMESPACE_INDEX, "ns1")).containsExactlyInAnyOrder("ns1/a", "ns1/b");
    assertThat(store.byIndex(Indexer.NAMESPACE_INDEX, "ns2")).extracting(p -> p.getMetadata().getName())
        .containsExactly("c");
    assertThat(store.listIndexFuncValues(Indexer.NAMESPACE_INDEX)).containsExactlyInAnyOrder("ns1", "ns2");
  }

  @Test
  void updateMovingIndexValueLeavesNoStaleEntry() {
    store.add(pod("ns1", "a", "1", "node-1"));
    store.update(pod("ns1", "a", "2", "node-2"));
    assertThat(store.byIndex(BY_NODE, "node-1")).isEmpty();
    assertThat(store.indexKeys(BY_NODE, "node-2")).containsExactly("ns1/a");
    assertThat(store.listIndexFuncValues(BY_NODE)).containsExactly("node-2");
  }

  @Test
  void deleteRemovesIndexEntriesAndEmptyValues() {
    store.add(pod("ns1", "a", "1", "node-1"));
    store.add(pod("ns1", "b", "1", "node-1"));
    store.delete(pod("ns1", "a", "1", "node-1"));
    assertThat(store.indexKeys(BY_NODE, "node-1")).containsExactly("ns1/b");
    store.delete(pod("ns1", "b", "7"));
    assertThat(store.listIndexFuncValues(BY_NODE)).isEmpty();
    assertThat(store.listIndexFuncValues(Indexer.NAMESPACE_INDEX)).isEmpty();
    assertThat(store.list()).isEmpty();
  }

  @Test
  void deleteOfUnknownKeyIsHarmless() {
    store.add(pod("ns1", "a", "1", "node-1"));
    store.delete(pod("ns1", "zzz", "1", "node-1"));
    assertThat(store.indexKeys(BY_NODE, "node-1")).containsExactly("ns1/a");
  }

  @Test
  void replaceRebuildsContentAndIndexes() {
    store.add(pod("ns1", "a", "1", "node-1"));
    store.add(pod("ns1", "b", "1", "node-1"));
    store.replace(List.of(pod("ns2", "b", "2", "node-2"), pod("ns1", "c", "2", "node-3")), "5");
    assertThat(store.listKeys()).containsExactlyInAnyOrder("ns2/b", "ns1/c");
    assertThat(store.listIndexFuncValues(BY_NODE)).containsExactlyInAnyOrder("node-2", "node-3");
    assertThat(store.indexKeys(Indexer.NAMESPACE_INDEX, "ns1")).containsExactly("ns1/c");
    assertThat(store.byIndex(BY_NODE, "node-1")).isEmpty();
  }

  @Test
  void indexReturnsObjectsSharingAnyValueOfTheGivenObject() {
    ThreadSafeStore<Pod> labelled = new ThreadSafeStore<>(Map.of(BY_LABEL,
        p -> p.getMetadata().getLabels() == null ? List.of() : List.copyOf(p.getMetadata().getLabels().values())));
    labelled.add(withLabels(pod("ns", "a", "1"), Map.of("x", "red")));
    labelled.add(withLabels(pod("ns", "b", "1"), Map.of("x", "blue", "y", "green")));
    labelled.add(withLabels(pod("ns", "c", "1"), Map.of("x", "green")));
    labelled.add(pod("ns", "unlabelled", "1"));
    Pod probe = withLabels(pod("ns", "probe", "1"), Map.of("p", "red", "q", "green"));
    assertThat(labelled.index(BY_LABEL, probe)).extracting(p -> p.getMetadata().getName())
        .containsExactlyInAnyOrder("a", "b", "c");
    assertThat(labelled.listIndexFuncValues(BY_LABEL)).containsExactlyInAnyOrder("red", "blue", "green");
  }

  @Test
  void unknownIndexIsAnError() {
    assertThatThrownBy(() -> store.byIndex("nope", "x")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.indexKeys("nope", "x")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.listIndexFuncValues("nope")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void indexersCanOnlyBeAddedToAnEmptyStore() {
    store.add(pod("ns1", "a", "1"));
    assertThatThrownBy(() -> store.addIndexers(Map.of("late", p -> List.of("x"))))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void conflictingIndexNameIsRejected() {
    assertThatThrownBy(() -> store.addIndexers(Map.of(Indexer.NAMESPACE_INDEX, p -> List.of("x"))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store.getIndexers()).containsOnlyKeys(Indexer.NAMESPACE_INDEX, BY_NODE);
  }

  @Test
  void listsAreSnapshotsTheCallerOwns() {
    store.add(pod("ns1", "a", "1"));
    List<Pod> snapshot = store.list();
    store.add(pod("ns1", "b", "1"));
    assertThat(snapshot).hasSize(1);
    snapshot.clear();
    assertThat(store.list()).hasSize(2);
  }

  private static Pod withLabels(Pod pod, Map<String, String> labels) {
    return new PodBuilder(pod).editMetadata().withLabels(labels).endMetadata().build();
  }
}
