package io.berth.embedded.names;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UidsTest {

  @Test
  void isARandomVersionFourUuidInItsTextForm() {
    for (int i = 0; i < 1_000; i++) {
      String uid = Uids.random();
      assertThat(uid).matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
      UUID parsed = UUID.fromString(uid);
      assertThat(parsed.version()).isEqualTo(4);
      assertThat(parsed.variant()).isEqualTo(2);
    }
  }

  @Test
  void concurrentCallersNeverGetTheSameUid() throws Exception {
    Set<String> seen = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        futures.add(pool.submit(() -> {
          for (int i = 0; i < 25_000; i++) {
            seen.add(Uids.random());
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(seen).hasSize(200_000);
  }
}
