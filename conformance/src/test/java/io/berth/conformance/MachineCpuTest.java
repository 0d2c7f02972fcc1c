package io.berth.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MachineCpuTest {

  @Test
  void busyIsEverythingButIdleAndIowait() {
    MachineCpu cpu = MachineCpu.parse("""
        cpu  100 20 30 400 50 6 7 8 0 0
        cpu0 50 10 15 200 25 3 3 4 0 0
        cpu1 50 10 15 200 25 3 4 4 0 0
        intr 1 2 3
        """);
    assertEquals(2, cpu.cores());
    assertEquals((100 + 20 + 30 + 6 + 7 + 8) / 100.0, cpu.busySeconds(), 1e-9);
    assertEquals((100 + 20 + 30 + 400 + 50 + 6 + 7 + 8) / 100.0, cpu.totalSeconds(), 1e-9);
  }

  @Test
  void aWindowIsTheDifferenceOfTwoReadings() {
    MachineCpu before = MachineCpu.parse("cpu 100 0 0 100 0 0 0 0\ncpu0 1\n");
    MachineCpu after = MachineCpu.parse("cpu 250 0 50 200 0 0 0 0\ncpu0 1\n");
    MachineCpu window = after.minus(before);
    assertEquals(2.0, window.busySeconds(), 1e-9);
    assertEquals(3.0, window.totalSeconds(), 1e-9);
  }

  @Test
  void theLiveMachineReadsAndOnlyGrows() {
    MachineCpu first = MachineCpu.read();
    assertTrue(first.cores() >= 1, "cores: " + first.cores());
    assertTrue(MachineCpu.read().minus(first).totalSeconds() >= 0);
  }

  @Test
  void textWithoutTheAggregateLineIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> MachineCpu.parse("cpu0 1 2 3 4\n"));
  }
}
