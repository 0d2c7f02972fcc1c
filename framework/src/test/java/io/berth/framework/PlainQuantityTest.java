package io.berth.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The integer conversion of plain quantities gives what fabric8's BigDecimal path gives, and no more. */
class PlainQuantityTest {
  private static final List<String> FORMATS = List.of("", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi",
      "Gi", "Ti", "Pi", "Ei");

  /** The general path's result (as Quantities computed every quantity before), or null where it throws. */
  private static Long reference(Quantity q, boolean milli) {
    try {
      BigDecimal amount = Quantity.getAmountInBytes(q);
      if (milli) {
        amount = amount.multiply(BigDecimal.valueOf(1000));
      }
      return amount.setScale(0, RoundingMode.CEILING).longValueExact();
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static List<String> amounts() {
    List<String> out = new ArrayList<>(List.of("0", "1", "7", "9", "10", "99", "100", "250", "999", "1000", "1001",
        "4096", "123456789", "999999999", "1000000000", "1000000001", "0100", "000", "9223372036854775",
        "922337203685477580", "999999999999999999", "100000000000000000", "1099511627776", "8191", "8192", "8193"));
    SplittableRandom r = new SplittableRandom(42);
    for (int i = 0; i < 300; i++) {
      int len = 1 + r.nextInt(18);
      StringBuilder b = new StringBuilder();
      for (int j = 0; j < len; j++) {
        b.append((char) ('0' + r.nextInt(10)));
      }
      out.add(b.toString());
    }
    return out;
  }

  @Test
  void everyPlainQuantityConvertsAsTheBigDecimalPathDoes() {
    int plain = 0;
    for (String format : FORMATS) {
      for (String amount : amounts()) {
        Quantity q = new Quantity(amount, format);
        for (boolean milli : new boolean[] {false, true}) {
          long fast = PlainQuantity.scaled(q, milli);
          Long ref = reference(q, milli);
          if (fast != PlainQuantity.NOT_PLAIN) {
            plain++;
            assertThat(fast).as("%s%s milli=%s", amount, format, milli).isEqualTo(ref);
          }
          // and through the public entry points, whichever path they take
          String field = "f";
          if (ref == null) {
            assertThatThrownBy(() -> convert(q, milli, field)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("f: quantity \"" + amount + format + "\"");
          } else {
            assertThat(convert(q, milli, field)).as("%s%s milli=%s", amount, format, milli).isEqualTo(ref);
          }
        }
      }
    }
    // most of the table is plain: the fast path is not silently off
    assertThat(plain).isGreaterThan(FORMATS.size() * amounts().size());
  }

  private static long convert(Quantity q, boolean milli, String field) {
    return milli ? Quantities.milliValue(q, field) : Quantities.value(q, field);
  }

  @Test
  void theUsualRequestsAndCapacitiesArePlain() {
    assertThat(PlainQuantity.scaled(new Quantity("100m"), true)).isEqualTo(100);
    assertThat(PlainQuantity.scaled(new Quantity("100m"), false)).isEqualTo(1);
    assertThat(PlainQuantity.scaled(new Quantity("500Mi"), false)).isEqualTo(500L << 20);
    assertThat(PlainQuantity.scaled(new Quantity("4"), true)).isEqualTo(4000);
    assertThat(PlainQuantity.scaled(new Quantity("32Gi"), false)).isEqualTo(32L << 30);
    assertThat(PlainQuantity.scaled(new Quantity("110"), false)).isEqualTo(110);
    assertThat(PlainQuantity.scaled(new Quantity("1500u"), true)).isEqualTo(2);
    assertThat(PlainQuantity.scaled(new Quantity("1n"), false)).isEqualTo(1);
  }

  @Test
  void leavesEverythingElseToTheGeneralPath() {
    for (String s : List.of("1Ei", "0.5", "1.5Gi", "1e3", "1E3", "-1", "+1", "1e-3", "12345678901234567890")) {
      Quantity q = new Quantity(s);
      assertThat(PlainQuantity.scaled(q, false)).as(s).isEqualTo(PlainQuantity.NOT_PLAIN);
      assertThat(PlainQuantity.scaled(q, true)).as(s).isEqualTo(PlainQuantity.NOT_PLAIN);
    }
    assertThat(PlainQuantity.scaled(new Quantity(null, "m"), false)).isEqualTo(PlainQuantity.NOT_PLAIN);
    assertThat(PlainQuantity.scaled(null, false)).isEqualTo(PlainQuantity.NOT_PLAIN);
    // overflow of long: the general path reports it
    Quantity huge = new Quantity("999999999999999999", "P");
    assertThat(PlainQuantity.scaled(huge, false)).isEqualTo(PlainQuantity.NOT_PLAIN);
    assertThatThrownBy(() -> Quantities.value(huge, "spec.x")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("out of range");
    // fabric8 rounds 2^60 to 16 digits: 1Ei is not 2^60 there, and stays as fabric8 computes it
    assertThat(Quantities.value(new Quantity("1Ei"), "f")).isEqualTo(reference(new Quantity("1Ei"), false));
  }
}
