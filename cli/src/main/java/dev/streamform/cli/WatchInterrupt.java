package dev.streamform.cli;

import java.io.PrintWriter;
import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Ctrl-C while {@code streamform test --watch} watches: the first SIGINT counts the watch's stop
 * down, so the command ends with the first run's status, as its help says, instead of the JVM
 * ending with 130; it then puts back the handler it replaced, so a second Ctrl-C ends the JVM at
 * once (130), as before. SIGTERM is left alone (143). Closing puts the old handler back too. Where
 * the JVM lets no one handle SIGINT (-Xrs), nothing is installed and Ctrl-C ends it with 130.
 */
final class WatchInterrupt implements AutoCloseable {
  static final Signal INT = new Signal("INT");

  private final SignalHandler previous;
  private final SignalHandler mine;
  private boolean restored;

  private WatchInterrupt(CountDownLatch stop, PrintWriter err, int status) {
    this.mine =
        signal -> {
          restore();
          err.println(
              "streamform test: stopping after Ctrl-C with the first run's status "
                  + status
                  + " (Ctrl-C again to stop at once)");
          err.flush();
          stop.countDown();
        };
    this.previous = Signal.handle(INT, mine);
  }

  /**
   * A handler of SIGINT that counts {@code stop} down until closed; null where SIGINT cannot be
   * handled ({@code status} is what the watch will end with, said when Ctrl-C comes).
   */
  static WatchInterrupt install(CountDownLatch stop, PrintWriter err, int status) {
    try {
      return new WatchInterrupt(stop, err, status);
    } catch (IllegalArgumentException | UnsupportedOperationException e) {
      return null; // -Xrs, or a platform without SIGINT: Ctrl-C ends the JVM, as before
    }
  }

  /** The handler this one replaced: what a second Ctrl-C meets. */
  SignalHandler previous() {
    return previous;
  }

  /** The handler this one installed: what the first Ctrl-C meets. */
  SignalHandler handler() {
    return mine;
  }

  private synchronized void restore() {
    if (!restored) {
      restored = true;
      Signal.handle(INT, previous);
    }
  }

  @Override
  public void close() {
    restore();
  }
}
