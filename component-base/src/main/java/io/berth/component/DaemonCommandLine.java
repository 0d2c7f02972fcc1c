package io.berth.component;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * A picocli {@link CommandLine} set up the way Kubernetes daemons parse flags, with DESIGN.md's exit statuses: a
 * repeated flag takes its last value (Go's {@code pflag}); an unknown flag, a value picocli cannot convert, or a
 * {@link ConfigurationException} thrown by the command is a usage error: its message, which names the flag or
 * field, is printed to the command's error writer with a pointer to {@code --help}, and {@link #execute} returns
 * 2 ({@link CommandLine.ExitCode#USAGE}). Stateless.
 */
public final class DaemonCommandLine {

  /** The exit status of usage and configuration errors. */
  public static final int USAGE_ERROR = CommandLine.ExitCode.USAGE;

  private DaemonCommandLine() {
  }

  /** A command line for {@code command} (a picocli {@code @Command} object). */
  public static CommandLine create(Object command) {
    CommandLine cmd = new CommandLine(command);
    cmd.setOverwrittenOptionsAllowed(true);
    cmd.setParameterExceptionHandler(DaemonCommandLine::usageError);
    cmd.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      if (e instanceof ConfigurationException) {
        return report(commandLine, e.getMessage());
      }
      throw e;
    });
    return cmd;
  }

  private static int usageError(ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    int status = report(cmd, e.getMessage());
    if (e instanceof UnmatchedArgumentException unmatched) {
      UnmatchedArgumentException.printSuggestions(unmatched, cmd.getErr());
    }
    return status;
  }

  private static int report(CommandLine cmd, String message) {
    PrintWriter err = cmd.getErr();
    err.println("Error: " + message);
    err.println("Run '" + cmd.getCommandName() + " --help' for usage.");
    err.flush();
    return USAGE_ERROR;
  }
}
