package dev.streamform.policies.schema;

import com.google.auto.value.AutoValue;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The type of one column of a source schema: {@code int64}, {@code string}, {@code bool}, {@code
 * double}, {@code decimal(p,s)} or {@code timestamp}. Immutable; {@link #toString()} gives the
 * canonical spelling that {@link #parse(String)} accepts, so it round-trips.
 */
@AutoValue
public abstract class ColumnType {

  /** The kinds of column a schema may declare. */
  public enum Kind {
    INT64,
    STRING,
    BOOL,
    DOUBLE,
    DECIMAL,
    TIMESTAMP
  }

  private static final Pattern DECIMAL =
      Pattern.compile("decimal\\s*\\(\\s*(\\d+)\\s*,\\s*(\\d+)\\s*\\)", Pattern.CASE_INSENSITIVE);

  /** Largest decimal precision, as in SQL engines that hold decimals in 128 bits. */
  public static final int MAX_PRECISION = 38;

  public static final ColumnType INT64 = of(Kind.INT64, 0, 0);
  public static final ColumnType STRING = of(Kind.STRING, 0, 0);
  public static final ColumnType BOOL = of(Kind.BOOL, 0, 0);
  public static final ColumnType DOUBLE = of(Kind.DOUBLE, 0, 0);
  public static final ColumnType TIMESTAMP = of(Kind.TIMESTAMP, 0, 0);

  public abstract Kind kind();

  /** Decimal precision; 0 for other kinds. */
  public abstract int precision();

  /** Decimal scale; 0 for other kinds. */
  public abstract int scale();

  private static ColumnType of(Kind kind, int precision, int scale) {
    return new AutoValue_ColumnType(kind, precision, scale);
  }

  /** A {@code decimal(precision, scale)}; refuses precision outside 1..38 or scale above it. */
  public static ColumnType decimal(int precision, int scale) {
    if (precision < 1 || precision > MAX_PRECISION) {
      throw new IllegalArgumentException(
          "decimal precision must be between 1 and " + MAX_PRECISION + ", got " + precision);
    }
    if (scale < 0 || scale > precision) {
      throw new IllegalArgumentException(
          "decimal scale must be between 0 and the precision (" + precision + "), got " + scale);
    }
    return of(Kind.DECIMAL, precision, scale);
  }

  /**
   * Parses a type name as written in {@code sources.yml}.
   *
   * @throws IllegalArgumentException with a message listing the accepted types
   */
  public static ColumnType parse(String text) {
    String t = text == null ? "" : text.trim();
    switch (t.toLowerCase(Locale.ROOT)) {
      case "int64":
        return INT64;
      case "string":
        return STRING;
      case "bool":
        return BOOL;
      case "double":
        return DOUBLE;
      case "timestamp":
        return TIMESTAMP;
      default:
        Matcher m = DECIMAL.matcher(t);
        if (m.matches()) {
          // Past int's range a number is as out of range as 39 (Integer.parseInt would say
          // only `For input string: "99999999999"`).
          int precision = atMostIntMax(m.group(1));
          if (precision < 1 || precision > MAX_PRECISION) {
            throw new IllegalArgumentException(
                "decimal precision must be between 1 and " + MAX_PRECISION + ", got " + m.group(1));
          }
          int scale = atMostIntMax(m.group(2));
          if (scale > precision) {
            throw new IllegalArgumentException(
                "decimal scale must be between 0 and the precision ("
                    + precision
                    + "), got "
                    + m.group(2));
          }
          return decimal(precision, scale);
        }
        throw new IllegalArgumentException(
            "unknown type '"
                + text
                + "'; use one of int64, string, bool, double, decimal(p,s), timestamp");
    }
  }

  /** The digits' value, or {@link Integer#MAX_VALUE} when it is larger. */
  private static int atMostIntMax(String digits) {
    java.math.BigInteger v = new java.math.BigInteger(digits);
    return v.compareTo(java.math.BigInteger.valueOf(Integer.MAX_VALUE)) > 0
        ? Integer.MAX_VALUE
        : v.intValueExact();
  }

  public boolean isNumeric() {
    return kind() == Kind.INT64 || kind() == Kind.DOUBLE || kind() == Kind.DECIMAL;
  }

  /** The type after its article, for a sentence: "an int64", "a string", "a decimal(12,2)". */
  public final String withArticle() {
    return ("aeiou".indexOf(toString().charAt(0)) >= 0 ? "an " : "a ") + this;
  }

  @Override
  public final String toString() {
    return kind() == Kind.DECIMAL
        ? "decimal(" + precision() + "," + scale() + ")"
        : kind().name().toLowerCase(Locale.ROOT);
  }
}
