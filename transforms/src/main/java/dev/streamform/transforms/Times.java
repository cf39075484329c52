package dev.streamform.transforms;

import dev.streamform.core.time.Durations;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.ReadableDuration;
import org.joda.time.ReadableInstant;

/**
 * The one place Joda time (Beam's) and {@code java.time} (declarations, sinks, the core) are
 * converted: both at millisecond precision, which is all Beam's timestamps carry.
 */
public final class Times {
  private Times() {}

  /** {@code d} as Beam's duration. */
  public static org.joda.time.Duration toJoda(java.time.Duration d) {
    return org.joda.time.Duration.millis(d.toMillis());
  }

  /** {@code t} as Beam's instant. */
  public static org.joda.time.Instant toJoda(java.time.Instant t) {
    return new org.joda.time.Instant(t.toEpochMilli());
  }

  /** Beam's duration {@code d} as a {@code java.time} one. */
  public static java.time.Duration toJava(ReadableDuration d) {
    return java.time.Duration.ofMillis(d.getMillis());
  }

  /** Beam's instant {@code t} as a {@code java.time} one. */
  public static java.time.Instant toJava(ReadableInstant t) {
    return java.time.Instant.ofEpochMilli(t.getMillis());
  }

  /**
   * Refuses {@code d}, given to {@code call}, when it is longer than {@link Durations#MAX} (36500
   * days), as a declared duration is: added to an event time in the accepted range a longer one
   * could leave Beam's timestamps, and the pipeline would stop at its first timer
   * (docs/decisions/0212). A null {@code d} passes: the caller's own check names it.
   *
   * @throws IllegalArgumentException naming the call, the duration and the cap
   */
  public static void checkAtMostMax(String call, @Nullable ReadableDuration d) {
    if (d != null && d.getMillis() > Durations.MAX.toMillis()) {
      throw new IllegalArgumentException(
          call
              + "("
              + format(d)
              + "): "
              + format(d)
              + " is longer than "
              + Durations.format(Durations.MAX)
              + " (100 years), the longest duration Streamform adds to an event time or a"
              + " clock: give at most "
              + Durations.format(Durations.MAX));
    }
  }

  /**
   * Beam's duration in its canonical spelling ({@link Durations#format}): {@code 5m}, {@code 1h}.
   */
  public static String format(ReadableDuration d) {
    return Durations.format(toJava(d));
  }
}
