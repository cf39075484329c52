package dev.streamform.cli;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An {@link OutOfMemoryError} anywhere in the command's JVM (a runner's worker thread, the main
 * thread) said in one line on standard error, with what ran out and what to do, and the JVM halted
 * with exit 1: a runner whose worker died can wait for it forever, so nothing is left to end
 * cleanly (docs/decisions/0152). Any other uncaught exception in a thread is printed as the JVM
 * prints it.
 */
final class OutOfMemory {
  /** Exit status after running out of memory. */
  static final int STATUS = 1;

  private static final AtomicBoolean SAID = new AtomicBoolean();

  /** Freed when memory runs out, so the line can be written. */
  @SuppressWarnings("unused")
  private static volatile byte[] reserve;

  private OutOfMemory() {}

  /** Installs the JVM's default handler of uncaught exceptions; first thing in {@code main}. */
  static void install() {
    reserve = new byte[256 * 1024];
    String heap = line(new OutOfMemoryError("Java heap space")); // made now, while there is room
    Thread.setDefaultUncaughtExceptionHandler(
        (thread, e) -> {
          OutOfMemoryError oom = find(e);
          if (oom == null) {
            // what the JVM prints when no handler is set
            System.err.print("Exception in thread \"" + thread.getName() + "\" ");
            e.printStackTrace(System.err);
            return;
          }
          halt(isHeap(oom) ? heap : null, oom);
        });
  }

  /** Says {@code line} (or the line for {@code oom}) once, and halts the JVM with exit 1. */
  static void halt(String line, OutOfMemoryError oom) {
    reserve = null;
    if (SAID.compareAndSet(false, true)) {
      PrintStream err = System.err;
      try {
        err.println(line != null ? line : line(oom));
        err.flush();
      } catch (Throwable ignored) {
        // nothing more can be said
      }
    }
    Runtime.getRuntime().halt(STATUS);
  }

  /** The {@link OutOfMemoryError} {@code e} is or was caused by; null when none. */
  static OutOfMemoryError find(Throwable e) {
    for (int depth = 0; e != null && depth < 20; e = e.getCause(), depth++) {
      if (e instanceof OutOfMemoryError oom) {
        return oom;
      }
      for (Throwable s : e.getSuppressed()) {
        if (s instanceof OutOfMemoryError oom) {
          return oom;
        }
      }
    }
    return null;
  }

  private static boolean isHeap(OutOfMemoryError oom) {
    String m = String.valueOf(oom.getMessage());
    return m.contains("Java heap space")
        || m.contains("GC overhead limit")
        || m.contains("Requested array size");
  }

  /** The one line: what ran out and the fixes. */
  static String line(OutOfMemoryError oom) {
    String fixes =
        "give the JVM more with STREAMFORM_JAVA_OPTS=-Xmx<size> (e.g. -Xmx"
            + suggestedGigabytes()
            + "g), or on the DirectRunner run it with --runner flink, which holds far less of the"
            + " input in memory";
    if (isHeap(oom)) {
      return String.format(
          Locale.ROOT,
          "streamform: out of memory: the Java heap (at most %d MiB) is full: %s",
          Runtime.getRuntime().maxMemory() / (1024 * 1024),
          fixes);
    }
    String m = String.valueOf(oom.getMessage());
    if (m.contains("Metaspace")) {
      return "streamform: out of memory: the JVM's metaspace (class metadata) is full: raise it"
          + " with STREAMFORM_JAVA_OPTS=-XX:MaxMetaspaceSize=<size>, or remove that option";
    }
    return "streamform: out of memory: "
        + m
        + ": "
        + fixes.replace("give the JVM more", "give the JVM more heap");
  }

  /** Twice the heap it had, in GiB, at least 2. */
  private static long suggestedGigabytes() {
    long gib = Runtime.getRuntime().maxMemory() * 2 / (1024L * 1024 * 1024);
    return Math.max(2, gib + 1);
  }
}
