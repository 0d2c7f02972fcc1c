package io.berth.controller.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PodTemplateHashTest {

  /** A template built field by field, labels inserted in the order given. */
  private static PodTemplateSpec build(List<String> labelOrder) {
    Map<String, String> labels = new LinkedHashMap<>();
    for (String key : labelOrder) {
      labels.put(key, key.equals("app") ? "web" : "x");
    }
    return new PodTemplateSpecBuilder()
        .withNewMetadata().withLabels(labels).endMetadata()
        .withNewSpec()
        .addNewContainer().withName("web").withImage("nginx:1.27")
        .withNewResources().addToRequests("cpu", new Quantity("100m")).endResources()
        .addNewPort().withContainerPort(80).endPort()
        .endContainer()
        .endSpec()
        .build();
  }

  private static PodTemplateSpec base() {
    return build(List.of("app", "tier"));
  }

  @Test
  void sameTemplateBuiltTwiceHashesTheSame() {
    PodTemplateSpec a = build(List.of("app", "tier"));
    PodTemplateSpec b = build(List.of("tier", "app"));
    assertThat(a).isNotSameAs(b);
    assertThat(PodTemplateHash.compute(a, null)).isEqualTo(PodTemplateHash.compute(b, null));
    assertThat(PodTemplateHash.compute(a, 3)).isEqualTo(PodTemplateHash.compute(b, 3));
    assertThat(PodTemplateHash.compute(new PodTemplateSpecBuilder(a).build(), null))
        .isEqualTo(PodTemplateHash.compute(a, null));
  }

  @Test
  void hashUsesOnlyTheSafeAlphabet() {
    String hash = PodTemplateHash.compute(base(), null);
    assertThat(hash).isNotEmpty().hasSizeLessThanOrEqualTo(10);
    assertThat(hash.chars()).allMatch(ch -> PodTemplateHash.ALPHABET.indexOf(ch) >= 0);
  }

  @Test
  void canonicalFormSortsKeysAndDropsEmpties() {
    PodTemplateSpec t = new PodTemplateSpecBuilder()
        .withNewMetadata().withLabels(Map.of("b", "2", "a", "1")).withAnnotations(Map.of()).endMetadata()
        .withNewSpec().addNewContainer().withName("web").withImage("nginx").withArgs(List.of())
        .withWorkingDir("").endContainer().endSpec()
        .build();
    String json = new String(CanonicalTemplate.bytes(t), StandardCharsets.UTF_8);
    assertThat(json).isEqualTo(
        "{\"metadata\":{\"labels\":{\"a\":\"1\",\"b\":\"2\"}},"
            + "\"spec\":{\"containers\":[{\"image\":\"nginx\",\"name\":\"web\"}]}}");
  }

  @Test
  void hashIsFnv1aOfTheCanonicalFormInTheSafeAlphabet() {
    PodTemplateSpec t = base();
    byte[] canonical = CanonicalTemplate.bytes(t);
    // Independent FNV-1a 32 over the canonical bytes.
    long h = 0x811c9dc5L;
    for (byte b : canonical) {
      h ^= (b & 0xff);
      h = (h * 0x01000193L) & 0xffffffffL;
    }
    StringBuilder expected = new StringBuilder();
    for (char ch : Long.toString(h).toCharArray()) {
      expected.append("bcdfghjklmnpqrstvwxz2456789".charAt(ch % 27));
    }
    assertThat(PodTemplateHash.compute(t, null)).isEqualTo(expected.toString());
  }

  @Test
  void fnvMatchesPublishedVectors() {
    assertThat(PodTemplateHash.fnv1a32(0x811c9dc5, new byte[0])).isEqualTo(0x811c9dc5);
    assertThat(PodTemplateHash.fnv1a32(0x811c9dc5, "a".getBytes(StandardCharsets.US_ASCII)))
        .isEqualTo(0xe40c292c);
    assertThat(PodTemplateHash.fnv1a32(0x811c9dc5, "foobar".getBytes(StandardCharsets.US_ASCII)))
        .isEqualTo(0xbf9cf968);
  }

  @Test
  void safeEncodeMapsDigitsLikeUpstream() {
    // '0' is 48, 48 % 27 = 21 -> '4'; '6' is 54 -> 0 -> 'b'; '9' is 57 -> 3 -> 'f'.
    assertThat(PodTemplateHash.safeEncode("0123456789")).isEqualTo("456789bcdf");
  }

  static Stream<Arguments> fieldChanges() {
    return Stream.<Arguments>of(
        Arguments.of("image", (UnaryOperator<PodTemplateSpec>) t -> new PodTemplateSpecBuilder(t)
            .editSpec().editFirstContainer().withImage("nginx:1.28").endContainer().endSpec().build()),
        Arguments.of("label value", (UnaryOperator<PodTemplateSpec>) t -> new PodTemplateSpecBuilder(t)
            .editMetadata().addToLabels("tier", "y").endMetadata().build()),
        Arguments.of("added annotation", (UnaryOperator<PodTemplateSpec>) t -> new PodTemplateSpecBuilder(t)
            .editMetadata().addToAnnotations("kubectl.kubernetes.io/restartedAt", "now").endMetadata()
            .build()),
        Arguments.of("cpu request", (UnaryOperator<PodTemplateSpec>) t -> new PodTemplateSpecBuilder(t)
            .editSpec().editFirstContainer().editResources().addToRequests("cpu", new Quantity("200m"))
            .endResources().endContainer().endSpec().build()),
        Arguments.of("container port", (UnaryOperator<PodTemplateSpec>) t -> new PodTemplateSpecBuilder(t)
            .editSpec().editFirstContainer().editFirstPort().withContainerPort(81).endPort()
            .endContainer().endSpec().build()),
        Arguments.of("env var", (UnaryOperator<PodTemplateSpec>) t -> new PodTemplateSpecBuilder(t)
            .editSpec().editFirstContainer().addNewEnv().withName("A").withValue("1").endEnv()
            .endContainer().endSpec().build()),
        Arguments.of("node selector", (UnaryOperator<PodTemplateSpec>) t -> new PodTemplateSpecBuilder(t)
            .editSpec().addToNodeSelector("zone", "a").endSpec().build()),
        Arguments.of("empty security context", (UnaryOperator<PodTemplateSpec>) t ->
            new PodTemplateSpecBuilder(t).editSpec().withNewSecurityContext().endSecurityContext()
                .endSpec().build()),
        Arguments.of("pod-template-hash label (hash covers it, equality does not)",
            (UnaryOperator<PodTemplateSpec>) t -> new PodTemplateSpecBuilder(t).editMetadata()
                .addToLabels(PodTemplateHash.LABEL, "abc").endMetadata().build()));
  }

  @ParameterizedTest(name = "changing {0} changes the hash")
  @MethodSource("fieldChanges")
  void anyFieldChangeChangesTheHash(String field, UnaryOperator<PodTemplateSpec> change) {
    PodTemplateSpec changed = change.apply(base());
    assertThat(PodTemplateHash.compute(changed, null)).isNotEqualTo(PodTemplateHash.compute(base(), null));
    if (field.startsWith("pod-template-hash")) {
      assertThat(PodTemplateHash.equalIgnoreHash(base(), changed)).isTrue();
    } else {
      assertThat(PodTemplateHash.equalIgnoreHash(base(), changed)).isFalse();
    }
  }

  @Test
  void collisionCountChangesTheHash() {
    PodTemplateSpec t = base();
    String none = PodTemplateHash.compute(t, null);
    String zero = PodTemplateHash.compute(t, 0);
    String one = PodTemplateHash.compute(t, 1);
    String two = PodTemplateHash.compute(t, 2);
    assertThat(List.of(none, zero, one, two)).doesNotHaveDuplicates();
    assertThat(PodTemplateHash.compute(t, 1)).isEqualTo(one);
  }

  static Stream<Arguments> equalIgnoreHash() {
    PodTemplateSpec plain = base();
    return Stream.of(
        Arguments.of("identical", plain, base(), true),
        Arguments.of("only one side has the hash label", plain,
            new PodTemplateSpecBuilder(plain).editMetadata().addToLabels(PodTemplateHash.LABEL, "h1")
                .endMetadata().build(), true),
        Arguments.of("different hash labels", new PodTemplateSpecBuilder(plain).editMetadata()
            .addToLabels(PodTemplateHash.LABEL, "h1").endMetadata().build(),
            new PodTemplateSpecBuilder(plain).editMetadata().addToLabels(PodTemplateHash.LABEL, "h2")
                .endMetadata().build(), true),
        Arguments.of("hash label is the only label vs no labels",
            new PodTemplateSpecBuilder().withNewMetadata().addToLabels(PodTemplateHash.LABEL, "h")
                .endMetadata().build(),
            new PodTemplateSpecBuilder().withNewMetadata().endMetadata().build(), true),
        Arguments.of("other label differs", plain, new PodTemplateSpecBuilder(plain).editMetadata()
            .addToLabels("tier", "other").endMetadata().build(), false),
        Arguments.of("semantically equal quantities (100m vs 0.1)", plain,
            new PodTemplateSpecBuilder(plain).editSpec().editFirstContainer().editResources()
                .addToRequests("cpu", new Quantity("0.1")).endResources().endContainer().endSpec()
                .build(), true),
        Arguments.of("empty and absent label maps", new PodTemplateSpecBuilder().withNewMetadata()
            .withLabels(Map.of()).endMetadata().build(),
            new PodTemplateSpecBuilder().withNewMetadata().endMetadata().build(), true),
        Arguments.of("null template vs empty template", null, new PodTemplateSpec(), true),
        Arguments.of("equal specs, annotations differ", plain, new PodTemplateSpecBuilder(plain).editMetadata()
            .addToAnnotations("note", "x").endMetadata().build(), false),
        Arguments.of("empty and absent tolerations (the model's equals tells them apart)", plain,
            new PodTemplateSpecBuilder(plain).editSpec().withTolerations(new java.util.ArrayList<>()).endSpec()
                .build(), true),
        Arguments.of("the same unparsable quantity", withCpu(plain, "lots"), withCpu(plain, "lots"), true),
        Arguments.of("different unparsable quantities", withCpu(plain, "lots"), withCpu(plain, "many"), false));
  }

  private static PodTemplateSpec withCpu(PodTemplateSpec t, String cpu) {
    return new PodTemplateSpecBuilder(t).editSpec().editFirstContainer().editResources()
        .addToRequests("cpu", new Quantity(cpu)).endResources().endContainer().endSpec().build();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void equalIgnoreHash(String name, PodTemplateSpec a, PodTemplateSpec b, boolean expected) {
    assertThat(PodTemplateHash.equalIgnoreHash(a, b)).isEqualTo(expected);
    assertThat(PodTemplateHash.equalIgnoreHash(b, a)).isEqualTo(expected);
  }

  @Test
  void equalIgnoreHashLeavesTheLabelsOfItsArgumentsAlone() {
    PodTemplateSpec labelled = new PodTemplateSpecBuilder(base()).editMetadata()
        .addToLabels(PodTemplateHash.LABEL, "h1").endMetadata().build();
    PodTemplateHash.equalIgnoreHash(labelled, base());
    assertThat(labelled.getMetadata().getLabels()).containsEntry(PodTemplateHash.LABEL, "h1");
  }

  @Test
  void concurrentHashingAgrees() throws Exception {
    String expected = PodTemplateHash.compute(base(), 7);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<String>> results = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        List<String> order = i % 2 == 0 ? List.of("app", "tier") : List.of("tier", "app");
        results.add(pool.submit(() -> PodTemplateHash.compute(build(order), 7)));
      }
      for (Future<String> f : results) {
        assertThat(f.get()).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
