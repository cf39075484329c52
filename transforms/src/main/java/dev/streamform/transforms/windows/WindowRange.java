package dev.streamform.transforms.windows;

import dev.streamform.core.time.EventTimeRange;
import java.time.Instant;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The times a window's bounds may take: those of an event time ({@link EventTimeRange}), from
 * 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, which policies' {@code Timestamps} reads
 * fixtures, files and outputs back in. An event near either end can fall in a window that reaches
 * past it — a local month of a zone west of UTC that began in the year 0, an hour that ends in the
 * year 10000 — and such a window could be neither written as a timestamp nor read back, so the
 * event is quarantined with {@link #refusal}'s reason (the stage and the oracle alike).
 */
public final class WindowRange {
  /** 0001-01-01T00:00:00Z in epoch milliseconds. */
  public static final long MIN_MILLIS = EventTimeRange.MIN.toEpochMilli();

  /** 9999-12-31T23:59:59.999Z in epoch milliseconds. */
  public static final long MAX_MILLIS = EventTimeRange.MAX.toEpochMilli();

  private WindowRange() {}

  /**
   * Why an event at {@code eventTime} cannot be in the window {@code [start, end)}, or null when
   * both bounds are within the range.
   */
  public static @Nullable String refusal(long eventTime, long start, long end) {
    if (start >= MIN_MILLIS && end <= MAX_MILLIS) {
      return null;
    }
    return "event time "
        + Instant.ofEpochMilli(eventTime)
        + " is in the window ["
        + Instant.ofEpochMilli(start)
        + ", "
        + Instant.ofEpochMilli(end)
        + "), which "
        + (start < MIN_MILLIS
            ? "begins before " + Instant.ofEpochMilli(MIN_MILLIS)
            : "ends after " + Instant.ofEpochMilli(MAX_MILLIS))
        + ": a window's bounds are timestamps too, which lie between "
        + Instant.ofEpochMilli(MIN_MILLIS)
        + " and "
        + Instant.ofEpochMilli(MAX_MILLIS);
  }
}
