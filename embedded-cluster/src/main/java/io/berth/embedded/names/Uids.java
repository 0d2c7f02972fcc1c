package io.berth.embedded.names;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Object uids as kube-apiserver assigns them on create ({@code uuid.NewUUID()}: a random, version 4, RFC 4122 UUID
 * in its 36-character text form). Drawn from {@link ThreadLocalRandom} instead of {@link UUID#randomUUID()}'s shared
 * {@code SecureRandom}: a uid must be unique, not unpredictable (nothing here trusts a uid as a secret), and the
 * shared generator is one lock every creating thread queues on. Stateless; thread-safe.
 */
public final class Uids {

  private Uids() {
  }

  /** A new random (version 4, IETF variant) uid. */
  public static String random() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long most = (random.nextLong() & ~0xF000L) | 0x4000L;
    long least = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(most, least).toString();
  }
}
