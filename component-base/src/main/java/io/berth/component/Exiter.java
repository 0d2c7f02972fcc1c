package io.berth.component;

/**
 * Ends the process with a status: the one way out of a Berth daemon, so that tests can inject a recording exiter
 * and check exit codes without ending the test JVM. Status codes: 0 after a requested shutdown (SIGTERM), 1 when
 * the daemon fails or loses its leader Lease, 2 for usage and configuration errors. Thread-safe.
 */
@FunctionalInterface
public interface Exiter {

  /** Ends the process with {@code status}; the system exiter never returns, test exiters do. */
  void exit(int status);

  /**
   * The JVM's exit: {@link System#exit(int)}, or {@link Runtime#halt(int)} when called while the JVM is already
   * shutting down (from a shutdown hook, after SIGTERM), where {@code System.exit} would block forever and the JVM
   * would otherwise exit with 143 instead of the daemon's status.
   */
  Exiter SYSTEM = JvmExiter.INSTANCE;
}
