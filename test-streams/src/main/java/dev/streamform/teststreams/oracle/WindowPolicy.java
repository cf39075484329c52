package dev.streamform.teststreams.oracle;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The window settings of a windowed model (docs/semantics.md §6), as the {@link WindowedOracle} reads
 * them: windows of {@code size} starting at every multiple of {@code every} from the epoch
 * ({@code every == size} for tumbling windows), corrections accepted until {@code allowedLateness}
 * after a window's end, a preview after every {@code earlyEveryEvents}-th on-time event of a key's
 * window (0: none), and the policy {@code generation}. Immutable; the constructor refuses what
 * {@code streamform check} refuses.
 *
 * @param model the model's name (part of every window's {@code logical_window_id})
 * @param size the window length, a positive whole number of milliseconds
 * @param every the distance between window starts; {@code size} must be a multiple of it
 * @param allowedLateness how long after a window's end corrections are accepted, not negative
 * @param earlyEveryEvents N of {@code early_results: every N events}, or 0 for none
 * @param generation the policy generation, positive
 */
public record WindowPolicy(
    String model,
    Duration size,
    Duration every,
    Duration allowedLateness,
    int earlyEveryEvents,
    int generation) {

  public WindowPolicy {
    check(!model.isEmpty(), "a model name");
    check(isWholeMillis(size) && !size.isZero(), "a positive window size in whole milliseconds");
    check(isWholeMillis(every) && !every.isZero(), "a positive `every` in whole milliseconds");
    check(size.toMillis() % every.toMillis() == 0, "a window size that is a multiple of `every`");
    check(!allowedLateness.isNegative(), "an allowed lateness that is not negative");
    check(earlyEveryEvents >= 0, "early results every N >= 1 events, or 0 for none");
    check(generation >= 1, "a positive generation");
  }

  /** Tumbling windows of {@code size} aligned to the epoch; no lateness, no previews, generation 1. */
  public static WindowPolicy tumbling(String model, Duration size) {
    return new WindowPolicy(model, size, size, Duration.ZERO, 0, 1);
  }

  /** Hopping windows {@code {size, every}}; no lateness, no previews, generation 1. */
  public static WindowPolicy hopping(String model, Duration size, Duration every) {
    return new WindowPolicy(model, size, every, Duration.ZERO, 0, 1);
  }

  public WindowPolicy withAllowedLateness(Duration allowedLateness) {
    return new WindowPolicy(model, size, every, allowedLateness, earlyEveryEvents, generation);
  }

  /** {@code early_results: every n events}. */
  public WindowPolicy withEarlyResultsEvery(int n) {
    return new WindowPolicy(model, size, every, allowedLateness, n, generation);
  }

  public WindowPolicy withGeneration(int generation) {
    return new WindowPolicy(model, size, every, allowedLateness, earlyEveryEvents, generation);
  }

  /** The starts of the {@code size / every} windows {@code [s, s + size)} that contain {@code t}, ascending. */
  public List<Instant> windowStartsOf(Instant t) {
    long step = every.toMillis();
    long millis = t.toEpochMilli(); // floor: window bounds are whole milliseconds
    long last = Math.floorDiv(millis, step) * step;
    List<Instant> starts = new ArrayList<>();
    for (long s = last - size.toMillis() + step; s <= last; s += step) {
      starts.add(Instant.ofEpochMilli(s));
    }
    return starts;
  }

  private static boolean isWholeMillis(Duration d) {
    return !d.isNegative() && d.getNano() % 1_000_000 == 0;
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalArgumentException("a window policy needs " + what);
    }
  }
}
