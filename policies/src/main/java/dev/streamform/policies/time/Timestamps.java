package dev.streamform.policies.time;

import com.ethlo.time.ITU;
import dev.streamform.core.time.EventTimeRange;
import dev.streamform.core.time.LeapSeconds;
import java.text.ParsePosition;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.regex.Pattern;

/**
 * Event-time values as fixtures and records carry them, read as {@link Instant}s.
 *
 * <p>{@link #parse(Object)} (fixtures, strict) accepts an RFC 3339 instant with a zone ({@code
 * 2026-08-30T10:00:00Z}, optional fraction, {@code Z} or an explicit offset such as {@code +02:00})
 * or integer epoch milliseconds (a YAML int, or a string of digits). A value without a date, such
 * as a bare time of day, is refused: it would make a fixture depend on the day it runs.
 *
 * <p>{@link #parseLenient(Object)} (records read from Kafka) also accepts an RFC 3339 date-time
 * without a zone ({@code 2026-08-30T10:00:00}) and reads it as UTC, because that is what producers
 * writing for Flink's {@code TIMESTAMP(3)} emit.
 *
 * <p>Event time is kept to the millisecond, as Beam keeps it (ADR 0090). A fraction finer than a
 * millisecond (digits past the third that are not all zeros) is refused by {@link #parse(Object)}
 * ({@link FinerThanAMillisecond}, naming the millisecond to write): a fixture could never
 * acknowledge it as written. {@link #parseLenient(Object)} floors it to the millisecond, as every
 * record's event time and every punctuation is floored, so that producers writing microseconds
 * (Python's {@code isoformat()}) are judged by one consistent clock.
 *
 * <p>A leap second ({@code 2016-12-31T23:59:60Z}, which RFC 3339 allows) is read as the last
 * millisecond of the second before it ({@link LeapSeconds}, ADR 0128).
 */
public final class Timestamps {
  private Timestamps() {}

  /** The instant every message shows as an example. */
  public static final String EXAMPLE = "2026-08-30T10:00:00Z";

  private static final Pattern EPOCH_MILLIS = Pattern.compile("-?\\d+");
  private static final Pattern TIME_OF_DAY =
      Pattern.compile("\\d{1,2}:\\d{2}(:\\d{2}(\\.\\d+)?)?([zZ]|[+-]\\d{2}:?\\d{2})?");
  private static final Pattern DATE_ONLY = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");
  private static final Pattern NO_ZONE =
      Pattern.compile("\\d{4}-\\d{2}-\\d{2}[tT ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?");

  /**
   * Reads a fixture's timestamp value.
   *
   * @throws IllegalArgumentException quoting the value and saying what to write instead
   */
  public static Instant parse(Object value) {
    return read(value, false, null);
  }

  /**
   * Like {@link #parse(Object)}, for a value {@code written} so in its file (a YAML scalar's text;
   * null: {@code value} as text): messages quote {@code written}, cut when long, not {@code value}
   * as Java prints it ({@code 1.788084E+12} for {@code 1.788084e12}, ADR 0129).
   */
  public static Instant parse(Object value, String written) {
    return read(value, false, written);
  }

  /**
   * Reads a record's timestamp value: everything {@link #parse(Object)} accepts, and an RFC 3339
   * date-time without a zone, meaning UTC.
   *
   * @throws IllegalArgumentException quoting the value and saying what to write instead
   */
  public static Instant parseLenient(Object value) {
    return read(value, true, null);
  }

  /**
   * Like {@link #parseLenient(Object)}, for a value {@code written} so in its record (a JSON
   * number's own text; null: {@code value} as text): messages quote {@code written}, cut when long.
   */
  public static Instant parseLenient(Object value, String written) {
    return read(value, true, written);
  }

  /**
   * A fixture's instant with a fraction finer than a millisecond: Streamform keeps event time to
   * the millisecond, so the value could never be matched as written. {@link #millisecond()} is what
   * to write instead (the value floored, as production floors a record's).
   */
  public static final class FinerThanAMillisecond extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private static final DateTimeFormatter MILLIS =
        DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private final String millisecond;

    FinerThanAMillisecond(Object value, Instant floored) {
      super(
          shown(value)
              + " is finer than a millisecond: Streamform keeps event time to the millisecond"
              + " (records read from files and Kafka are floored to it)");
      this.millisecond = MILLIS.format(floored);
    }

    /** The value floored to the millisecond, e.g. {@code 2026-08-30T10:00:00.000Z}. */
    public String millisecond() {
      return millisecond;
    }

    /** How to fix the value of {@code key}: {@code write <key>: "<millisecond>"}. */
    public String fix(String key) {
      return "write " + key + ": \"" + millisecond + "\"";
    }
  }

  /**
   * The canonical spelling of {@code instant}: RFC 3339 in UTC, e.g. {@value #EXAMPLE}, as
   * java.time's {@code ISO_INSTANT} writes it (a fraction only when there is one, in groups of
   * three digits). Records write one or more per event or revision, so an instant to the
   * millisecond between {@link #MIN} and {@link #MAX} — every event time — is written by ITU, five
   * times faster and the same text (ADR 0168, {@code TimestampsAgainstJavaTimeTest}); any other as
   * before.
   */
  public static String format(Instant instant) {
    int nano = instant.getNano();
    if (nano % 1_000_000 == 0 && !instant.isBefore(MIN) && !instant.isAfter(MAX)) {
      OffsetDateTime utc = instant.atOffset(ZoneOffset.UTC);
      return nano == 0 ? ITU.formatUtc(utc) : ITU.formatUtcMilli(utc);
    }
    return DateTimeFormatter.ISO_INSTANT.format(instant);
  }

  /** The earliest event time accepted ({@link EventTimeRange#MIN}). */
  public static final Instant MIN = EventTimeRange.MIN;

  /** The latest event time accepted ({@link EventTimeRange#MAX}). */
  public static final Instant MAX = EventTimeRange.MAX;

  /**
   * Checks that {@code t}, a fixture's instant given in code, says nothing finer than a
   * millisecond, as {@link #parse(Object)} checks one written in a file.
   *
   * @throws FinerThanAMillisecond when it does, naming the millisecond to give instead
   */
  public static void checkMillisecond(Instant t) {
    Instant floored = t.truncatedTo(ChronoUnit.MILLIS);
    if (!floored.equals(t)) {
      throw new FinerThanAMillisecond(t, floored);
    }
  }

  /** A value as messages quote it, between quotes: a long one cut to its start and end. */
  static String shown(Object value) {
    return dev.streamform.core.text.Excerpt.quoted(String.valueOf(value));
  }

  private static Instant read(Object value, boolean lenient, String written) {
    // what messages quote: the value as its file or record wrote it
    Object quoted = written != null ? written : value;
    Instant t = readAny(value, lenient, quoted);
    Instant floored = t.truncatedTo(ChronoUnit.MILLIS); // towards the past, as Beam's millis
    if (!floored.equals(t)) {
      if (!lenient) {
        throw new FinerThanAMillisecond(quoted, floored);
      }
      t = floored;
    }
    // Beyond RFC 3339's years a runner's timers (and a window's end plus its lateness) overflow;
    // such a value is a typo (epoch seconds written with extra digits), never a real event time.
    if (t.isBefore(MIN) || t.isAfter(MAX)) {
      throw new IllegalArgumentException(EventTimeRange.outOfRange(shown(quoted)));
    }
    return t;
  }

  private static Instant readAny(Object value, boolean zoneOptional, Object quoted) {
    if (value instanceof Instant) {
      return (Instant) value;
    }
    if (value instanceof Date) { // YAML loaders turn an unquoted timestamp into a Date
      return ((Date) value).toInstant();
    }
    if (value instanceof Long || value instanceof Integer || value instanceof Short) {
      return Instant.ofEpochMilli(((Number) value).longValue());
    }
    if (!(value instanceof String)) {
      throw new IllegalArgumentException(
          (value == null ? "a missing value" : shown(quoted))
              + " is not a timestamp; give an RFC 3339 instant such as "
              + EXAMPLE
              + " or integer epoch milliseconds");
    }
    String text = ((String) value).trim();
    try {
      if (EPOCH_MILLIS.matcher(text).matches()) {
        return Instant.ofEpochMilli(Long.parseLong(text));
      }
      if (NO_ZONE.matcher(text).matches()) {
        if (zoneOptional) {
          return LeapSeconds.parse(
              text,
              t ->
                  LocalDateTime.parse(t.replace(' ', 'T').replace('t', 'T'))
                      .toInstant(ZoneOffset.UTC));
        }
        throw new IllegalArgumentException(
            shown(quoted)
                + " has no time zone; give an RFC 3339 instant such as "
                + EXAMPLE
                + " (add Z for UTC)");
      }
      return LeapSeconds.parse(text, Timestamps::withOffset);
    } catch (DateTimeParseException e) {
      if (e.getCause() instanceof DateTimeException field) {
        // the form is right, a field is not (February 30, hour 25, an offset of 25 hours)
        throw new IllegalArgumentException(
            shown(quoted)
                + " is not a valid timestamp ("
                + field.getMessage()
                + "); give an RFC 3339 instant such as "
                + EXAMPLE);
      }
      // fall through to the message below
    } catch (NumberFormatException e) {
      // fall through to the message below
    } catch (DateTimeException e) {
      throw new IllegalArgumentException(
          shown(quoted)
              + " is not a valid timestamp ("
              + e.getMessage()
              + "); give an RFC 3339 instant such as "
              + EXAMPLE);
    }
    if (TIME_OF_DAY.matcher(text).matches()) {
      throw new IllegalArgumentException(
          shown(quoted)
              + " is a time of day without a date; give a full RFC 3339 instant such as "
              + EXAMPLE);
    }
    if (DATE_ONLY.matcher(text).matches()) {
      throw new IllegalArgumentException(
          shown(quoted)
              + " is a date without a time; give a full RFC 3339 instant such as "
              + EXAMPLE);
    }
    throw new IllegalArgumentException(
        shown(quoted)
            + " is not a timestamp; give an RFC 3339 instant such as "
            + EXAMPLE
            + " or integer epoch milliseconds");
  }

  /**
   * An RFC 3339 date-time with its offset ({@code 2026-08-30T10:00:00.123+02:00}), the form nearly
   * every record writes, read by ITU, an RFC 3339 parser about fifteen times faster than
   * java.time's ISO formatter: this runs once per event read (ADR 0168). Whatever ITU does not
   * read, however it refuses it, goes to {@link #javaTime}, whose answer or message stands as
   * before — forms java.time's ISO parser also accepts (a time without seconds) and text that
   * neither reads. {@code TimestampsAgainstJavaTimeTest} holds that where ITU answers, java.time
   * answers the same.
   */
  static Instant withOffset(String text) {
    try {
      // ITU reads a date-time at the start of the text; the rest must be nothing (2026-...ZZ is no
      // date-time, and java.time refuses it)
      ParsePosition read = new ParsePosition(0);
      OffsetDateTime t = ITU.parseDateTime(text, read);
      if (read.getIndex() == text.length()) {
        return t.toInstant();
      }
    } catch (RuntimeException notReadByItu) {
      // java.time's answer below, or its message
    }
    return javaTime(text);
  }

  /**
   * {@link #withOffset}'s text read by java.time's ISO parser (case-insensitive, a space for T).
   */
  static Instant javaTime(String text) {
    return OffsetDateTime.parse(text.replace(' ', 'T'), DateTimeFormatter.ISO_OFFSET_DATE_TIME)
        .toInstant();
  }
}
