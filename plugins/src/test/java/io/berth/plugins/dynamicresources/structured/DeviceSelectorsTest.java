package io.berth.plugins.dynamicresources.structured;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class DeviceSelectorsTest {
  private static final String DRIVER = "gpu.example.com";
  private final DeviceSelectors selectors = new DeviceSelectors();

  private static DeviceView gpu() {
    Device d = new DeviceBuilder().withName("gpu-0")
        .withAttributes(Map.of(
            "model", new DeviceAttributeBuilder().withString("a100").build(),
            "index", new DeviceAttributeBuilder().withInt(3L).build(),
            "other.example.com/healthy", new DeviceAttributeBuilder().withBool(true).build()))
        .withCapacity(Map.of("memory",
            new DeviceCapacityBuilder().withValue(new Quantity("40Gi")).build()))
        .build();
    return new DeviceView(DRIVER, d);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "device.driver == 'gpu.example.com'|true",
      "device.driver == 'other'|false",
      "device.attributes['gpu.example.com'].model == 'a100'|true",
      "device.attributes['gpu.example.com'].model == 'h100'|false",
      "device.attributes['gpu.example.com'].index > 2|true",
      "device.attributes['other.example.com'].healthy|true",
      "has(device.attributes['unknown.example.com'].model)|false",
      "has(device.attributes['gpu.example.com'].model)|true",
      "device.capacity['gpu.example.com'].memory.compareTo(quantity('32Gi')) >= 0|true",
      "device.capacity['gpu.example.com'].memory.isGreaterThan(quantity('80Gi'))|false",
      "device.capacity['gpu.example.com'].memory == quantity('40960Mi')|true",
  })
  void evaluatesOnAttributesAndCapacity(String expression, boolean expected) throws Exception {
    DeviceSelectors.Compiled c = selectors.compile(expression);
    assertTrue(c.error().isEmpty(), () -> c.error().get());
    assertEquals(expected, c.matches(gpu()));
  }

  @Test
  void compileErrorIsReportedNotThrown() {
    DeviceSelectors.Compiled c = selectors.compile("device.driver ==");
    assertTrue(c.error().orElseThrow().startsWith("compilation failed: "), c.error().get());
    assertThrows(DeviceSelectors.SelectorException.class, () -> c.matches(gpu()));
  }

  @Test
  void nonBoolResultFailsToCompile() {
    assertTrue(selectors.compile("device.driver").error().isPresent()
        || assertThrows(DeviceSelectors.SelectorException.class,
            () -> selectors.compile("device.driver").matches(gpu())) != null);
    assertTrue(selectors.compile("1 + 1").error().isPresent());
  }

  @Test
  void missingAttributeIsARuntimeError() {
    DeviceSelectors.Compiled c = selectors.compile(
        "device.attributes['gpu.example.com'].nosuch == 'x'");
    assertTrue(c.error().isEmpty());
    DeviceSelectors.SelectorException e = assertThrows(DeviceSelectors.SelectorException.class,
        () -> c.matches(gpu()));
    assertTrue(e.getMessage().contains("nosuch"), e.getMessage());
  }

  @Test
  void costLimitStopsAnExpensiveExpression() {
    DeviceSelectors.Compiled c = selectors.compile(
        "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10]"
            + ".all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e,"
            + " [1,2,3,4,5,6,7,8,9,10].all(f, a + b + c + d + e + f > 0))))))");
    assertTrue(c.error().isEmpty(), () -> c.error().get());
    DeviceSelectors.SelectorException e = assertThrows(DeviceSelectors.SelectorException.class,
        () -> c.matches(gpu()));
    assertTrue(e.getMessage().contains("cost limit exceeded"), e.getMessage());
  }

  @Test
  void runtimeCostFollowsCelGoOnADevice() throws Exception {
    // ident, select, index, select 4; equality ceil(0.1 * min(4, 4)) 1
    DeviceSelectors.Compiled model = selectors.compile(
        "device.attributes['gpu.example.com'].model == 'a100'");
    assertEquals(5, model.actualCost(gpu()));
    DeviceSelectors.Compiled domains = selectors.compile(
        "device.attributes.exists_one(d, d == 'other.example.com')");
    // range 2; two domains, each comparison 1 + ceil(0.1 * min(15 or 17, 17)) = 3, then accu 1
    // (gpu.example.com) or accu + 1 2 (other.example.com); result accu == 1: 2
    assertEquals(2 + (3 + 1) + (3 + 2) + 2, domains.actualCost(gpu()));
    assertTrue(domains.matches(gpu()));
    // the same expression under a smaller limit stops with upstream's message
    DeviceSelectors.SelectorException e = assertThrows(DeviceSelectors.SelectorException.class,
        () -> model.matches(gpu(), 4));
    assertEquals("operation cancelled: actual cost limit exceeded", e.getMessage());
  }

  @Test
  void tooLongExpressionIsRejected() {
    String expr = "true && " + "true && ".repeat(2000) + "true";
    assertTrue(selectors.compile(expr).error().orElseThrow().contains("too long"));
  }

  @Test
  void outcomesAreMemoizedPerExpressionErrorsIncluded() throws Exception {
    DeviceView view = gpu();
    DeviceSelectors.Compiled a100 = selectors.compile(
        "device.attributes['gpu.example.com'].model == 'a100'");
    DeviceSelectors.Compiled broken = selectors.compile(
        "device.attributes['gpu.example.com'].nosuch == 'x'");
    assertTrue(view.selectedBy(a100));
    assertTrue(view.selectedBy(a100));
    String first = assertThrows(DeviceSelectors.SelectorException.class,
        () -> view.selectedBy(broken)).getMessage();
    // the memoized failure says the same as the evaluation did
    assertEquals(first, assertThrows(DeviceSelectors.SelectorException.class,
        () -> view.selectedBy(broken)).getMessage());
    assertEquals(2, view.memoized());
  }

  @Test
  void theMemoIsBoundedAndAnswersStayRightPastIt() throws Exception {
    DeviceView view = gpu();
    for (int i = 0; i < DeviceView.MAX_MEMOIZED + 10; i++) {
      assertEquals(i > 3, view.selectedBy(selectors.compile(
          "device.attributes['gpu.example.com'].index < " + i)), "index < " + i);
    }
    assertEquals(DeviceView.MAX_MEMOIZED, view.memoized());
  }

  @Test
  void oneViewAnswersManyThreadsAlike() throws Exception {
    DeviceView view = gpu();
    List<DeviceSelectors.Compiled> exprs = new java.util.ArrayList<>();
    for (int i = 0; i < 8; i++) {
      exprs.add(selectors.compile("device.attributes['gpu.example.com'].index == " + i
          + " || device.capacity['gpu.example.com'].memory.isLessThan(quantity('" + (i * 8)
          + "Gi'))"));
    }
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors
        .newFixedThreadPool(8);
    java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
    List<java.util.concurrent.Future<?>> futures = new java.util.ArrayList<>();
    for (int t = 0; t < 8; t++) {
      futures.add(pool.submit(() -> {
        start.await();
        for (int round = 0; round < 200; round++) {
          for (int i = 0; i < exprs.size(); i++) {
            // index 3, memory 40Gi: index == 3, or memory below 48Gi and up
            assertEquals(i == 3 || i * 8 > 40, view.selectedBy(exprs.get(i)), "expr " + i);
          }
        }
        return null;
      }));
    }
    start.countDown();
    for (java.util.concurrent.Future<?> f : futures) {
      f.get(60, java.util.concurrent.TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertEquals(exprs.size(), view.memoized());
  }

  @Test
  void unqualifiedNamesBelongToTheDriversDomain() {
    assertEquals("a100", gpu().attribute("model").orElseThrow());
    assertEquals("a100", gpu().attribute("gpu.example.com/model").orElseThrow());
    assertEquals(true, gpu().attribute("other.example.com/healthy").orElseThrow());
    assertFalse(gpu().attribute("healthy").isPresent());
  }

  private static DeviceView versioned(String version) {
    Device d = new DeviceBuilder().withName("gpu-1")
        .withAttributes(Map.of(
            "driverVersion", new DeviceAttributeBuilder().withVersion(version).build(),
            "model", new DeviceAttributeBuilder().withString("a100").build()))
        .build();
    return new DeviceView(DRIVER, d);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      // upstream's getAttributeValue: a version attribute is a Semver in CEL
      "device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('1.0.0'))|true",
      "device.attributes['gpu.example.com'].driverVersion.isLessThan(semver('1.2.10'))|true",
      "device.attributes['gpu.example.com'].driverVersion == semver('1.2.3')|true",
      "device.attributes['gpu.example.com'].driverVersion.compareTo(semver('2.0.0')) < 0|true",
      "device.attributes['gpu.example.com'].driverVersion.major() == 1|true",
      "device.attributes['gpu.example.com'].model == 'a100'|true",
  })
  void versionAttributesAreSemvers(String expression, boolean expected) throws Exception {
    DeviceSelectors.Compiled c = selectors.compile(expression);
    assertTrue(c.error().isEmpty(), () -> c.error().get());
    assertEquals(expected, c.matches(versioned("1.2.3")));
  }

  @Test
  void aVersionAttributeThatIsNoSemverFailsEverySelectorAsUpstream() {
    DeviceSelectors.Compiled c = selectors.compile("device.driver == 'gpu.example.com'");
    DeviceSelectors.SelectorException e = assertThrows(DeviceSelectors.SelectorException.class,
        () -> c.matches(versioned("1.2")));
    assertEquals("attribute driverVersion: parse semantic version: No Major.Minor.Patch elements"
        + " found", e.getMessage());
  }

  @Test
  void aLibrarysErrorIsReportedInItsOwnWords() {
    DeviceSelectors.Compiled c = selectors.compile(
        "device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('v1'))");
    DeviceSelectors.SelectorException e = assertThrows(DeviceSelectors.SelectorException.class,
        () -> c.matches(versioned("1.2.3")));
    assertTrue(e.getMessage().endsWith(": No Major.Minor.Patch elements found"), e.getMessage());
  }

  @Test
  void constraintsSeeAVersionByItsTextAndNotAsAString() {
    Object v = versioned("1.2.3").attribute("driverVersion").orElseThrow();
    assertEquals(new DeviceView.Version("1.2.3"), v);
    assertFalse(v.equals("1.2.3"));
  }
}
