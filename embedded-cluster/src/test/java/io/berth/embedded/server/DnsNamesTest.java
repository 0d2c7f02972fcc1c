package io.berth.embedded.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The hand-written RFC 1123 checks accept exactly what upstream's patterns accept. */
class DnsNamesTest {

  private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  @Test
  void edgeCases() {
    assertThat(DnsNames.isSubdomain("pod-1.example")).isTrue();
    assertThat(DnsNames.isSubdomain("a")).isTrue();
    assertThat(DnsNames.isSubdomain("")).isFalse();
    assertThat(DnsNames.isSubdomain("a.")).isFalse();
    assertThat(DnsNames.isSubdomain(".a")).isFalse();
    assertThat(DnsNames.isSubdomain("a..b")).isFalse();
    assertThat(DnsNames.isSubdomain("a-.b")).isFalse();
    assertThat(DnsNames.isSubdomain("Pod")).isFalse();
    assertThat(DnsNames.isLabel("a.b")).isFalse();
    assertThat(DnsNames.isLabel("-a")).isFalse();
    assertThat(DnsNames.isLabel("a-b-9")).isTrue();
  }

  @Test
  void agreeWithThePatternsOnRandomNames() {
    Random random = new Random(16);
    String alphabet = "ab9-.Z_";
    int accepted = 0;
    for (int n = 0; n < 200_000; n++) {
      StringBuilder name = new StringBuilder();
      int length = random.nextInt(9);
      for (int i = 0; i < length; i++) {
        name.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String s = name.toString();
      assertThat(DnsNames.isLabel(s)).as("label %s", s).isEqualTo(LABEL.matcher(s).matches());
      assertThat(DnsNames.isSubdomain(s)).as("subdomain %s", s).isEqualTo(SUBDOMAIN.matcher(s).matches());
      accepted += DnsNames.isSubdomain(s) ? 1 : 0;
    }
    assertThat(accepted).isGreaterThan(1_000);
  }
}
