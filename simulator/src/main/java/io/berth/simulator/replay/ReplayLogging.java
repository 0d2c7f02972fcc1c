package io.berth.simulator.replay;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import java.util.Iterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * berth-replay prints its report on standard output (JSON with {@code --json}), so its logs go to
 * standard error, and only warnings and errors: the scheduler's start-up and per-pod logs would
 * drown the report. Called once, from {@code main}, before anything logs.
 */
final class ReplayLogging {
  private ReplayLogging() {}

  static void toStandardError() {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
      return;
    }
    ch.qos.logback.classic.Logger root = ctx.getLogger(Logger.ROOT_LOGGER_NAME);
    for (Iterator<Appender<ILoggingEvent>> it = root.iteratorForAppenders(); it.hasNext();) {
      if (it.next() instanceof ConsoleAppender<ILoggingEvent> console) {
        console.stop();
        console.setTarget("System.err");
        console.start();
      }
    }
    ctx.getLogger("io.berth").setLevel(Level.WARN);
  }
}
