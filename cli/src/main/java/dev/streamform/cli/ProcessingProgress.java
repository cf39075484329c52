package dev.streamform.cli;

import dev.streamform.pipelines.file.FileModelRun;
import dev.streamform.transforms.StreamformMetrics;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * While a {@code run} on files runs its job on a runner in this process, a line on standard error
 * every {@link #intervalMs} (10 s): how many of the lines read so far the job has dealt with
 * (applied, late, duplicates, quarantined, filtered or punctuations), from the tallies of
 * Streamform's counters in this JVM ({@link StreamformMetrics#countedInThisJvm}). A run shorter
 * than the interval, a run of fewer than {@link #MIN_LINES} lines, and a run whose lines are all
 * dealt with, print none (docs/decisions/0153).
 */
final class ProcessingProgress implements AutoCloseable {
  /** The interval in ms, for a test: not a user's option. */
  static final String INTERVAL_PROPERTY = "streamform.run.processingProgressMs";

  static final long DEFAULT_INTERVAL_MS = 10_000;

  /** Fewer lines read than this say nothing: a small input's run is not long work. */
  static final long MIN_LINES = 5_000;

  private final PrintWriter err;
  private final FileModelRun run;
  private final Map<String, Long> before = StreamformMetrics.countedInThisJvm();
  private final long started = System.nanoTime();
  private final ScheduledExecutorService timer;
  private boolean closed;

  private ProcessingProgress(PrintWriter err, FileModelRun run, long intervalMs) {
    this.err = err;
    this.run = run;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "streamform-run-progress");
              t.setDaemon(true);
              return t;
            });
    timer.scheduleAtFixedRate(this::tick, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
  }

  /** Lines every {@link #intervalMs} while {@code run}'s job runs here, until closed. */
  static ProcessingProgress start(PrintWriter err, FileModelRun run) {
    return new ProcessingProgress(err, run, intervalMs());
  }

  static long intervalMs() {
    Long ms = Long.getLong(INTERVAL_PROPERTY);
    return ms != null && ms > 0 ? ms : DEFAULT_INTERVAL_MS;
  }

  private synchronized void tick() {
    if (closed) {
      return;
    }
    try {
      // dealt with first, read after: both only grow, so dealt with <= read
      long dealtWith = run.countedInThisJvmSince(before).accountedFor();
      long read = run.countedInThisJvmSince(before).recordsRead;
      if (read < MIN_LINES || dealtWith >= read) {
        // a small input (a test's project among them: no line beside its exact output), or
        // writing its outputs: nothing to say
        return;
      }
      err.println(line(dealtWith, read, (System.nanoTime() - started) / 1_000_000_000L));
      err.flush();
    } catch (RuntimeException e) {
      // progress is a courtesy: it never fails a run
    }
  }

  /** The line: {@code dealtWith} of the {@code read} lines read so far, {@code seconds} in. */
  static String line(long dealtWith, long read, long seconds) {
    return String.format(
        Locale.ROOT,
        "streamform run: processing: %,d of the %,d %s read so far dealt with (%d%%), %d s in",
        dealtWith,
        read,
        read == 1 ? "line" : "lines",
        dealtWith * 100 / read,
        seconds);
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
    }
    timer.shutdownNow();
  }
}
