package io.berth.embedded.names;

import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * Names for objects created with {@code metadata.generateName}, as kube-apiserver's
 * {@code names.SimpleNameGenerator} makes them: the base, cut to {@value #MAX_GENERATED_NAME_LENGTH}
 * characters, followed by {@value #RANDOM_LENGTH} characters drawn uniformly from
 * {@value #ALPHABET} (apimachinery's {@code rand.String} alphabet, without vowels and look-alike
 * characters), so a generated name never exceeds {@value #MAX_NAME_LENGTH} characters.
 *
 * <p>The server generates a name only when {@code metadata.name} is empty and {@code generateName} is
 * set; on a name collision kube-apiserver (RetryGenerateName, GA in 1.32) retries with a new suffix.
 *
 * <p>Thread-safe when its random source is: the default draws from {@link ThreadLocalRandom};
 * a {@link java.util.Random} is thread-safe too. Immutable otherwise.
 */
public final class NameGenerator {

  /** The characters a suffix is drawn from. */
  public static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
  /** The length of the random suffix. */
  public static final int RANDOM_LENGTH = 5;
  /** The longest name a generated name may be (a DNS label). */
  public static final int MAX_NAME_LENGTH = 63;
  /** The longest base kept before the suffix. */
  public static final int MAX_GENERATED_NAME_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH;

  private static final NameGenerator DEFAULT = new NameGenerator(() -> ThreadLocalRandom.current().nextLong());

  private final RandomGenerator random;

  /** A generator drawing suffix characters from {@code random}, e.g. a seeded {@link java.util.Random} in tests. */
  public NameGenerator(RandomGenerator random) {
    this.random = Objects.requireNonNull(random, "random");
  }

  /** The generator used in production, backed by {@link ThreadLocalRandom}. */
  public static NameGenerator create() {
    return DEFAULT;
  }

  /**
   * A name for an object whose {@code generateName} is {@code base}.
   *
   * @param base the {@code metadata.generateName}, e.g. {@code web-7d4b9c-}
   * @return the base, truncated to {@value #MAX_GENERATED_NAME_LENGTH} characters, plus a random suffix
   */
  public String generateName(String base) {
    Objects.requireNonNull(base, "base");
    String kept = base.length() > MAX_GENERATED_NAME_LENGTH ? base.substring(0, MAX_GENERATED_NAME_LENGTH) : base;
    StringBuilder name = new StringBuilder(kept.length() + RANDOM_LENGTH).append(kept);
    for (int i = 0; i < RANDOM_LENGTH; i++) {
      name.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
    }
    return name.toString();
  }
}
