package dev.streamform.policies.schema;

import dev.streamform.policies.time.Timestamps;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;

/**
 * Converts a value as written in a fixture or a JSON record to the Java value of a column type:
 * int64 -> Long, string -> String, bool -> Boolean, double -> Double, decimal(p,s) -> BigDecimal
 * with scale s, timestamp -> Instant. Decimals never pass through floating point.
 */
public final class ColumnValues {
  private ColumnValues() {}

  /**
   * The value of {@code raw} (Long, Integer, BigDecimal, Double, Boolean, String or null) as
   * {@code type}; null stays null.
   *
   * @throws IllegalArgumentException naming the value and the type, e.g. "'abc' is not an int64"
   */
  public static Object convert(ColumnType type, Object raw) {
    if (raw == null) {
      return null;
    }
    String text = raw.toString().trim();
    switch (type.kind()) {
      case INT64:
        if (raw instanceof Long || raw instanceof Integer) {
          return ((Number) raw).longValue();
        }
        try {
          return new BigDecimal(text).longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
          throw new IllegalArgumentException("'" + text + "' is not an int64");
        }
      case DOUBLE:
        if (raw instanceof Boolean) {
          throw new IllegalArgumentException("'" + text + "' is not a double");
        }
        try {
          return Double.valueOf(text);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("'" + text + "' is not a double");
        }
      case DECIMAL:
        BigDecimal d;
        try {
          d = raw instanceof Boolean ? null : new BigDecimal(text);
        } catch (NumberFormatException e) {
          d = null;
        }
        if (d == null) {
          throw new IllegalArgumentException("'" + text + "' is not a " + type);
        }
        if (d.stripTrailingZeros().scale() > type.scale()) {
          throw new IllegalArgumentException(
              "'" + text + "' has more than " + type.scale() + " decimal places for " + type);
        }
        BigDecimal scaled = d.setScale(type.scale(), RoundingMode.UNNECESSARY);
        if (scaled.precision() > type.precision()) {
          throw new IllegalArgumentException("'" + text + "' has too many digits for " + type);
        }
        return scaled;
      case BOOL:
        if (raw instanceof Boolean) {
          return raw;
        }
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
          return Boolean.valueOf(text.toLowerCase());
        }
        throw new IllegalArgumentException("'" + text + "' is not a bool (true or false)");
      case STRING:
        return raw instanceof String ? raw : text;
      case TIMESTAMP:
        return Timestamps.parse(raw);
      default:
        throw new IllegalStateException("unknown type " + type);
    }
  }

  /** Like {@link #convert}, but a timestamp may also be RFC 3339 without a zone (UTC). */
  public static Object convertLenient(ColumnType type, Object raw) {
    if (raw != null && type.kind() == ColumnType.Kind.TIMESTAMP) {
      return Timestamps.parseLenient(raw);
    }
    return convert(type, raw);
  }

  /** Whether two converted values are equal by value: 10 = 10.00, 1 = 1.0. */
  public static boolean sameValue(Object a, Object b) {
    return sameValue(a, b, 0);
  }

  /**
   * Like {@link #sameValue(Object, Object)}, but when either value is a double, {@code a} (the
   * expected value) and {@code b} match when {@code |a - b| <= tolerance * max(1, |a|)}: an absolute
   * tolerance for values below 1, a relative one above. NaN matches NaN and an infinity itself.
   */
  public static boolean sameValue(Object a, Object b, double tolerance) {
    if (a == null || b == null) {
      return a == b;
    }
    if (a instanceof Number && b instanceof Number && (a instanceof Double || b instanceof Double)) {
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
