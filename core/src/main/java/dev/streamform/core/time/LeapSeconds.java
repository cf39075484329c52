package dev.streamform.core.time;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * RFC 3339 date-times whose second is 60: a leap second, which {@code java.time} does not parse.
 * Streamform reads one as the last millisecond of the second before it ({@code 23:59:60Z} as {@code
 * 23:59:59.999Z}): after every earlier instant, in the same minute, day and window, and kept to the
 * millisecond as all event time is (docs/decisions/0128). A second 60 anywhere but at the end of a
 * UTC day is no leap second and is refused.
 */
public final class LeapSeconds {
  private LeapSeconds() {}

  /** A date-time with second 60: what comes before it, its fraction, what follows (the zone). */
  private static final Pattern SIXTY =
      Pattern.compile("(\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:)60(\\.\\d+)?(.*)");

  private static final LocalTime LAST_SECOND = LocalTime.of(23, 59, 59);

  /**
   * {@code text} read by {@code parser}, or, when its second is 60, the last millisecond of the
   * second before it.
   *
   * @param parser reads a date-time of seconds 0–59 (with or without a zone, as the caller allows)
   * @throws DateTimeException from {@code parser}, or when second 60 is not at 23:59:60 UTC
   */
  public static Instant parse(String text, Function<String, Instant> parser) {
    // the parser first: this runs for every event's time, a leap second is looked for only when
    // the parser refuses the text
    Matcher sixty;
    try {
      return parser.apply(text);
    } catch (DateTimeException refused) {
      sixty = SIXTY.matcher(text);
      if (!sixty.matches()) {
        throw refused;
      }
    }
    Instant before = parser.apply(sixty.group(1) + "59" + sixty.group(3));
    if (!before.atOffset(ZoneOffset.UTC).toLocalTime().equals(LAST_SECOND)) {
      throw new DateTimeException(
          "second 60 is a leap second, which comes only at 23:59:60 UTC, the end of a UTC day");
    }
    return before.plusMillis(999);
  }
}
