package dev.streamform.policies.time;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as declarations write them: a whole number and one unit, {@code ms}, {@code s}, {@code
 * m}, {@code h} or {@code d} ({@code 500ms}, {@code 0s}, {@code 5m}, {@code 2h}, {@code 30d}). A
 * day is exactly 24 hours: durations here measure event time, which has no calendar.
 *
 * <p>{@link #format(Duration)} gives the canonical spelling (the largest unit that divides the
 * duration exactly) and {@link #parse(String)} accepts it, so {@code parse(format(d)).equals(d)}.
 */
public final class Durations {
  private Durations() {}

  /** What a bad duration's message suggests instead. */
  public static final String EXAMPLES = "500ms, 0s, 10s, 5m, 2h or 30d";

  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException quoting {@code text} and giving examples of valid durations
   */
  public static Duration parse(String text) {
    String t = text == null ? "" : text.trim();
    Matcher m = DURATION.matcher(t.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      String hint =
          t.matches("\\d+")
              ? " (a number needs a unit)"
              : t.startsWith("-") ? " (a duration cannot be negative)" : "";
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration" + hint + "; write a whole number and a unit, e.g. " + EXAMPLES);
    }
    long amount;
    try {
      amount = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is too long a duration");
    }
    try {
      switch (m.group(2)) {
        case "ms":
          return Duration.ofMillis(amount);
        case "s":
          return Duration.ofSeconds(amount);
        case "m":
          return Duration.ofMinutes(amount);
        case "h":
          return Duration.ofHours(amount);
        default:
          return Duration.ofDays(amount);
      }
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("'" + text + "' is too long a duration");
    }
  }

  /**
   * The canonical spelling of {@code duration}: {@code 0s} for zero, otherwise the largest of d, h,
   * m, s, ms that divides it exactly ({@code 300000ms} is {@code 5m}, {@code 90s} stays {@code
   * 90s}).
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
