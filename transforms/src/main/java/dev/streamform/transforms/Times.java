package dev.streamform.transforms;

import dev.streamform.core.time.Durations;
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
   * Beam's duration in its canonical spelling ({@link Durations#format}): {@code 5m}, {@code 1h}.
   */
  public static String format(ReadableDuration d) {
    return Durations.format(toJava(d));
  }
}
