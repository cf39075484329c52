package dev.streamform.transforms.windows;

import com.google.auto.value.AutoValue;
import java.io.Serializable;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;

/**
 * Calendar windows in a time zone (docs/semantics.md §6.22): each window is one local day, week or
 * month of {@link #zoneId()}, from a local midnight to the next, so a day lasts 23 or 25 hours
 * across a daylight-saving change. Boundaries come from java.time's zone rules (the JDK's tzdata,
 * the same the declarations are checked against), not from Joda's copy inside Beam, so a zone
 * {@code streamform check} accepts always has windows here. Beam's {@code CalendarWindows} are
 * accepted by {@link WindowedAggregate#of} and read into one of these.
 */
@AutoValue
public abstract class CalendarWindow implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The calendar unit of a window. */
  public enum Unit {
    DAY,
    WEEK,
    MONTH
  }

  public abstract Unit unit();

  /** The IANA name of the zone, as declared ({@code Europe/Berlin}, {@code UTC}). */
  public abstract String zoneId();

  /** The first day of a week (used by {@link Unit#WEEK} only). */
  public abstract DayOfWeek weekStarts();

  /** Local days of {@code zone}, an IANA zone ({@link #zoneName}). */
  public static CalendarWindow days(ZoneId zone) {
    return new AutoValue_CalendarWindow(
        Unit.DAY, zoneName(zone, "CalendarWindow.days"), DayOfWeek.MONDAY);
  }

  /** Local weeks of {@code zone} that begin on {@code weekStarts}. */
  public static CalendarWindow weeks(ZoneId zone, DayOfWeek weekStarts) {
    if (weekStarts == null) {
      throw new IllegalArgumentException(
          "CalendarWindow.weeks: weekStarts must not be null; give the first day of a week, e.g."
              + " DayOfWeek.MONDAY");
    }
    return new AutoValue_CalendarWindow(
        Unit.WEEK, zoneName(zone, "CalendarWindow.weeks"), weekStarts);
  }

  /** Local months of {@code zone}. */
  public static CalendarWindow months(ZoneId zone) {
    return new AutoValue_CalendarWindow(
        Unit.MONTH, zoneName(zone, "CalendarWindow.months"), DayOfWeek.MONDAY);
  }

  /**
   * The name a calendar window of {@code zone} goes by, which its identity hashes: the IANA name as
   * given ({@code US/Eastern} stays so, as a declaration's {@code time_zone} does), and {@code UTC}
   * for UTC as an offset ({@code ZoneOffset.UTC}). Any other fixed offset ({@code -04:00}, {@code
   * GMT+02:00}) is refused as {@code check} refuses it in a declaration: a local day follows a
   * region's clock changes (docs/decisions/0175).
   *
   * @param call the call as its author wrote it, for the message
   */
  public static String zoneName(ZoneId zone, String call) {
    if (zone == null) {
      throw new IllegalArgumentException(
          call
              + ": the zone must not be null; give an IANA zone, e.g."
              + " ZoneId.of(\"Europe/Berlin\")");
    }
    if (zone.equals(ZoneOffset.UTC)) {
      return "UTC";
    }
    if (ZoneId.getAvailableZoneIds().contains(zone.getId())) {
      return zone.getId();
    }
    throw new IllegalArgumentException(
        call
            + ": '"
            + zone.getId()
            + "' is a fixed offset from UTC, not a time zone: a local day follows its region's"
            + " clock changes; give the region's IANA zone, e.g. ZoneId.of(\"America/New_York\"),"
            + " or ZoneId.of(\"UTC\")");
  }

  /**
   * {@code {start, end}} in epoch millis of the window that contains instant {@code t} (millis):
   * {@code start <= t < end}. Where the clocks fall back across midnight (St. John's at 00:01 until
   * 2011), local time re-enters the previous date after the next date has begun; such an instant
   * belongs to the next date's window, which has begun, not to its local date's, which has ended
   * (docs/decisions/0214).
   */
  public long[] windowOf(long t) {
    ZoneId zone = ZoneId.of(zoneId());
    LocalDate day = Instant.ofEpochMilli(t).atZone(zone).toLocalDate();
    LocalDate first =
        switch (unit()) {
          case DAY -> day;
          case WEEK -> day.with(TemporalAdjusters.previousOrSame(weekStarts()));
          case MONTH -> day.withDayOfMonth(1);
        };
    LocalDate next = after(first);
    while (startOf(next, zone) <= t) {
      first = next;
      next = after(next);
    }
    return new long[] {startOf(first, zone), startOf(next, zone)};
  }

  private LocalDate after(LocalDate first) {
    return switch (unit()) {
      case DAY -> first.plusDays(1);
      case WEEK -> first.plusWeeks(1);
      case MONTH -> first.plusMonths(1);
    };
  }

  /**
   * The earliest local midnight of {@code day}; where DST skips midnight, the first local time that
   * exists.
   */
  private static long startOf(LocalDate day, ZoneId zone) {
    return day.atStartOfDay(zone).toInstant().toEpochMilli();
  }

  /**
   * The local date the window that starts at {@code start} stands for ({@code window_local}):
   * {@code 2026-10-25} for a day, the first day of a week, {@code 2026-10} for a month.
   */
  public String localLabel(long start) {
    LocalDate d = Instant.ofEpochMilli(start).atZone(ZoneId.of(zoneId())).toLocalDate();
    return unit() == Unit.MONTH ? d.toString().substring(0, 7) : d.toString();
  }

  /** In words: {@code calendar day in Europe/Berlin}, {@code calendar week from sunday in UTC}. */
  public String describe() {
    return "calendar "
        + unit().name().toLowerCase(Locale.ROOT)
        + (unit() == Unit.WEEK ? " from " + weekStarts().name().toLowerCase(Locale.ROOT) : "")
        + " in "
        + zoneId();
  }
}
