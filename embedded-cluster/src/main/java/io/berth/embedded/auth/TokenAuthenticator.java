package io.berth.embedded.auth;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The embedded API server's bearer tokens: each maps to a {@link UserInfo}, like kube-apiserver's static token
 * file. Tokens are random (SecureRandom, 256 bits, base64url). Every user authenticated by a token is also in
 * {@code system:authenticated}, as upstream's authenticator chain adds it. Requests are authenticated with
 * {@link #authenticate}; tests and harnesses issue tokens with the other methods.
 *
 * <p>Thread-safe: the tables are concurrent maps, so tokens may be issued while requests are served.
 */
public final class TokenAuthenticator {

  /** The user of {@link #adminToken()}. */
  public static final String ADMIN = "admin";

  private static final SecureRandom RANDOM = new SecureRandom();

  // concurrent map, no further guard: token -> user
  private final Map<String, UserInfo> users = new ConcurrentHashMap<>();
  // concurrent map, computeIfAbsent makes one token per ServiceAccount: "namespace/name" -> token
  private final Map<String, String> serviceAccountTokens = new ConcurrentHashMap<>();
  private final String adminToken;

  public TokenAuthenticator() {
    this.adminToken = issueToken(ADMIN, List.of(UserInfo.MASTERS));
  }

  /** The token of user {@code admin} in {@code system:masters}: allowed everything. */
  public String adminToken() {
    return adminToken;
  }

  /**
   * A new random token for {@code username} in {@code groups} (plus {@code system:authenticated}), with a new uid.
   */
  public String issueToken(String username, List<String> groups) {
    String token = randomToken();
    addToken(token, new UserInfo(requireName(username), UUID.randomUUID().toString(), groups));
    return token;
  }

  /**
   * The token of ServiceAccount {@code namespace}/{@code name}, issued on the first call and the same afterwards:
   * user {@code system:serviceaccount:<ns>:<name>} in {@code system:serviceaccounts},
   * {@code system:serviceaccounts:<ns>} and {@code system:authenticated}. The ServiceAccount need not exist.
   */
  public String serviceAccountToken(String namespace, String name) {
    requireName(namespace);
    requireName(name);
    return serviceAccountTokens.computeIfAbsent(namespace + "/" + name, k -> {
      String token = randomToken();
      addToken(token, new UserInfo(UserInfo.serviceAccountUsername(namespace, name), UUID.randomUUID().toString(),
          List.of("system:serviceaccounts", "system:serviceaccounts:" + namespace)));
      return token;
    });
  }

  /** Accepts {@code token} as {@code user} (plus {@code system:authenticated}); replaces an earlier mapping. */
  public void addToken(String token, UserInfo user) {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("a token must not be empty");
    }
    Objects.requireNonNull(user, "user");
    requireName(user.username());
    List<String> groups = new ArrayList<>(user.groups());
    if (!groups.contains(UserInfo.AUTHENTICATED)) {
      groups.add(UserInfo.AUTHENTICATED);
    }
    users.put(token, new UserInfo(user.username(), user.uid(), groups));
  }

  /** Stops accepting {@code token}. */
  public void revoke(String token) {
    users.remove(token);
    serviceAccountTokens.values().remove(token);
  }

  /** The user {@code token} authenticates, if it is known. */
  public Optional<UserInfo> authenticate(String token) {
    return token == null ? Optional.empty() : Optional.ofNullable(users.get(token));
  }

  private static String requireName(String s) {
    if (s == null || s.isBlank()) {
      throw new IllegalArgumentException("a user, namespace or ServiceAccount name must not be empty");
    }
    return s;
  }

  private static String randomToken() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
