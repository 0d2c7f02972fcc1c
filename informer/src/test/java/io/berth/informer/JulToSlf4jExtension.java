package io.berth.informer;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Routes java.util.logging (used by fabric8's mock web server, which logs every request at INFO)
 * through SLF4J so the quiet logback-test.xml governs it. Registered for every test class through
 * JUnit's extension auto-detection (see junit-platform.properties).
 */
public final class JulToSlf4jExtension implements BeforeAllCallback {
  private static final Object LOCK = new Object();
  // guarded by LOCK
  private static boolean installed;

  @Override
  public void beforeAll(ExtensionContext context) {
    synchronized (LOCK) {
      if (!installed) {
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
        // Let only WARNING and above reach the bridge: building JUL records is not free.
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        installed = true;
      }
    }
  }
}
