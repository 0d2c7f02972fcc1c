package io.berth.plugins.capacityscheduling;

import static io.berth.plugins.capacityscheduling.QuotaFixtures.charge;
import static io.berth.plugins.capacityscheduling.QuotaFixtures.cpuQuota;
import static org.assertj.core.api.Assertions.assertThat;

import io.berth.framework.PluginMetrics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** status.used is written only once synced and only when it differs; gauges follow the quotas. */
class UsedStatusWriterTest {
  private final List<String> writes = new ArrayList<>();
  private final Map<String, Double> gauges = new HashMap<>();
  private final PluginMetrics metrics = new PluginMetrics() {
    @Override
    public void setGauge(String name, String help, Map<String, String> labels, double value) {
      gauges.put(name + labels.get("namespace") + "/" + labels.get("resource"), value);
    }

    @Override
    public void removeGauge(String name, Map<String, String> labels) {
      gauges.remove(name + labels.get("namespace") + "/" + labels.get("resource"));
    }

    @Override
    public void increment(String name, String help, Map<String, String> labels, double amount) {}
  };

  @Test
  void writesWhatDiffersOnceSyncedAndDropsTheGaugesOfADeletedQuota() {
    QuotaBook book = new QuotaBook();
    book.putQuota(cpuQuota("a", 4, 6L));
    book.charge(charge("a", "p", 1500, 0, false));
    AtomicBoolean synced = new AtomicBoolean();
    UsedStatusWriter writer = new UsedStatusWriter(book, (q, used) -> writes.add(q.key() + " " + used), metrics,
        synced::get);
    writer.run();
    assertThat(writes).as("nothing before the pods are listed").isEmpty();
    synced.set(true);
    writer.run();
    assertThat(writes).containsExactly("a/quota-a {cpu=1500m}");
    assertThat(gauges).containsEntry("berth_quota_useda/cpu", 1.5).containsEntry("berth_quota_mina/cpu", 4.0)
        .containsEntry("berth_quota_maxa/cpu", 6.0);
    // the informer reports the written status back: no second write
    book.putQuota(new ElasticQuota("a", "quota-a", Map.of("cpu", 4000L), Map.of("cpu", 6000L), false,
        Map.of("cpu", 1500L)));
    writer.run();
    assertThat(writes).hasSize(1);
    book.removeQuota("a", "quota-a");
    writer.run();
    assertThat(gauges).isEmpty();
  }
}
