package dev.streamform.teststreams.oracle;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;

/**
 * The window settings of a windowed model (docs/semantics.md §6), as the {@link WindowedOracle}
 * reads them: windows of {@code size} starting at every multiple of {@code every} from the epoch
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
 * @param calendar calendar windows (docs/semantics.md §6.22), or null for fixed ones; when set,
 *     {@code size} and {@code every} are only nominal
 */
public record WindowPolicy(
    String model,
    Duration size,
    Duration every,
    Duration allowedLateness,
    int earlyEveryEvents,
    int generation,
    Calendar calendar) {

  /**
   * Local days, weeks or months of {@code zone}. The oracle works their bounds out on its own with
   * java.time's zone rules, sharing no code with the engine's windows, so the two only agree when
   * both read the zone database right. A window starts at the earliest local midnight of its first
   * day (where the clocks fall back at midnight, it happens twice) and is the one whose bounds
   * contain the instant, even where local time re-enters the previous date after midnight
   * (docs/decisions/0214).
   *
   * @param unit {@link ChronoUnit#DAYS}, {@link ChronoUnit#WEEKS} or {@link ChronoUnit#MONTHS}
   */
  public record Calendar(ChronoUnit unit, ZoneId zone, DayOfWeek weekStarts) {
    public Calendar {
      check(
          unit == ChronoUnit.DAYS || unit == ChronoUnit.WEEKS || unit == ChronoUnit.MONTHS,
          "a calendar unit of days, weeks or months");
    }

    /** The start of the local day, week or month whose window contains {@code t}. */
    Instant startOf(Instant t) {
      Instant start = midnight(first(LocalDate.ofInstant(t, zone)));
      for (Instant end = endOf(start); !end.isAfter(t); end = endOf(start)) {
        start = end;
      }
      return start;
    }

    /** The end of the window that starts at {@code start}: the next local midnight of its kind. */
    Instant endOf(Instant start) {
      return midnight(first(LocalDate.ofInstant(start, zone)).plus(1, unit));
    }

    /** The first day of the day, week or month holding {@code day}. */
    private LocalDate first(LocalDate day) {
      if (unit == ChronoUnit.WEEKS) {
        return day.with(TemporalAdjusters.previousOrSame(weekStarts));
      }
      return unit == ChronoUnit.MONTHS ? day.withDayOfMonth(1) : day;
    }

    /** The earliest instant {@code day} is the local date: its first midnight, or the gap's end. */
    private Instant midnight(LocalDate day) {
      return day.atStartOfDay(zone).toInstant();
    }
  }

  /** Fixed (tumbling or hopping) windows. */
  public WindowPolicy(
      String model,
      Duration size,
      Duration every,
      Duration allowedLateness,
      int earlyEveryEvents,
      int generation) {
    this(model, size, every, allowedLateness, earlyEveryEvents, generation, null);
  }

  /** The end (exclusive) of the window that starts at {@code start}. */
  public Instant windowEndOf(Instant start) {
    return calendar == null ? start.plus(size) : calendar.endOf(start);
  }

  /** The zone in a calendar window's identity, or null for fixed windows. */
  public String identityZone() {
    return calendar == null ? null : calendar.zone().getId();
  }

  public WindowPolicy {
    check(!model.isEmpty(), "a model name");
    check(isWholeMillis(size) && !size.isZero(), "a positive window size in whole milliseconds");
    check(isWholeMillis(every) && !every.isZero(), "a positive `every` in whole milliseconds");
    check(size.toMillis() % every.toMillis() == 0, "a window size that is a multiple of `every`");
    check(!allowedLateness.isNegative(), "an allowed lateness that is not negative");
    check(earlyEveryEvents >= 0, "early results every N >= 1 events, or 0 for none");
    check(generation >= 1, "a positive generation");
  }

  /**
   * Tumbling windows of {@code size} aligned to the epoch; no lateness, no previews, generation 1.
   */
  public static WindowPolicy tumbling(String model, Duration size) {
    return new WindowPolicy(model, size, size, Duration.ZERO, 0, 1);
  }

  /** Hopping windows {@code {size, every}}; no lateness, no previews, generation 1. */
  public static WindowPolicy hopping(String model, Duration size, Duration every) {
    return new WindowPolicy(model, size, every, Duration.ZERO, 0, 1);
  }

  public WindowPolicy withAllowedLateness(Duration allowedLateness) {
    return new WindowPolicy(
        model, size, every, allowedLateness, earlyEveryEvents, generation, calendar);
  }

  /** {@code early_results: every n events}. */
  public WindowPolicy withEarlyResultsEvery(int n) {
    return new WindowPolicy(model, size, every, allowedLateness, n, generation, calendar);
  }

  public WindowPolicy withGeneration(int generation) {
    return new WindowPolicy(
        model, size, every, allowedLateness, earlyEveryEvents, generation, calendar);
  }

  /**
   * The starts of the {@code size / every} windows {@code [s, s + size)} that contain {@code t},
   * ascending.
   */
  public List<Instant> windowStartsOf(Instant t) {
    if (calendar != null) {
      return List.of(calendar.startOf(t));
    }
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
