package dev.streamform.core.time;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as declarations write them: a whole number and one unit, {@code ms}, {@code s}, {@code
 * m}, {@code h} or {@code d} ({@code 500ms}, {@code 0s}, {@code 5m}, {@code 2h}, {@code 30d}). A
 * day is exactly 24 hours: durations here measure event time, which has no calendar. Units are
 * lower case only: {@code 1M} could mean a minute or a month ({@code window: 1mo}), so an
 * upper-case unit is refused with the lower-case spelling rather than read as either.
 *
 * <p>{@link #format(Duration)} gives the canonical spelling (the largest unit that divides the
 * duration exactly) and {@link #parse(String)} accepts it, so {@code parse(format(d)).equals(d)}.
 */
public final class Durations {
  private Durations() {}

  /**
   * The longest duration a declaration may give: 36500 days (100 years). Event times plus a
   * duration must stay far inside what a runner's timers can hold (Beam's timestamps end near the
   * year 294,000, and millisecond arithmetic overflows long before a {@code Duration} does); a
   * longer retention or lateness means "forever", which is written by leaving the key out.
   */
  public static final Duration MAX = Duration.ofDays(36_500);

  /** What a bad duration's message suggests instead. */
  public static final String EXAMPLES = "500ms, 0s, 10s, 5m, 2h or 30d";

  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException quoting {@code text} and giving examples of valid durations,
   *     or saying that it is longer than {@link #MAX}
   */
  public static Duration parse(String text) {
    String t = text == null ? "" : text.trim();
    Matcher m = DURATION.matcher(t);
    if (!m.matches()) {
      Matcher lower = DURATION.matcher(t.toLowerCase(Locale.ROOT));
      String hint =
          t.matches("\\d+")
              ? " (a number needs a unit)"
              : t.startsWith("-")
                  ? " (a duration cannot be negative)"
                  : lower.matches()
                      ? " (units are written in lower case: "
                          + (lower.group(2).equals("m")
                              ? lower.group(1)
                                  + "m is a minute, and a calendar month window is window: 1mo)"
                              : "write " + lower.group(1) + lower.group(2) + ")")
                      : "";
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not a duration"
              + hint
              + "; write a whole number and a unit, e.g. "
              + EXAMPLES);
    }
    Duration d;
    try {
      long amount = Long.parseLong(m.group(1));
      switch (m.group(2)) {
        case "ms":
          d = Duration.ofMillis(amount);
          break;
        case "s":
          d = Duration.ofSeconds(amount);
          break;
        case "m":
          d = Duration.ofMinutes(amount);
          break;
        case "h":
          d = Duration.ofHours(amount);
          break;
        default:
          d = Duration.ofDays(amount);
      }
    } catch (NumberFormatException | ArithmeticException e) {
      d = null; // more digits than a long holds, or more seconds than a Duration: too long either
      // way
    }
    if (d == null || d.compareTo(MAX) > 0) {
      throw new IllegalArgumentException(
          "'" + text + "' is too long a duration: the longest is " + format(MAX) + " (100 years)");
    }
    return d;
  }

  /**
   * The canonical spelling of {@code duration}: {@code 0s} for zero, otherwise the largest of d, h,
   * m, s, ms that divides it exactly ({@code 300000ms} is {@code 5m}, {@code 90s} stays {@code
   * 90s}), except that exactly one day is {@code 24h}: {@code 1d} as the whole of {@code window:}
   * is a calendar day (docs/decisions/0021), so a fixed day is never written back as {@code 1d}
   * ({@code 2d}, {@code 7d} stay: only {@code 1d} names a calendar unit). Two spellings of one
   * duration are one value: compare parsed durations, never their text.
   *
   * @throws IllegalArgumentException for a negative duration or one finer than a millisecond
   */
  public static String format(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("negative duration " + duration);
    }
    if (duration.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException("duration finer than a millisecond: " + duration);
    }
    long ms = duration.toMillis();
    if (ms == 0) {
      return "0s";
    }
    if (ms == 86_400_000L) {
      return "24h"; // "1d" is a calendar day as a window (ADR 0021)
    }
    long[] sizes = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
    String[] units = {"d", "h", "m", "s"};
    for (int i = 0; i < sizes.length; i++) {
      if (ms % sizes[i] == 0) {
        return ms / sizes[i] + units[i];
      }
    }
    return ms + "ms";
  }
}
