package io.berth.component;

import java.util.logging.Level;
import java.util.logging.LogManager;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Process-wide logging setup of the daemons: everything goes through SLF4J (the daemon's logback configuration
 * decides levels and format). Libraries that log through {@code java.util.logging} (Vert.x, parts of the JDK) are
 * routed to SLF4J; JUL's own threshold is INFO so that debug records are not even created. Idempotent and
 * thread-safe.
 */
public final class Logging {

  private static boolean julBridged; // guarded by Logging.class

  private Logging() {
  }

  /** Routes {@code java.util.logging} to SLF4J, once per JVM. */
  public static synchronized void bridgeJulToSlf4j() {
    if (julBridged) {
      return;
    }
    LogManager.getLogManager().reset();
    SLF4JBridgeHandler.removeHandlersForRootLogger();
    SLF4JBridgeHandler.install();
    java.util.logging.Logger.getLogger("").setLevel(Level.INFO);
    julBridged = true;
  }
}
