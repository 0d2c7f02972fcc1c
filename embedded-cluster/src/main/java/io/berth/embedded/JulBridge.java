package io.berth.embedded;

import java.util.logging.LogManager;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Routes java.util.logging (which the fabric8 mock transport and Vert.x use, at INFO for every request) to SLF4J,
 * once per JVM. Thread-safe and idempotent.
 */
public final class JulBridge {

  private static volatile boolean installed;

  private JulBridge() {
  }

  public static synchronized void install() {
    if (installed) {
      return;
    }
    LogManager.getLogManager().reset();
    SLF4JBridgeHandler.install();
    java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.INFO);
    java.util.logging.Logger.getLogger("io.fabric8.mockwebserver").setLevel(java.util.logging.Level.WARNING);
    installed = true;
  }
}
