package dev.streamform.core.time;

import java.time.Instant;

/**
 * The event times Streamform accepts: from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, the
 * instants RFC 3339 can write. A time past either end is a typo (epoch seconds written with extra
 * digits), never a real event time, and a runner's arithmetic on it (a watermark's delay, a state's
 * retention, a window's end) would leave the range of time it holds. Fixtures, files and Kafka
 * records ({@code Timestamps}) and the engine's extraction alike refuse one, with {@link
 * #outOfRange}'s reason (ADR 0212).
 */
public final class EventTimeRange {
  private EventTimeRange() {}

  /** The earliest event time accepted: the first instant RFC 3339 can write. */
  public static final Instant MIN = Instant.parse("0001-01-01T00:00:00Z");

  /** The latest event time accepted: the last millisecond RFC 3339 can write. */
  public static final Instant MAX = Instant.parse("9999-12-31T23:59:59.999Z");

  /** Whether {@code epochMillis} is an event time Streamform accepts. */
  public static boolean contains(long epochMillis) {
    return epochMillis >= MIN.toEpochMilli() && epochMillis <= MAX.toEpochMilli();
  }

  /**
   * {@code <shown> is out of range: event times lie between 0001-01-01T00:00:00Z and
   * 9999-12-31T23:59:59.999Z (epoch milliseconds -62135596800000 to 253402300799999)}.
   *
   * @param shown the value as the message quotes it
   */
  public static String outOfRange(String shown) {
    return shown
        + " is out of range: event times lie between "
        + MIN
        + " and "
        + MAX
        + " (epoch milliseconds "
        + MIN.toEpochMilli()
        + " to "
        + MAX.toEpochMilli()
        + ")";
  }
}
