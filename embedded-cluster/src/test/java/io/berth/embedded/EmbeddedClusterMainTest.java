package io.berth.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The command line of the embedded cluster process. */
class EmbeddedClusterMainTest {

  @Test
  void rbacIsOffByDefaultAndABareFlagTurnsItOn() {
    assertThat(EmbeddedClusterMain.Options.parse(new String[] {"--port", "6443"}).rbac()).isFalse();
    EmbeddedClusterMain.Options on = EmbeddedClusterMain.Options.parse(new String[] {"--rbac", "--nodes", "2"});
    assertThat(on.rbac()).isTrue();
    assertThat(on.nodes()).isEqualTo(2);
    assertThat(EmbeddedClusterMain.Options.parse(new String[] {"--nodes=1", "--rbac"}).rbac()).isTrue();
    assertThat(EmbeddedClusterMain.Options.parse(new String[] {"--rbac=false"}).rbac()).isFalse();
    EmbeddedClusterMain.Options tls = EmbeddedClusterMain.Options.parse(new String[] {"--tls", "--rbac"});
    assertThat(tls.tls()).isTrue();
    assertThat(tls.rbac()).isTrue();
    assertThat(on.tls()).isFalse();
    assertThatThrownBy(() -> EmbeddedClusterMain.Options.parse(new String[] {"--rbac=yes"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--rbac needs true or false");
  }

  @Test
  void gpusFlagGivesEveryNodeThatManyDevicesOfTheModel() {
    EmbeddedClusterMain.Options none = EmbeddedClusterMain.Options.parse(new String[] {});
    assertThat(none.gpus().count()).isZero();
    EmbeddedClusterMain.Options eight = EmbeddedClusterMain.Options.parse(new String[] {"--gpus", "8",
        "--gpu-model=h100"});
    assertThat(eight.gpus()).isEqualTo(new GpuSpec(8, "h100", GpuSpec.DEFAULT_MEMORY));
    assertThatThrownBy(() -> EmbeddedClusterMain.Options.parse(new String[] {"--gpus", "129"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--gpus: count must be between 0 and 128");
  }
}
