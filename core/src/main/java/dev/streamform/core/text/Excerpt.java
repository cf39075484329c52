package dev.streamform.core.text;

/**
 * A long value as messages quote it: its first 30 and last 20 characters around its length, so a
 * 5,000-character value does not fill a quarantine reason. Characters are Unicode code points: a
 * cut never splits one (an emoji is two UTF-16 units, and half of it prints as {@code ?}).
 */
public final class Excerpt {
  private Excerpt() {}

  /** Values of up to this many characters are shown whole. */
  public static final int WHOLE = 60;

  private static final int HEAD = 30;
  private static final int TAIL = 20;

  /**
   * {@code text} as a message quotes a value: {@link #of} between single quotes, {@code '1e400'}.
   */
  public static String quoted(String text) {
    return "'" + of(text) + "'";
  }

  /** {@code text} whole when short, else its start, its length in characters, and its end. */
  public static String of(String text) {
    int characters = text.codePointCount(0, text.length());
    if (characters <= WHOLE) {
      return text;
    }
    int headEnd = text.offsetByCodePoints(0, HEAD);
    int tailStart = text.offsetByCodePoints(text.length(), -TAIL);
    return text.substring(0, headEnd)
        + "…("
        + characters
        + " characters)…"
        + text.substring(tailStart);
  }
}
