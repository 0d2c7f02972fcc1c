package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** Request parsing, history windows, pagination and age formatting. */
class ServerUnitsTest {

  @Test
  void requestInfoParsesCorePathsNamespacesAndSubresources() {
    RequestInfo pod = RequestInfo.parse("POST", "/api/v1/namespaces/ns1/pods/p1/binding");
    assertThat(pod.verb()).isEqualTo("create");
    assertThat(pod.namespace()).isEqualTo("ns1");
    assertThat(pod.resource()).isEqualTo("pods");
    assertThat(pod.name()).isEqualTo("p1");
    assertThat(pod.subresource()).isEqualTo("binding");
    assertThat(pod.resourcePath()).isEqualTo("pods/binding");

    RequestInfo namespace = RequestInfo.parse("GET", "/api/v1/namespaces/ns1");
    assertThat(namespace.resource()).isEqualTo("namespaces");
    assertThat(namespace.name()).isEqualTo("ns1");
    assertThat(namespace.namespace()).isEmpty();

    RequestInfo watch = RequestInfo.parse("GET",
        "/apis/apps/v1/deployments?watch=1&labelSelector=app%3Dweb&resourceVersion=10");
    assertThat(watch.verb()).isEqualTo("watch");
    assertThat(watch.group()).isEqualTo("apps");
    assertThat(watch.query()).containsEntry("labelSelector", "app=web").containsEntry("resourceVersion", "10");

    assertThat(RequestInfo.parse("GET", "/api/v1/watch/namespaces/x/pods").verb()).isEqualTo("watch");
    assertThat(RequestInfo.parse("DELETE", "/api/v1/namespaces/x/pods").verb()).isEqualTo("deletecollection");
    assertThat(RequestInfo.parse("GET", "/version").resourceRequest()).isFalse();

    // empty segments (doubled or trailing slashes) are skipped, as before
    RequestInfo slashes = RequestInfo.parse("GET", "//api/v1//namespaces/ns1/pods/p1/");
    assertThat(slashes.verb()).isEqualTo("get");
    assertThat(slashes.namespace()).isEqualTo("ns1");
    assertThat(slashes.name()).isEqualTo("p1");
    assertThat(slashes.subresource()).isEmpty();
  }

  private static WatchEvent event(long rv) {
    ObjectNode o = Json.object();
    o.putObject("metadata").put("name", "x" + rv);
    return new WatchEvent(WatchEvent.Type.ADDED, new StoredObject(ResourceTypes.CONFIG_MAPS, o, rv), null);
  }

  @Test
  void historyServesOnlyVersionsItStillReaches() {
    EventHistory history = new EventHistory(3);
    for (long rv = 1; rv <= 5; rv++) {
      history.append(event(rv * 10));
    }
    assertThat(history.oldestServable()).isEqualTo(20);
    assertThat(history.after(20)).extracting(WatchEvent::resourceVersion).containsExactly(30L, 40L, 50L);
    assertThat(history.after(35)).extracting(WatchEvent::resourceVersion).containsExactly(40L, 50L);
    assertThat(history.after(50)).isEmpty();
    history.compactThrough(40);
    assertThat(history.oldestServable()).isEqualTo(40);
    assertThat(history.after(40)).extracting(WatchEvent::resourceVersion).containsExactly(50L);
  }

  @Test
  void pagerWalksOneSnapshotAndExpiresOldTokens() {
    MutableClock clock = new MutableClock();
    ListPager pager = new ListPager(clock, Duration.ofMinutes(5), 10);
    List<StoredObject> items = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      items.add(event(i + 1).object());
    }
    ListPager.Page first = pager.first(ResourceTypes.CONFIG_MAPS, new ObjectStore.Snapshot(7, items), 3);
    assertThat(first.items()).hasSize(3);
    assertThat(first.remaining()).isEqualTo(4);
    ListPager.Page second = pager.next(ResourceTypes.CONFIG_MAPS, first.continueToken(), 3);
    assertThat(second.items()).extracting(StoredObject::resourceVersion).containsExactly(4L, 5L, 6L);
    clock.now = clock.now.plus(Duration.ofMinutes(6));
    assertThatThrownBy(() -> pager.next(ResourceTypes.CONFIG_MAPS, second.continueToken(), 3))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(410));
    assertThatThrownBy(() -> pager.next(ResourceTypes.CONFIG_MAPS, "not-base64!", 3))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(400));
  }

  @Test
  void agesAreFormattedLikeKubectl() {
    assertThat(HumanAge.format(Duration.ofSeconds(45))).isEqualTo("45s");
    assertThat(HumanAge.format(Duration.ofSeconds(119))).isEqualTo("119s");
    assertThat(HumanAge.format(Duration.ofSeconds(200))).isEqualTo("3m20s");
    assertThat(HumanAge.format(Duration.ofMinutes(42))).isEqualTo("42m");
    assertThat(HumanAge.format(Duration.ofMinutes(5 * 60 + 7))).isEqualTo("5h7m");
    assertThat(HumanAge.format(Duration.ofHours(30))).isEqualTo("30h");
    assertThat(HumanAge.format(Duration.ofDays(12))).isEqualTo("12d");
  }

  private static final class MutableClock extends Clock {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
