package dev.streamform.policies.schema;

import dev.streamform.policies.time.Timestamps;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts a value as written in a fixture or a JSON record to the Java value of a column type:
 * int64 -> Long, string -> String, bool -> Boolean, double -> Double, decimal(p,s) -> BigDecimal
 * with scale s, timestamp -> Instant. Decimals never pass through floating point.
 *
 * <p>Cost is bounded by the text's length, never by the value: a number longer than {@link
 * #MAX_NUMBER_LENGTH} characters is refused unparsed, and a decimal or int64 out of its range is
 * refused from its precision and exponent before any scaling, so {@code 1e900000000} is refused at
 * once. A double beyond the double range is refused, not read as Infinity, and so is an infinity
 * spelled out. A string that is not storable text (U+0000, a lone UTF-16 surrogate) is refused
 * ({@link NotText}).
 */
public final class ColumnValues {
  private ColumnValues() {}

  /**
   * A key column's value as keys are told apart by value: a number as its {@link BigDecimal}
   * without trailing zeros ({@code 10}, {@code 10.0} and {@code 1e1} one key), a double that is not
   * finite ({@code NaN}, an infinity) as itself — it has no decimal — and anything else as it is.
   */
  public static Object keyByValue(Object v) {
    if (v instanceof Double d && !Double.isFinite(d)) {
      return d;
    }
    if (v instanceof Float f && !Float.isFinite(f)) {
      return (double) f;
    }
    return v instanceof Number ? new BigDecimal(v.toString()).stripTrailingZeros() : v;
  }

  /**
   * The value of {@code raw} (Long, Integer, BigDecimal, Double, Boolean, String or null) as {@code
   * type}; null stays null.
   *
   * @throws IllegalArgumentException naming the value and the type, e.g. "'abc' is not an int64"
   */
  public static Object convert(ColumnType type, Object raw) {
    return convert(type, raw, null);
  }

  /**
   * Like {@link #convert(ColumnType, Object)}, for a value {@code written} so in its file or record
   * (a number's own text, a string untrimmed; null: {@code raw} as text): messages quote {@code
   * written}, cut when long, not {@code raw} rewritten ({@code 1E+400} for {@code 1e400}), and a
   * number or bool read into a string column is {@code written} (ADR 0129).
   */
  public static Object convert(ColumnType type, Object raw, String written) {
    if (raw == null) {
      return null;
    }
    String text = raw.toString().trim();
    // quoted for a message only when one is thrown: this runs for every value of every record
    String asWritten = written != null ? written : text;
    switch (type.kind()) {
      case INT64:
        if (raw instanceof Long || raw instanceof Integer) {
          return ((Number) raw).longValue();
        }
        return int64(text, asWritten);
      case DOUBLE:
        if (raw instanceof Boolean) {
          throw new IllegalArgumentException(notADouble(q(asWritten)));
        }
        return finiteDouble(text, asWritten);
      case DECIMAL:
        return decimal(type, raw instanceof Boolean ? null : number(text), text, asWritten);
      case BOOL:
        if (raw instanceof Boolean) {
          return raw;
        }
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
          return Boolean.valueOf(text.toLowerCase());
        }
        throw new IllegalArgumentException(q(asWritten) + " is not a bool (true or false)");
      case STRING:
        if (raw instanceof String) {
          checkText((String) raw);
          return raw;
        }
        return written != null ? written : text;
      case TIMESTAMP:
        return Timestamps.parse(raw, written);
      default:
        throw new IllegalStateException("unknown type " + type);
    }
  }

  /**
   * A string that is not text every sink can store: it holds U+0000 (NUL), which PostgreSQL's text
   * and jsonb refuse, or half of a UTF-16 surrogate pair without the other, which is no Unicode
   * character and which UTF-8 cannot encode (it would be written as '?', and two such keys would
   * merge). Such a value does not fit a string column (docs/decisions/0105).
   */
  public static final class NotText extends IllegalArgumentException {
    private final boolean nul;

    private NotText(String message, boolean nul) {
      super(message);
      this.nul = nul;
    }

    /** What to do about {@code key}'s value, for a fixture's problem. */
    public String fix(String key) {
      return nul
          ? "remove U+0000 from " + key
          : "give "
              + key
              + " the whole character (both halves of its surrogate pair, e.g. \\ud83d\\ude00)"
              + " or remove the half";
    }
  }

  /** A double that is infinite, or beyond the double range, which no double column takes. */
  public static final class NotFinite extends IllegalArgumentException {
    private NotFinite(String message) {
      super(message);
    }

    /** What to do about {@code key}'s value, for a fixture's problem. */
    public String fix(String key) {
      return "give " + key + " a finite number, e.g. 1.5";
    }
  }

  /**
   * Refuses {@code s} when it is not storable text: the first U+0000 or unpaired surrogate, and its
   * place (in characters, from 1; a lone surrogate counts as one).
   *
   * @throws NotText e.g. "contains U+0000 (NUL) at character 2, which no sink can store as text"
   */
  public static void checkText(String s) {
    int at = 1;
    for (int i = 0; i < s.length(); i++, at++) {
      char c = s.charAt(i);
      if (c == 0) {
        throw new NotText(
            "contains U+0000 (NUL) at character " + at + ", which no sink can store as text", true);
      }
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new NotText(
            String.format(
                java.util.Locale.ROOT,
                "contains an unpaired UTF-16 surrogate (\\u%04x) at character %d, which is not"
                    + " Unicode text",
                (int) c,
                at),
            false);
      }
    }
  }

  /**
   * The longest number text read, as Jackson's default {@code maxNumberLength}: a longer one is
   * refused before it is parsed (parsing a number of n digits costs more than n steps).
   */
  public static final int MAX_NUMBER_LENGTH = 1000;

  private static BigDecimal number(String text) {
    if (text.length() > MAX_NUMBER_LENGTH) {
      return null;
    }
    try {
      return new BigDecimal(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static long int64(String text, String asWritten) {
    if (text.length() > MAX_NUMBER_LENGTH) {
      throw new IllegalArgumentException(tooLong(text, "an int64"));
    }
    BigDecimal d = number(text);
    if (d == null) {
      throw new IllegalArgumentException(q(asWritten) + " is not an int64");
    }
    if (d.signum() == 0) {
      return 0;
    }
    // digits before the point, from precision and scale alone: 1e900000000 costs nothing here,
    // while turning it into an integer would build a number of 900 million digits
    long integerDigits = (long) d.precision() - d.scale();
    if (integerDigits > 19) {
      throw new IllegalArgumentException(
          q(asWritten)
              + " is out of the int64 range ("
              + Long.MIN_VALUE
              + " to "
              + Long.MAX_VALUE
              + ")");
    }
    // |d| < 1, or a fraction left after the zeros are stripped (cheap: fewer than 20 digits
    // before the point and at most MAX_NUMBER_LENGTH after it)
    if (integerDigits <= 0 || d.stripTrailingZeros().scale() > 0) {
      throw new IllegalArgumentException(q(asWritten) + " is not an int64 (not a whole number)");
    }
    try {
      return d.longValueExact();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          q(asWritten)
              + " is out of the int64 range ("
              + Long.MIN_VALUE
              + " to "
              + Long.MAX_VALUE
              + ")");
    }
  }

  /**
   * YAML 1.1's spellings of the IEEE specials (a YAML file writes NaN as {@code .nan}): the same
   * values as NaN, Infinity and -Infinity, which a fixture may write either way (an infinity only
   * to be refused, as in a record).
   */
  private static final Map<String, Double> YAML_SPECIALS = yamlSpecials();

  /** The text of a double: a decimal number with an optional exponent, NaN or Infinity. */
  private static final java.util.regex.Pattern DOUBLE_TEXT =
      java.util.regex.Pattern.compile(
          "[+-]?(?:NaN|Infinity|(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?)");

  private static Map<String, Double> yamlSpecials() {
    Map<String, Double> m = new HashMap<>();
    for (String nan : List.of(".nan", ".NaN", ".NAN")) {
      m.put(nan, Double.NaN);
    }
    for (String inf : List.of(".inf", ".Inf", ".INF")) {
      m.put(inf, Double.POSITIVE_INFINITY);
      m.put("+" + inf, Double.POSITIVE_INFINITY);
      m.put("-" + inf, Double.NEGATIVE_INFINITY);
    }
    return Map.copyOf(m);
  }

  /** {@code value} quoted for a message, cut when long. */
  private static String q(String value) {
    return dev.streamform.core.text.Excerpt.quoted(value);
  }

  /** A value that is no double, and how to write one. */
  private static String notADouble(String quoted) {
    return quoted + " is not a double: write a number (1.5, -2e3) or NaN (or .nan)";
  }

  /**
   * A double column holds finite numbers and NaN (spelled NaN or, as YAML writes it, .nan). An
   * infinity is refused, whether spelled out (Infinity, -Infinity, .inf, -.inf) or a finite number
   * beyond the double range (1e400): read, it would stick its group's sum at infinity, every later
   * event of the group quarantined as an overflow (ADR 0081). One below the range (1e-400) rounds
   * to 0 like any other double rounding.
   */
  private static double finiteDouble(String text, String asWritten) {
    if (text.length() > MAX_NUMBER_LENGTH) {
      throw new IllegalArgumentException(tooLong(text, "a double"));
    }
    Double special = YAML_SPECIALS.get(text);
    double v;
    if (special != null) {
      v = special;
    } else {
      // A number as yaml.md writes one (1.5, -2e3) or NaN; Double.parseDouble also reads Java's
      // own spellings (1.5f, 1.5d, 0x1p3), which are no double of a record.
      if (!DOUBLE_TEXT.matcher(text).matches()) {
        throw new IllegalArgumentException(notADouble(q(asWritten)));
      }
      try {
        v = Double.parseDouble(text);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(notADouble(q(asWritten)));
      }
    }
    if (Double.isInfinite(v)) {
      throw new NotFinite(
          special != null || text.contains("Infinity")
              ? q(asWritten) + " is infinite; a double column takes finite numbers (and NaN)"
              : q(asWritten) + " is out of the double range (about ±1.8e308)");
    }
    // -0.0 however it is written ("-0.0", -1e-400) is 0.0, as a JSON number -0.0 is read: one
    // key, one id payload, one MIN (docs/reference/revision-identity.md)
    return v == 0.0 ? 0.0 : v;
  }

  /**
   * {@code d} with the type's scale, after checks on its precision and scale alone: no work here
   * grows with the exponent, so 1e900000000 is refused at once, never scaled.
   */
  private static BigDecimal decimal(ColumnType type, BigDecimal d, String text, String asWritten) {
    if (d == null) {
      throw new IllegalArgumentException(
          text.length() > MAX_NUMBER_LENGTH
              ? tooLong(text, type.withArticle())
              : q(asWritten) + " is not " + type.withArticle());
    }
    if (d.signum() == 0) {
      return BigDecimal.valueOf(0, type.scale());
    }
    long integerDigits = (long) d.precision() - d.scale();
    if (integerDigits > type.precision() - type.scale()) {
      throw new IllegalArgumentException(
          q(asWritten)
              + " has too many digits for "
              + type
              + " (at most "
              + (type.precision() - type.scale())
              + " before the decimal point)");
    }
    // at most precision() trailing zeros can be stripped: past that, too many places for sure
    if ((long) d.scale() - d.precision() > type.scale()
        || d.stripTrailingZeros().scale() > type.scale()) {
      throw new IllegalArgumentException(
          q(asWritten) + " has more than " + type.scale() + " decimal places for " + type);
    }
    BigDecimal scaled = d.setScale(type.scale(), RoundingMode.UNNECESSARY);
    if (scaled.precision() > type.precision()) {
      throw new IllegalArgumentException(q(asWritten) + " has too many digits for " + type);
    }
    return scaled;
  }

  private static String tooLong(String text, String what) {
    return "a number of "
        + text.length()
        + " characters is longer than the "
        + MAX_NUMBER_LENGTH
        + " allowed for "
        + what;
  }

  /** Like {@link #convert}, but a timestamp may also be RFC 3339 without a zone (UTC). */
  public static Object convertLenient(ColumnType type, Object raw) {
    return convertLenient(type, raw, null);
  }

  /**
   * Like {@link #convertLenient(ColumnType, Object)}, for a record's value {@code written} so in
   * the record (a JSON number's own text, a string as it is, untrimmed): messages quote it, cut
   * when long, and a number or bool read into a string column is that text (ADR 0129).
   */
  public static Object convertLenient(ColumnType type, Object raw, String written) {
    if (raw != null && type.kind() == ColumnType.Kind.TIMESTAMP) {
      return Timestamps.parseLenient(raw, written);
    }
    return convert(type, raw, written);
  }

  /** Whether two converted values are equal by value: 10 = 10.00, 1 = 1.0. */
  public static boolean sameValue(Object a, Object b) {
    return sameValue(a, b, 0);
  }

  /**
   * Like {@link #sameValue(Object, Object)}, but when either value is a double, {@code a} (the
   * expected value) and {@code b} match when {@code |a - b| <= tolerance * max(1, |a|)}: an
   * absolute tolerance for values below 1, a relative one above. NaN matches NaN and an infinity
   * itself.
   */
  public static boolean sameValue(Object a, Object b, double tolerance) {
    if (a == null || b == null) {
      return a == b;
    }
    if (a instanceof Number
        && b instanceof Number
        && (a instanceof Double || b instanceof Double)) {
      double x = ((Number) a).doubleValue();
      double y = ((Number) b).doubleValue();
      if (!Double.isFinite(x) || !Double.isFinite(y)) {
        return Double.compare(x, y) == 0;
      }
      if (tolerance > 0) {
        return Math.abs(x - y) <= tolerance * Math.max(1, Math.abs(x));
      }
    }
    if (a instanceof Number && b instanceof Number) {
      return new BigDecimal(a.toString()).compareTo(new BigDecimal(b.toString())) == 0;
    }
    if (a instanceof Instant && b instanceof Instant) {
      return a.equals(b);
    }
    return a.equals(b);
  }

  /**
   * How a value is shown where it is compared with another ({@code `c` is <value>, expected
   * <value>}): as {@link #show}, and a string holding a character one cannot see names the first
   * such and its place, as a did-you-mean does ({@link InvisibleCharacters}): {@code "1 000" (it
   * holds a no-break space (U+00A0) at character 2)}, else two values that differ print alike.
   */
  public static String showNamingInvisible(Object value) {
    String shown = show(value);
    return value instanceof String
        ? InvisibleCharacters.describe((String) value)
            .map(d -> shown + " (it " + d + ")")
            .orElse(shown)
        : shown;
  }

  /** How a value is shown in reports: decimals plain, instants in RFC 3339, strings quoted. */
  public static String show(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof BigDecimal) {
      BigDecimal d = ((BigDecimal) value).stripTrailingZeros();
      return (d.scale() < 0 ? d.setScale(0) : d).toPlainString();
    }
    if (value instanceof Instant) {
      return "\"" + Timestamps.format((Instant) value) + "\"";
    }
    if (value instanceof String) {
      return "\"" + value + "\"";
    }
    return value.toString();
  }
}
