package io.berth.bench.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class WatchEventHeadTest {

  private static WatchEventHead event(String json) {
    byte[] bytes = ("xx" + json + "yy").getBytes(StandardCharsets.UTF_8);
    return WatchEventHead.ofEvent(bytes, 2, bytes.length - 4);
  }

  @Test
  void readsTypeAndResourceVersionOfTheObject() {
    assertThat(event("{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
        + "\"labels\":{\"resourceVersion\":\"9\"},\"resourceVersion\":\"42\"},\"spec\":{}}}"))
        .isEqualTo(new WatchEventHead("ADDED", "42"));
  }

  @Test
  void findsTheTypeAfterTheObject() {
    assertThat(event("{\"object\":{\"metadata\":{\"resourceVersion\":\"7\"},\"status\":{\"type\":\"x\"}},"
        + "\"type\":\"DELETED\"}")).isEqualTo(new WatchEventHead("DELETED", "7"));
  }

  @Test
  void aMissingResourceVersionIsNull() {
    assertThat(event("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410}}"))
        .isEqualTo(new WatchEventHead("ERROR", null));
  }

  @Test
  void readsAnObjectsResourceVersion() {
    byte[] pod = "{\"apiVersion\":\"v1\",\"metadata\":{\"uid\":\"u\",\"resourceVersion\":\"3\"}}"
        .getBytes(StandardCharsets.UTF_8);
    assertThat(WatchEventHead.resourceVersionOf(pod, 0, pod.length)).isEqualTo("3");
  }

  @Test
  void malformedJsonIsRefused() {
    assertThatThrownBy(() -> event("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"resourceVersion\":}}}"))
        .isInstanceOf(RuntimeException.class);
    assertThatThrownBy(() -> event("[1]")).isInstanceOf(IllegalArgumentException.class);
  }
}
