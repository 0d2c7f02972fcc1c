package io.berth.bench.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcThreadsCpuTest {
  @Test
  void groupsThreadsByWhatTheyDoFromTheirCutNames() {
    assertThat(ProcThreadsCpu.group("scheduler-loop")).isEqualTo("loop");
    assertThat(ProcThreadsCpu.group("scheduler-paral")).isEqualTo("parallelizer");
    assertThat(ProcThreadsCpu.group("binding-cycle-1")).isEqualTo("binding");
    assertThat(ProcThreadsCpu.group("C1 CompilerThre")).isEqualTo("C1");
    assertThat(ProcThreadsCpu.group("C2 CompilerThre")).isEqualTo("C2");
    assertThat(ProcThreadsCpu.group("GC Thread#1")).isEqualTo("GC+VM");
    assertThat(ProcThreadsCpu.group("VM Thread")).isEqualTo("GC+VM");
    assertThat(ProcThreadsCpu.group("main")).isEqualTo("main");
    assertThat(ProcThreadsCpu.group("harness-churn")).isEqualTo("other");
  }

  @Test
  void differenceIsPerGroupAndPerPodSumsTheGroups() {
    ProcThreadsCpu.Sample earlier = new ProcThreadsCpu.Sample(Map.of("loop", 1_000_000L, "C2", 0L));
    ProcThreadsCpu.Sample later = new ProcThreadsCpu.Sample(Map.of("loop", 3_000_000L, "C2", 4_000_000L,
        "binding", 2_000_000L));
    ProcThreadsCpu.Sample d = later.minus(earlier);
    assertThat(d.nanosByGroup()).containsExactlyInAnyOrderEntriesOf(Map.of("loop", 2_000_000L, "C2", 4_000_000L,
        "binding", 2_000_000L));
    assertThat(d.perPod(2)).isEqualTo("C2 2.000, binding 1.000, loop 1.000, all 4.000 ms per pod");
  }

  @Test
  void readsThisJvmsCompilerThreadsWhereProcExists() {
    if (!Files.isDirectory(Path.of("/proc/self/task"))) {
      assertThat(ProcThreadsCpu.now().nanosByGroup()).isEmpty();
      return;
    }
    // the JIT's threads are hidden from ThreadMXBean but listed in /proc
    assertThat(ProcThreadsCpu.now().nanosByGroup()).containsKeys("C1", "C2", "GC+VM");
  }
}
