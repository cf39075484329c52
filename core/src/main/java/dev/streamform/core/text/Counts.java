package dev.streamform.core.text;

import java.util.Locale;

/**
 * A count and its noun as messages print them, in the singular for exactly one: {@code 1 event},
 * {@code 0 events}, {@code 2 dispatches}. The one place the modules pluralize, so every message
 * counts the same way.
 */
public final class Counts {
  private Counts() {}

  /**
   * {@code n} and {@code noun}, the noun in the plural unless {@code n} is one. The plural adds
   * {@code es} after a hissing ending ({@code s}, {@code x}, {@code z}, {@code ch}, {@code sh}:
   * {@code dispatches}, {@code mismatches}) and {@code s} otherwise; only the last word of a
   * several-word noun changes ({@code 2 rule errors}). For any other plural use {@link #of(long,
   * String, String)}.
   */
  public static String of(long n, String noun) {
    return of(n, noun, plural(noun));
  }

  /** {@code n} and {@code one} when {@code n} is one, else {@code n} and {@code many}. */
  public static String of(long n, String one, String many) {
    return n + " " + (n == 1 ? one : many);
  }

  /**
   * As {@link #of(long, String)}, the count grouped in thousands as {@code streamform run} prints
   * its counts ({@code %,d} in {@link Locale#ROOT}): {@code 4,980 events}, {@code 1 event}.
   */
  public static String grouped(long n, String noun) {
    return number(n) + " " + (n == 1 ? noun : plural(noun));
  }

  /** {@code n} grouped in thousands as {@code streamform run} prints it: {@code 4,980}. */
  public static String number(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  private static String plural(String noun) {
    boolean hissing =
        noun.endsWith("s")
            || noun.endsWith("x")
            || noun.endsWith("z")
            || noun.endsWith("ch")
            || noun.endsWith("sh");
    return noun + (hissing ? "es" : "s");
  }
}
