package io.berth.embedded.names;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class NameGeneratorTest {

  /** A random source that yields the given indexes into the alphabet, in order. */
  private static RandomGenerator indexes(int... values) {
    int[] next = {0};
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        throw new UnsupportedOperationException("only bounded ints are drawn");
      }

      @Override
      public int nextInt(int bound) {
        assertThat(bound).isEqualTo(NameGenerator.ALPHABET.length());
        return values[next[0]++];
      }
    };
  }

  @Test
  void appendsFiveCharactersFromTheUpstreamAlphabet() {
    NameGenerator generator = new NameGenerator(indexes(0, 1, 2, 25, 26));

    assertThat(generator.generateName("web-7d4b9c-")).isEqualTo("web-7d4b9c-bcd89");
  }

  @Test
  void baseLongerThanFiftyEightCharactersIsCutSoTheNameFitsSixtyThree() {
    String base = "a".repeat(70);

    String name = new NameGenerator(new Random(1)).generateName(base);

    assertThat(name).hasSize(63).startsWith("a".repeat(58));
    assertThat(name.substring(58)).doesNotContain("a");
  }

  @Test
  void baseOfExactlyFiftyEightCharactersIsKept() {
    String base = "b".repeat(58);

    assertThat(new NameGenerator(indexes(3, 3, 3, 3, 3)).generateName(base)).isEqualTo(base + "fffff");
  }

  @Test
  void emptyBaseGivesJustTheSuffix() {
    assertThat(new NameGenerator(indexes(4, 5, 6, 7, 8)).generateName("")).isEqualTo("ghjkl");
  }

  @Test
  void suffixUsesOnlyAlphabetCharacters() {
    NameGenerator generator = new NameGenerator(new Random(42));
    Set<Character> seen = new HashSet<>();

    for (int i = 0; i < 2_000; i++) {
      String suffix = generator.generateName("p-").substring(2);
      assertThat(suffix).hasSize(NameGenerator.RANDOM_LENGTH);
      suffix.chars().forEach(c -> seen.add((char) c));
    }

    assertThat(seen).allMatch(c -> NameGenerator.ALPHABET.indexOf(c) >= 0);
    assertThat(seen).hasSize(NameGenerator.ALPHABET.length());
  }

  @Test
  void defaultGeneratorIsUsableFromManyThreads() throws Exception {
    NameGenerator generator = NameGenerator.create();
    Set<String> names = ConcurrentHashMap.newKeySet();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Thread thread = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        for (int i = 0; i < 500; i++) {
          names.add(generator.generateName("job-"));
        }
      });
      threads.add(thread);
      thread.start();
    }
    start.countDown();
    for (Thread thread : threads) {
      thread.join();
    }

    // 27^5 = 14.3M possible suffixes: 2000 draws collide with probability ~13%, so allow a few
    assertThat(names).hasSizeGreaterThan(1_990).allMatch(n -> n.matches("job-[" + NameGenerator.ALPHABET + "]{5}"));
  }
}
