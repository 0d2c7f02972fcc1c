package io.berth.component;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import org.junit.jupiter.api.Test;

/** When the daemons' clients offer HTTP/2 ({@link KubeHttpClientFactory#offersHttp2}). */
class KubeHttpClientFactoryTest {

  private static Config config(String url) {
    return new ConfigBuilder(Config.empty()).withMasterUrl(url).build();
  }

  @Test
  void httpsServersAreOfferedHttp2() {
    assertThat(KubeHttpClientFactory.offersHttp2(config("https://127.0.0.1:6443"))).isTrue();
    assertThat(KubeHttpClientFactory.forConfig(config("HTTPS://kubernetes.default.svc")).http2()).isTrue();
  }

  @Test
  void plainHttpServersAreNot() {
    assertThat(KubeHttpClientFactory.offersHttp2(config("http://127.0.0.1:8080"))).isFalse();
  }

  @Test
  void theConfigsHttp2DisableTurnsItOff() {
    Config config = config("https://127.0.0.1:6443");
    config.setHttp2Disable(true);
    assertThat(KubeHttpClientFactory.offersHttp2(config)).isFalse();
  }

  @Test
  void fabric8sSystemPropertyTurnsItOffForEveryConfig() {
    String previous = System.getProperty(Config.KUBERNETES_HTTP2_DISABLE);
    System.setProperty(Config.KUBERNETES_HTTP2_DISABLE, "true");
    try {
      assertThat(KubeHttpClientFactory.offersHttp2(config("https://127.0.0.1:6443"))).isFalse();
    } finally {
      if (previous == null) {
        System.clearProperty(Config.KUBERNETES_HTTP2_DISABLE);
      } else {
        System.setProperty(Config.KUBERNETES_HTTP2_DISABLE, previous);
      }
    }
    assertThat(KubeHttpClientFactory.offersHttp2(config("https://127.0.0.1:6443"))).isTrue();
  }
}
