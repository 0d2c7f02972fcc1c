package io.berth.embedded.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Token issuing and lookup. */
class TokenAuthenticatorTest {

  private final TokenAuthenticator tokens = new TokenAuthenticator();

  @Test
  void adminIsInSystemMasters() {
    UserInfo admin = tokens.authenticate(tokens.adminToken()).orElseThrow();
    assertThat(admin.username()).isEqualTo("admin");
    assertThat(admin.groups()).containsExactly(UserInfo.MASTERS, UserInfo.AUTHENTICATED);
  }

  @Test
  void serviceAccountTokensAreStablePerServiceAccount() {
    String t = tokens.serviceAccountToken("ns", "sa");
    assertThat(tokens.serviceAccountToken("ns", "sa")).isEqualTo(t);
    assertThat(tokens.serviceAccountToken("ns", "other")).isNotEqualTo(t);
    UserInfo user = tokens.authenticate(t).orElseThrow();
    assertThat(user.username()).isEqualTo("system:serviceaccount:ns:sa");
    assertThat(user.groups()).containsExactly("system:serviceaccounts", "system:serviceaccounts:ns",
        UserInfo.AUTHENTICATED);
    assertThat(user.uid()).isNotEmpty();
  }

  @Test
  void issuedTokensAreRandomAndRevocable() {
    String a = tokens.issueToken("bob", List.of("g"));
    String b = tokens.issueToken("bob", List.of("g"));
    assertThat(a).isNotEqualTo(b).hasSizeGreaterThanOrEqualTo(40);
    assertThat(tokens.authenticate(a).orElseThrow().groups()).containsExactly("g", UserInfo.AUTHENTICATED);
    tokens.revoke(a);
    assertThat(tokens.authenticate(a)).isEmpty();
    assertThat(tokens.authenticate(b)).isPresent();
    assertThat(tokens.authenticate("nope")).isEmpty();
  }

  @Test
  void givenTokensMapToTheirUser() {
    tokens.addToken("fixed-token", new UserInfo("carol", "u-1", List.of(UserInfo.AUTHENTICATED)));
    assertThat(tokens.authenticate("fixed-token").orElseThrow())
        .isEqualTo(new UserInfo("carol", "u-1", List.of(UserInfo.AUTHENTICATED)));
    assertThatThrownBy(() -> tokens.addToken(" ", new UserInfo("x", "", List.of())))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
