package dev.streamform.cli;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One status line of long work ({@code fuzz}, {@code test} over many projects, {@code produce}),
 * redrawn in place on standard error while a person watches, and nothing at all when the output is
 * piped or captured: {@link #onTerminal} is quiet unless the JVM has a console (standard input and
 * output are a terminal). At most one redraw per {@value #MIN_INTERVAL_MS} ms, so a fast loop costs
 * nothing. {@link #done} clears the line, so the command's own output stays clean.
 */
final class Progress {
  static final long MIN_INTERVAL_MS = 200;

  private final PrintWriter err; // null: quiet
  private final long minIntervalMs;
  private final long started = System.nanoTime();
  private long lastDrawn;
  private int width;

  private Progress(PrintWriter err) {
    this(err, MIN_INTERVAL_MS);
  }

  private Progress(PrintWriter err, long minIntervalMs) {
    this.err = err;
    this.minIntervalMs = minIntervalMs;
  }

  /**
   * A progress line on {@code err} whether or not a person watches, redrawn at most every {@code
   * minIntervalMs}: for tests.
   */
  static Progress to(PrintWriter err, long minIntervalMs) {
    return new Progress(err, minIntervalMs);
  }

  /** A progress line on {@code err} when a person is watching a terminal; else a quiet one. */
  static Progress onTerminal(PrintWriter err) {
    return new Progress(System.console() != null ? err : null);
  }

  /** A progress line that never shows. */
  static Progress quiet() {
    return new Progress(null);
  }

  boolean shows() {
    return err != null;
  }

  /** Shows {@code text}, unless a line was drawn less than the interval ago. */
  void show(String text) {
    if (err == null) {
      return;
    }
    long now = System.nanoTime() / 1_000_000;
    if (now - lastDrawn < minIntervalMs) {
      return;
    }
    lastDrawn = now;
    err.print("\r" + text + " ".repeat(Math.max(0, width - text.length())));
    width = text.length();
    err.flush();
  }

  /** {@code done} of {@code total} units, with an estimate of the time left. */
  void show(String what, int done, int total, String detail) {
    show(line(what, done, total, detail, (System.nanoTime() - started) / 1e9));
  }

  /** The text of a progress line: what, count, detail, elapsed and the time left at this pace. */
  static String line(String what, int done, int total, String detail, double elapsedSeconds) {
    String eta =
        done == 0 || done >= total
            ? ""
            : String.format(Locale.ROOT, ", ETA %.0fs", elapsedSeconds / done * (total - done));
    return String.format(
        Locale.ROOT,
        "%s %d/%d%s (%.0fs%s)",
        what,
        done,
        total,
        detail.isEmpty() ? "" : ", " + detail,
        elapsedSeconds,
        eta);
  }

  /**
   * For {@code test} over a folder of projects: how many projects have all their results (a
   * project's small fixtures may run later, in one pipeline with the next projects'), which one is
   * the next to finish, and the time left at this pace; cleared before each fixture's result is
   * printed, and drawn again as each project finishes.
   */
  FixtureSuite.Listener projects() {
    return new FixtureSuite.Listener() {
      private final List<Path> started = new ArrayList<>();
      private int finished;

      @Override
      public void project(int index, int count, Path dir) {
        started.add(dir);
        draw(count);
      }

      @Override
      public void projectDone(int index, int count, Path dir) {
        finished = index + 1;
        draw(count);
      }

      private void draw(int count) {
        if (count > 1) {
          done();
          if (finished < count) {
            show(
                "test: projects done",
                finished,
                count,
                finished < started.size() ? "running " + started.get(finished).getFileName() : "");
          }
        }
      }

      @Override
      public void fixture(DeclaredModel model, FixtureVerdict verdict) {
        done();
      }

      @Override
      public void result(FixtureSuite.Result result) {
        done(); // before it prints: a fixture that could not run is heard only here
      }
    };
  }

  /** Clears the line before the command prints on. */
  void done() {
    if (err != null && width > 0) {
      err.print("\r" + " ".repeat(width) + "\r");
      err.flush();
      width = 0;
      lastDrawn = 0;
    }
  }
}
