package io.berth.component;

/**
 * {@link Exiter#SYSTEM}. Whether the JVM is already shutting down is learnt the only portable way: registering a
 * hook then fails with {@link IllegalStateException}. Stateless.
 */
final class JvmExiter implements Exiter {

  static final JvmExiter INSTANCE = new JvmExiter();

  private JvmExiter() {
  }

  @Override
  public void exit(int status) {
    if (shuttingDown()) {
      // The console log appenders flush every event, so nothing logged so far is lost.
      Runtime.getRuntime().halt(status);
    }
    System.exit(status);
  }

  static boolean shuttingDown() {
    Thread probe = new Thread(() -> { });
    try {
      Runtime.getRuntime().addShutdownHook(probe);
      Runtime.getRuntime().removeShutdownHook(probe);
      return false;
    } catch (IllegalStateException e) {
      return true;
    }
  }
}
