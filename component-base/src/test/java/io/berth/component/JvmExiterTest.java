package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JvmExiterTest {

  @Test
  void aRunningJvmIsNotShuttingDown() {
    // The probe registers and removes a hook; it must leave no hook behind and answer false while the JVM runs.
    assertThat(JvmExiter.shuttingDown()).isFalse();
    assertThat(JvmExiter.shuttingDown()).isFalse();
  }

  @Test
  void theSystemExiterIsTheJvmOne() {
    assertThat(Exiter.SYSTEM).isSameAs(JvmExiter.INSTANCE);
  }
}
