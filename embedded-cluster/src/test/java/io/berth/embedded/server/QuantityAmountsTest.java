package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class QuantityAmountsTest {

  @ParameterizedTest
  @ValueSource(strings = {"100m", "64Mi", "1", "2.5", "1Gi", "500k", "1e3", "0", "1500m", "3Ei"})
  void amountsAreFabric8sAndRepeatTheSame(String quantity) {
    BigDecimal expected = Quantity.getAmountInBytes(new Quantity(quantity));
    assertThat(QuantityAmounts.of(quantity)).isEqualByComparingTo(expected);
    assertThat(QuantityAmounts.of(quantity)).isEqualByComparingTo(expected);
  }

  @Test
  void anUnparseableQuantityFailsEveryTime() {
    assertThatThrownBy(() -> QuantityAmounts.of("12 apples")).isInstanceOf(RuntimeException.class);
    assertThatThrownBy(() -> QuantityAmounts.of("12 apples")).isInstanceOf(RuntimeException.class);
  }

  @Test
  void manyDistinctQuantitiesStayCorrectBeyondTheCapacity() {
    for (int i = 0; i < QuantityAmounts.CAPACITY + 500; i++) {
      assertThat(QuantityAmounts.of(i + "m")).isEqualByComparingTo(BigDecimal.valueOf(i).movePointLeft(3));
    }
  }

  @Test
  void concurrentCallersGetTheSameAmounts() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int offset = t;
        Callable<Integer> task = () -> {
          int checked = 0;
          for (int i = 0; i < 2_000; i++) {
            int value = (i * 7 + offset) % 600;
            assertThat(QuantityAmounts.of(value + "Ki")).isEqualByComparingTo(BigDecimal.valueOf(value * 1024L));
            checked++;
          }
          return checked;
        };
        results.add(pool.submit(task));
      }
      for (Future<Integer> f : results) {
        assertThat(f.get()).isEqualTo(2_000);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
