package dev.streamform.policies.declarations;

import com.google.auto.value.AutoValue;
import dev.streamform.core.time.Durations;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.TemporalAdjusters;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The windows of a windowed model (docs/semantics.md §6): windows of {@link #size()} that start at
 * every multiple of {@link #every()} from the epoch, in UTC. Tumbling windows ({@code window: 1h})
 * have {@code every == size}, so each instant is in exactly one window; hopping windows ({@code
 * window: {size: 1h, every: 15m}}) overlap, each instant being in {@code size / every} of them.
 * Both durations are positive whole milliseconds and {@code size} is a multiple of {@code every},
 * so no instant falls between windows.
 *
 * <p>Calendar windows ({@code window: 1d | 1w | 1mo}, docs/semantics.md §6.22) are local days,
 * weeks or months of {@link #timeZone()}: each runs from a local midnight to the next, so a day
 * lasts 23 or 25 hours across a daylight-saving change. For them {@link #size()} and {@link
 * #every()} are only nominal (24h, 7d, 31d); {@link #startsContaining}, {@link #isStart} and {@link
 * #endOf} give the real instants. A zone never moves a fixed window (§6.24). Immutable.
 */
@AutoValue
public abstract class WindowSpec {

  /** How long each window is: {@code [start, start + size)}. */
  public abstract Duration size();

  /**
   * The most windows one event may belong to ({@code size / every}) in a declared model: {@code
   * streamform check} refuses more (a {@code {size: 30d, every: 1ms}} would put each event in 2.6
   * billion windows and never finish).
   */
  public static final long MAX_WINDOWS_PER_EVENT = 10_000;

  /** How far apart window starts are; equal to {@link #size()} for tumbling windows. */
  public abstract Duration every();

  /** The calendar unit of a calendar window; empty for fixed and hopping windows. */
  public abstract Optional<CalendarUnit> calendarUnit();

  /**
   * The zone: for calendar windows the zone of their midnights ({@link #DEFAULT_ZONE} unless
   * declared); for a fixed window only when declared as another zone than {@link #DEFAULT_ZONE}
   * (part of the time policy; it never moves the window). Either way a declared {@code time_zone:
   * UTC} gives the zone of the window that declares none (docs/decisions/0097).
   */
  public abstract Optional<ZoneId> timeZone();

  /**
   * True when {@code time_zone:} was declared (false: the default). Only {@link #describe()}
   * ({@code explain}) says it; the time policy never does ({@link #policyText()}).
   */
  public abstract boolean timeZoneDeclared();

  /**
   * The zone of a window that declares no {@code time_zone} (ADR 0021). A declared zone is the
   * default when it is this one by name, {@code UTC}; another name with the same rules ({@code
   * Etc/UTC}, {@code GMT}) is a zone of its own, since a calendar window's name enters its {@code
   * logical_window_id} (docs/decisions/0097).
   */
  public static final ZoneId DEFAULT_ZONE = ZoneId.of("UTC");

  /** The first day of a calendar week ({@code week_starts:}, default Monday). */
  public abstract DayOfWeek weekStarts();

  /** A calendar window's unit, as {@code window:} writes it. */
  public enum CalendarUnit {
    DAY("1d"),
    WEEK("1w"),
    MONTH("1mo");

    private final String yaml;

    CalendarUnit(String yaml) {
      this.yaml = yaml;
    }

    /** {@code 1d}, {@code 1w} or {@code 1mo}. */
    public String yamlText() {
      return yaml;
    }

    /** The unit {@code window:} names, if it is {@code 1d}, {@code 1w} or {@code 1mo}. */
    public static Optional<CalendarUnit> parse(String text) {
      String t = text.trim().replace(" ", "");
      for (CalendarUnit u : values()) {
        if (u.yaml.equals(t)) {
          return Optional.of(u);
        }
      }
      return Optional.empty();
    }
  }

  /**
   * Calendar windows of {@code unit} in {@code zone} (docs/semantics.md §6.22).
   *
   * @param declared whether {@code time_zone} was written ({@code explain} says when UTC is the
   *     default)
   */
  public static WindowSpec calendar(
      CalendarUnit unit, ZoneId zone, boolean declared, DayOfWeek weekStarts) {
    Duration nominal =
        unit == CalendarUnit.DAY
            ? Duration.ofDays(1)
            : unit == CalendarUnit.WEEK ? Duration.ofDays(7) : Duration.ofDays(31);
    return new AutoValue_WindowSpec(
        nominal, nominal, Optional.of(unit), Optional.of(zone), declared, weekStarts);
  }

  /**
   * These windows with {@code zone} declared (the zone never moves fixed windows). The same rule
   * for both kinds: a declared {@link #DEFAULT_ZONE} leaves the windows as they are without it
   * (calendar: that zone; fixed: none), only {@link #timeZoneDeclared()} differs.
   */
  public WindowSpec withTimeZone(ZoneId zone) {
    if (isCalendar()) {
      return calendar(calendarUnit().get(), zone, true, weekStarts());
    }
    return new AutoValue_WindowSpec(
        size(),
        every(),
        Optional.empty(),
        zone.equals(DEFAULT_ZONE) ? Optional.empty() : Optional.of(zone),
        true,
        DayOfWeek.MONDAY);
  }

  /** True for calendar windows ({@code 1d}, {@code 1w}, {@code 1mo}). */
  public boolean isCalendar() {
    return calendarUnit().isPresent();
  }

  /** The zone of a calendar window's midnights, UTC when none is declared. */
  public ZoneId zoneOrUtc() {
    return timeZone().orElse(DEFAULT_ZONE);
  }

  /**
   * The offsets {@code zone} has had since 1970 or will have by its current rules that are not a
   * whole multiple of {@code alignment}, sorted: a fixed window of that alignment would not begin
   * at a whole local hour (or quarter) there. Empty when the zone fits.
   */
  public static List<ZoneOffset> misalignedOffsets(ZoneId zone, Duration alignment) {
    ZoneRules rules = zone.getRules();
    TreeSet<ZoneOffset> offsets = new TreeSet<>();
    Instant since = Instant.parse("1970-01-01T00:00:00Z");
    offsets.add(rules.getOffset(since));
    for (ZoneOffsetTransition t : rules.getTransitions()) {
      if (!t.getInstant().isBefore(since)) {
        offsets.add(t.getOffsetAfter());
      }
    }
    rules
        .getTransitionRules()
        .forEach(
            r -> {
              offsets.add(r.getOffsetBefore());
              offsets.add(r.getOffsetAfter());
            });
    offsets.add(rules.getOffset(Instant.now()));
    List<ZoneOffset> misaligned = new ArrayList<>();
    long step = alignment.toMillis();
    for (ZoneOffset o : offsets) {
      if (Math.floorMod(o.getTotalSeconds() * 1000L, step) != 0) {
        misaligned.add(o);
      }
    }
    return misaligned;
  }

  /**
   * Tumbling windows of {@code size}.
   *
   * @throws IllegalArgumentException when {@code size} is not a positive whole number of
   *     milliseconds
   */
  public static WindowSpec tumbling(Duration size) {
    return hopping(size, size);
  }

  /**
   * Hopping windows of {@code size} starting every {@code every}.
   *
   * @throws IllegalArgumentException when a duration is not a positive whole number of
   *     milliseconds, {@code every} is longer than {@code size}, or {@code size} is not a multiple
   *     of {@code every}
   */
  public static WindowSpec hopping(Duration size, Duration every) {
    checkPositiveMillis(size, "size");
    checkPositiveMillis(every, "every");
    if (every.compareTo(size) > 0) {
      throw new IllegalArgumentException(
          "every ("
              + Durations.format(every)
              + ") is longer than the window's size ("
              + Durations.format(size)
              + "): events between windows would belong to none");
    }
    if (size.toMillis() % every.toMillis() != 0) {
      throw new IllegalArgumentException(
          "the window's size ("
              + Durations.format(size)
              + ") is not a multiple of every ("
              + Durations.format(every)
              + ")");
    }
    return new AutoValue_WindowSpec(
        size, every, Optional.empty(), Optional.empty(), false, DayOfWeek.MONDAY);
  }

  /** True when windows overlap ({@code every < size}). */
  public boolean isHopping() {
    return !every().equals(size());
  }

  /**
   * The starts of the windows that contain {@code t}, earliest first: one for tumbling windows,
   * {@code size / every} for hopping ones.
   */
  public List<Instant> startsContaining(Instant t) {
    if (isCalendar()) {
      // the window that contains t: where the clocks fall back across midnight, local time
      // re-enters the previous date after the next has begun (docs/decisions/0214)
      Instant start = localStart(t.atZone(zoneOrUtc()).toLocalDate());
      for (Instant end = endOf(start); !end.isAfter(t); end = endOf(start)) {
        start = end;
      }
      return List.of(start);
    }
    long every = every().toMillis();
    long latest = Math.floorDiv(t.toEpochMilli(), every) * every;
    List<Instant> starts = new ArrayList<>();
    for (long start = latest - size().toMillis() + every; start <= latest; start += every) {
      starts.add(Instant.ofEpochMilli(start));
    }
    return starts;
  }

  /**
   * True when {@code start} is the start of a window: a multiple of {@link #every()} from the
   * epoch.
   */
  public boolean isStart(Instant start) {
    if (isCalendar()) {
      return startsContaining(start).get(0).equals(start);
    }
    return start.getNano() % 1_000_000 == 0
        && Math.floorMod(start.toEpochMilli(), every().toMillis()) == 0;
  }

  /** The end (exclusive) of the window that starts at {@code start}. */
  public Instant endOf(Instant start) {
    if (isCalendar()) {
      LocalDate first = firstDay(start.atZone(zoneOrUtc()).toLocalDate());
      LocalDate next =
          calendarUnit().get() == CalendarUnit.DAY
              ? first.plusDays(1)
              : calendarUnit().get() == CalendarUnit.WEEK
                  ? first.plusWeeks(1)
                  : first.plusMonths(1);
      return next.atStartOfDay(zoneOrUtc()).toInstant();
    }
    return start.plus(size());
  }

  /**
   * The local date a calendar window stands for, as outputs write it in {@code window_local}: the
   * day ({@code 2026-10-25}), a week's first day, or the month ({@code 2026-10}); empty for fixed
   * windows.
   */
  public Optional<String> localLabel(Instant start) {
    if (!isCalendar()) {
      return Optional.empty();
    }
    LocalDate first = firstDay(start.atZone(zoneOrUtc()).toLocalDate());
    return Optional.of(
        calendarUnit().get() == CalendarUnit.MONTH
            ? first.toString().substring(0, 7)
            : first.toString());
  }

  /** The local midnight that begins the calendar window holding {@code day}. */
  private Instant localStart(LocalDate day) {
    return firstDay(day).atStartOfDay(zoneOrUtc()).toInstant();
  }

  private LocalDate firstDay(LocalDate day) {
    switch (calendarUnit().get()) {
      case DAY:
        return day;
      case WEEK:
        return day.with(TemporalAdjusters.previousOrSame(weekStarts()));
      default:
        return day.withDayOfMonth(1);
    }
  }

  /**
   * As {@code streamform.yml} writes it, canonically: {@code 1h} or {@code {size: 1h, every: 15m}}.
   */
  public String yamlText() {
    if (isCalendar()) {
      return calendarUnit().get().yamlText();
    }
    return isHopping()
        ? "{size: " + Durations.format(size()) + ", every: " + Durations.format(every()) + "}"
        : Durations.format(size());
  }

  /**
   * In words, as {@code explain} says them: {@code tumbling 1h}, {@code hopping 1h every 15m},
   * {@code tumbling 1h (time_zone Europe/Berlin declared)}, {@code calendar day in Europe/Berlin};
   * whether {@code time_zone} was declared where it is the default is said too ({@code calendar day
   * in UTC (time_zone not declared: UTC by default)}, {@code tumbling 1h (time_zone UTC declared:
   * the default)}).
   */
  public String describe() {
    return words(true);
  }

  /**
   * {@link #describe()} without saying whether the default zone was declared: what a plan's time
   * policy and state fingerprint record, so writing {@code time_zone: UTC} where it was the default
   * changes nothing there (docs/decisions/0097). A declared other zone stays: {@code tumbling 1h
   * (time_zone Europe/Berlin declared)}.
   */
  public String policyText() {
    return words(false);
  }

  private String words(boolean sayDefault) {
    if (isCalendar()) {
      String unit = calendarUnit().get().name().toLowerCase(Locale.ROOT);
      return "calendar "
          + unit
          + " in "
          + zoneOrUtc().getId()
          + (timeZoneDeclared() || !sayDefault ? "" : " (time_zone not declared: UTC by default)")
          + (calendarUnit().get() == CalendarUnit.WEEK
              ? " from " + weekStarts().name().toLowerCase(Locale.ROOT)
              : "");
    }
    String fixed =
        isHopping()
            ? "hopping " + Durations.format(size()) + " every " + Durations.format(every())
            : "tumbling " + Durations.format(size());
    if (timeZone().isPresent()) {
      return fixed + " (time_zone " + timeZone().get().getId() + " declared)";
    }
    return fixed
        + (timeZoneDeclared() && sayDefault
            ? " (time_zone " + DEFAULT_ZONE.getId() + " declared: the default)"
            : "");
  }

  @Override
  public final String toString() {
    return describe();
  }

  private static void checkPositiveMillis(Duration d, String what) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(
          "a window's " + what + " must be longer than 0s, not " + d);
    }
    if (d.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException(
          "a window's " + what + " must be whole milliseconds, not " + d);
    }
  }
}
