package io.berth.scheduler.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.ClusterEventWithHint;
import io.berth.framework.Framework;
import io.berth.framework.Status;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class QueueProfileTest {
  @Test
  void frameworkWithoutPreEnqueuePluginsIsNeverAskedToRunThem() {
    AtomicInteger runs = new AtomicInteger();
    QueueProfile profile = QueueProfile.of(framework(false, Map.of(), runs));

    assertThat(profile.runPreEnqueuePlugins(TestPods.named("a"))).isSameAs(Status.SUCCESS);
    assertThat(runs).hasValue(0);
  }

  @Test
  void frameworkPreEnqueueVerdictIsPassedOn() {
    AtomicInteger runs = new AtomicInteger();
    QueueProfile profile = QueueProfile.of(framework(true, Map.of(), runs));

    Status status = profile.runPreEnqueuePlugins(TestPods.named("a"));

    assertThat(status.isSuccess()).isFalse();
    assertThat(status.plugin()).isEqualTo("Gate");
    assertThat(runs).hasValue(1);
  }

  @Test
  void registrationsAreCopiedOnceAtConstruction() {
    Map<String, List<ClusterEventWithHint>> registrations = new HashMap<>();
    List<ClusterEventWithHint> fit = new ArrayList<>();
    fit.add(ClusterEventWithHint.always(TestEvents.NODE_ADD));
    registrations.put("Fit", fit);
    QueueProfile profile = QueueProfile.of(framework(false, registrations, new AtomicInteger()));

    fit.add(ClusterEventWithHint.always(TestEvents.NODE_TAINT));
    registrations.put("Other", List.of());

    assertThat(profile.enqueueExtensions()).containsOnlyKeys("Fit");
    assertThat(profile.enqueueExtensions().get("Fit")).hasSize(1);
  }

  private static Framework framework(boolean hasPreEnqueue,
      Map<String, List<ClusterEventWithHint>> registrations, AtomicInteger preEnqueueRuns) {
    return (Framework) Proxy.newProxyInstance(Framework.class.getClassLoader(),
        new Class<?>[] {Framework.class}, (proxy, method, args) -> switch (method.getName()) {
          case "hasPreEnqueuePlugins" -> hasPreEnqueue;
          case "enqueueExtensions" -> registrations;
          case "profileName" -> TestPods.PROFILE;
          case "runPreEnqueuePlugins" -> {
            preEnqueueRuns.incrementAndGet();
            yield Status.unschedulable("closed").withPlugin("Gate");
          }
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }
}
