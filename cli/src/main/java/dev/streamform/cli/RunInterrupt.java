package dev.streamform.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Ctrl-C (SIGINT) or SIGTERM while {@code streamform run} runs: says on standard error, in one
 * line, that the run was interrupted and what became of its outputs ({@code said}, asked when the
 * signal comes), then hands the signal to the handler it replaced, so the JVM ends as before (130,
 * 143). The handlers go back when closed. Where the JVM lets no one handle a signal (-Xrs), nothing
 * is installed for it and it ends the JVM silently, as before (docs/decisions/0142).
 */
final class RunInterrupt implements AutoCloseable {
  private final List<Signal> signals = new ArrayList<>();
  private final List<SignalHandler> previous = new ArrayList<>();
  private boolean said;

  private RunInterrupt(PrintWriter err, Supplier<String> what) {
    for (String name : List.of("INT", "TERM")) {
      Signal signal = new Signal(name);
      int index = signals.size();
      SignalHandler mine =
          s -> {
            say(err, s, what);
            SignalHandler before = previous.get(index);
            try {
              before.handle(s); // the JVM's own: ends it with 128 + the signal's number
            } catch (UnsupportedOperationException | IllegalArgumentException e) {
              System.exit(128 + s.getNumber()); // a native handler cannot be called from Java
            }
          };
      try {
        previous.add(Signal.handle(signal, mine));
        signals.add(signal);
      } catch (IllegalArgumentException | UnsupportedOperationException e) {
        // -Xrs, or a platform without this signal: it ends the JVM as before
      }
    }
  }

  /** Handlers of SIGINT and SIGTERM that say {@code what} before the run ends, until closed. */
  static RunInterrupt install(PrintWriter err, Supplier<String> what) {
    return new RunInterrupt(err, what);
  }

  private synchronized void say(PrintWriter err, Signal s, Supplier<String> what) {
    if (said) {
      return;
    }
    said = true;
    String more;
    try {
      more = what.get();
    } catch (RuntimeException e) {
      more = "";
    }
    err.println(
        "streamform run: interrupted (SIG"
            + s.getName()
            + ")"
            + (more.isEmpty() ? "" : ": " + more));
    err.flush();
  }

  @Override
  public synchronized void close() {
    for (int i = 0; i < signals.size(); i++) {
      Signal.handle(signals.get(i), previous.get(i));
    }
    signals.clear();
  }
}
