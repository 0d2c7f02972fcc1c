package io.berth.framework;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The volumes signer's comparison: every property of a Volume but its name, with no copy of the pod's volume. */
class UnnamedVolumeTest {

  /** The projected volume the ServiceAccount admission plugin adds to every pod, with a per-pod name. */
  private static Volume serviceAccountVolume(String name, String audience) {
    return new VolumeBuilder().withName(name).withNewProjected().withDefaultMode(420)
        .addNewSource().withNewServiceAccountToken().withAudience(audience).withExpirationSeconds(3607L)
        .withPath("token").endServiceAccountToken().endSource()
        .addNewSource().withNewConfigMap().withName("kube-root-ca.crt").addNewItem().withKey("ca.crt")
        .withPath("ca.crt").endItem().endConfigMap().endSource()
        .addNewSource().withNewDownwardAPI().addNewItem().withPath("namespace").withNewFieldRef()
        .withApiVersion("v1").withFieldPath("metadata.namespace").endFieldRef().endItem().endDownwardAPI()
        .endSource().endProjected().build();
  }

  @Test
  void volumesDifferingOnlyInNameAreEqual() {
    UnnamedVolume a = UnnamedVolume.of(serviceAccountVolume("kube-api-access-abcde", null));
    UnnamedVolume b = UnnamedVolume.of(serviceAccountVolume("kube-api-access-vwxyz", null));
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(UnnamedVolume.of(serviceAccountVolume("x", "vault"))).isNotEqualTo(a);
  }

  @Test
  void wrapsThePodsOwnVolumeWithoutChangingIt() {
    Volume v = serviceAccountVolume("kube-api-access-abcde", null);
    Volume before = new VolumeBuilder(v).build();
    UnnamedVolume u = UnnamedVolume.of(v);
    assertThat(u.volume()).isSameAs(v);
    assertThat(v).isEqualTo(before);
    assertThat(v.getName()).isEqualTo("kube-api-access-abcde");
  }

  @Test
  void everyPropertyButTheNameIsCompared() throws Exception {
    UnnamedVolume empty = UnnamedVolume.of(new Volume());
    int compared = 0;
    for (Method setter : Volume.class.getMethods()) {
      if (!setter.getName().startsWith("set") || setter.getParameterCount() != 1
          || Modifier.isStatic(setter.getModifiers())) {
        continue;
      }
      Class<?> type = setter.getParameterTypes()[0];
      Volume v = new Volume();
      v.setName("differs-only-there");
      if (setter.getName().equals("setName")) {
        assertThat(UnnamedVolume.of(v)).isEqualTo(empty);
        continue;
      }
      if (Map.class.isAssignableFrom(type)) {
        setter.invoke(v, new java.util.LinkedHashMap<>(Map.of("extra", "value")));
      } else {
        setter.invoke(v, type.getConstructor().newInstance());
      }
      assertThat(UnnamedVolume.of(v)).as(setter.getName()).isNotEqualTo(empty);
      compared++;
    }
    assertThat(compared).isEqualTo(UnnamedVolume.propertyCount()).isGreaterThan(25);
  }

  @Test
  void theSignerLeavesConfigMapsAndSecretsOut() {
    Pod pod = new PodBuilder().withNewSpec()
        .addToVolumes(serviceAccountVolume("kube-api-access-1", null))
        .addNewVolume().withName("cfg").withNewConfigMap().withName("c").endConfigMap().endVolume()
        .addNewVolume().withName("tls").withNewSecret().withSecretName("s").endSecret().endVolume()
        .addNewVolume().withName("data").withNewPersistentVolumeClaim().withClaimName("d").endPersistentVolumeClaim()
        .endVolume().endSpec().build();
    List<UnnamedVolume> signed = PodSigners.volumes(pod);
    assertThat(signed).extracting(u -> u.volume().getName()).containsExactly("kube-api-access-1", "data");
    Pod twin = new PodBuilder(pod).editSpec().editFirstVolume().withName("kube-api-access-2").endVolume().endSpec()
        .build();
    assertThat(PodSigners.volumes(twin)).isEqualTo(signed);
  }

  @Test
  void comparedFromManyThreadsAtOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int seed = t;
        results.add(pool.submit(() -> {
          UnnamedVolume shared = UnnamedVolume.of(serviceAccountVolume("shared", null));
          for (int i = 0; i < 2_000; i++) {
            UnnamedVolume mine = UnnamedVolume.of(serviceAccountVolume("v-" + seed + "-" + i, null));
            if (!mine.equals(shared) || mine.hashCode() != shared.hashCode()) {
              return false;
            }
          }
          return true;
        }));
      }
      for (Future<Boolean> r : results) {
        assertThat(r.get()).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
