package io.berth.informer;

import static io.berth.informer.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import org.junit.jupiter.api.Test;

class PagerTest {

  private final FakeListerWatcher<Pod> lw = new FakeListerWatcher<>();

  @Test
  void singlePageIsReturnedAsIs() {
    lw.setContent(List.of(pod("ns", "a", "3")), "7");
    Pager.Result<Pod> result = Pager.list(lw, "0", 500);
    assertThat(result.items()).hasSize(1);
    assertThat(result.resourceVersion()).isEqualTo("7");
    assertThat(result.paginated()).isFalse();
    assertThat(lw.listRequests()).containsExactly(new ListRequest("0", 500, ""));
  }

  @Test
  void pagesAreFollowedWithContinueTokensAndNoResourceVersion() {
    lw.scriptList(new ListPage<>(List.of(pod("ns", "a", "1"), pod("ns", "b", "1")), "10", "t1"));
    lw.scriptList(new ListPage<>(List.of(pod("ns", "c", "1")), "10", "t2"));
    lw.scriptList(new ListPage<>(List.of(pod("ns", "d", "1")), "10", ""));
    Pager.Result<Pod> result = Pager.list(lw, "0", 2);
    assertThat(result.items()).extracting(p -> p.getMetadata().getName()).containsExactly("a", "b", "c", "d");
    assertThat(result.resourceVersion()).isEqualTo("10");
    assertThat(result.paginated()).isTrue();
    assertThat(lw.listRequests()).containsExactly(
        new ListRequest("0", 2, ""), new ListRequest("", 2, "t1"), new ListRequest("", 2, "t2"));
  }

  @Test
  void expiredContinueTokenFallsBackToOneFullList() {
    lw.scriptList(new ListPage<>(List.of(pod("ns", "a", "1")), "10", "t1"));
    lw.failNextList(FakeListerWatcher.status(410, "Expired"));
    lw.setContent(List.of(pod("ns", "a", "1"), pod("ns", "b", "1")), "12");
    Pager.Result<Pod> result = Pager.list(lw, "0", 1);
    assertThat(result.items()).hasSize(2);
    assertThat(result.resourceVersion()).isEqualTo("12");
    assertThat(lw.listRequests()).containsExactly(
        new ListRequest("0", 1, ""), new ListRequest("", 1, "t1"), new ListRequest("0", 0, ""));
  }

  @Test
  void expiryOnTheFirstPageIsTheCallersToHandle() {
    lw.failNextList(FakeListerWatcher.status(410, "Expired"));
    assertThatThrownBy(() -> Pager.list(lw, "5", 500))
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(410));
  }

  @Test
  void otherErrorsOnLaterPagesPropagate() {
    lw.scriptList(new ListPage<>(List.of(pod("ns", "a", "1")), "10", "t1"));
    lw.failNextList(FakeListerWatcher.status(500, "InternalError"));
    assertThatThrownBy(() -> Pager.list(lw, "0", 1))
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(500));
  }
}
