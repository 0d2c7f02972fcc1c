package io.berth.scheduler.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StreamRecorderTest {
  @TempDir
  Path dir;

  private static Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withNamespace("ns").withName(name).withUid("uid-" + name)
        .withResourceVersion("7")
        .withManagedFields(new ManagedFieldsEntryBuilder().withManager("kubectl").withOperation("Apply")
            .build())
        .endMetadata().withNewSpec().addNewContainer().withName("c").withImage("pause")
        .withNewResources().addToRequests("cpu", new Quantity("250m")).endResources().endContainer()
        .endSpec().build();
  }

  @Test
  void writesEachEventAsOneLineWithoutManagedFieldsAndReadsItBack() throws Exception {
    Path file = dir.resolve("rec.jsonl");
    StreamRecorder recorder = new StreamRecorder(file, 16, InstantSource.fixed(Instant.EPOCH));
    var handler = recorder.<Pod>handler("Pod", "v1");
    handler.onAdd(pod("a"), true);
    handler.onUpdate(pod("a"), new PodBuilder(pod("a")).editSpec().withNodeName("n1").endSpec().build());
    recorder.<Node>handler("Node", "v1").onAdd(new NodeBuilder().withNewMetadata().withName("n1")
        .endMetadata().build(), true);
    handler.onDelete(pod("a"), false);
    recorder.close();

    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    assertThat(lines).hasSize(4);
    assertThat(lines.get(0)).startsWith("{\"t\":0,\"type\":\"ADDED\",\"kind\":\"Pod\",\"apiVersion\":\"v1\"")
        .doesNotContain("managedFields").contains("\"cpu\":\"250m\"");
    List<RecordedEvent> events = RecordingReader.readAll(file);
    assertThat(events).extracting(RecordedEvent::type).containsExactly(RecordedEvent.Type.ADDED,
        RecordedEvent.Type.MODIFIED, RecordedEvent.Type.ADDED, RecordedEvent.Type.DELETED);
    assertThat(events.get(1).object()).isInstanceOf(Pod.class);
    assertThat(((Pod) events.get(1).object()).getSpec().getNodeName()).isEqualTo("n1");
    assertThat(events.get(2).object()).isInstanceOf(Node.class);
    assertThat(events.get(0).key()).isEqualTo("ns/a");
    assertThat(events.get(2).key()).isEqualTo("n1");
    assertThat(recorder.written()).isEqualTo(4);
    assertThat(recorder.dropped()).isZero();
  }

  @Test
  void aGzipFileAppendsAcrossRunsAndReadsAsOneStream() throws Exception {
    Path file = dir.resolve("rec.jsonl.gz");
    for (int run = 0; run < 2; run++) {
      StreamRecorder recorder = StreamRecorder.open(file);
      recorder.record(RecordedEvent.Type.ADDED, "Pod", "v1", pod("p" + run));
      recorder.close();
    }
    assertThat(Files.readAllBytes(file)[0] & 0xff).isEqualTo(0x1f); // gzip magic
    assertThat(RecordingReader.readAll(file)).extracting(RecordedEvent::key)
        .containsExactly("ns/p0", "ns/p1");
  }

  @Test
  void manyThreadsRecordingConcurrentlyLoseNothingThatWasAcceptedAndCountEveryDrop() throws Exception {
    Path file = dir.resolve("concurrent.jsonl");
    int threads = 8;
    int perThread = 500;
    // a small buffer so that drops happen while the writer is busy
    StreamRecorder recorder = new StreamRecorder(file, 64, InstantSource.system());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CyclicBarrier start = new CyclicBarrier(threads);
    CountDownLatch done = new CountDownLatch(threads);
    AtomicLong accepted = new AtomicLong();
    AtomicLong rejected = new AtomicLong();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      pool.execute(() -> {
        try {
          start.await();
          for (int i = 0; i < perThread; i++) {
            if (recorder.record(RecordedEvent.Type.ADDED, "Pod", "v1", pod("t" + thread + "-" + i))) {
              accepted.incrementAndGet();
            } else {
              rejected.incrementAndGet();
            }
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        } finally {
          done.countDown();
        }
      });
    }
    assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
    pool.shutdown();
    recorder.close();

    assertThat(accepted.get() + rejected.get()).isEqualTo((long) threads * perThread);
    assertThat(recorder.recorded()).isEqualTo(accepted.get());
    assertThat(recorder.dropped()).isEqualTo(rejected.get());
    assertThat(recorder.written()).isEqualTo(accepted.get());
    List<RecordedEvent> events = RecordingReader.readAll(file);
    assertThat(events).hasSize((int) accepted.get());
    Set<String> keys = new HashSet<>();
    events.forEach(e -> keys.add(e.key()));
    assertThat(keys).as("no event written twice").hasSize(events.size());
    // one thread's accepted events keep their order: the buffer is FIFO and the writer is single
    for (int t = 0; t < threads; t++) {
      String prefix = "ns/t" + t + "-";
      List<Integer> seq = events.stream().map(RecordedEvent::key).filter(k -> k.startsWith(prefix))
          .map(k -> Integer.parseInt(k.substring(prefix.length()))).toList();
      assertThat(seq).isSorted();
    }
  }

  @Test
  void aClosedRecorderDropsInsteadOfWriting() throws Exception {
    StreamRecorder recorder = StreamRecorder.open(dir.resolve("closed.jsonl"));
    recorder.close();
    assertThat(recorder.record(RecordedEvent.Type.ADDED, "Pod", "v1", pod("late"))).isFalse();
    assertThat(recorder.dropped()).isEqualTo(1);
  }

  @Test
  void aBadLineIsAnErrorNamingTheFileTheLineAndTheField() throws Exception {
    Path file = dir.resolve("bad.jsonl");
    StreamRecorder recorder = StreamRecorder.open(file);
    recorder.record(RecordedEvent.Type.ADDED, "Pod", "v1", pod("ok"));
    recorder.close();
    Files.writeString(file, "{\"t\":5,\"type\":\"UPSERTED\",\"kind\":\"Pod\",\"object\":{}}\n",
        java.nio.file.StandardOpenOption.APPEND);
    assertThatThrownBy(() -> RecordingReader.readAll(file))
        .isInstanceOf(RecordingReader.BadRecordingException.class)
        .hasMessageContaining("bad.jsonl: line 2: field \"type\" must be ADDED, MODIFIED or DELETED");
    assertThatThrownBy(() -> RecordingReader.readAll(dir.resolve("missing.jsonl")))
        .hasMessageContaining("missing.jsonl: no such file");
  }
}
