package dev.streamform.core.digest;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The identity of a window's revisions (docs/semantics.md §6): {@code H} is SHA-256, as 64
 * lowercase hex digits, over the UTF-8 bytes of a canonical JSON text of the hashed fields. The
 * same values give the same text on every runner, JVM and machine.
 *
 * <p>The canonical text ({@link #canonical(Object)}):
 *
 * <ul>
 *   <li>a list is a JSON array in its own order; a map is a JSON object with its keys sorted by
 *       their UTF-16 code units; no whitespace anywhere;
 *   <li>a string is a JSON string: {@code "} and {@code \} escaped with a backslash, control
 *       characters below U+0020 as {@code \}{@code u00XX} (lowercase hex), everything else as is;
 *   <li>an integer ({@code Long}, {@code Integer}, {@code Short}, {@code Byte}) is its decimal
 *       digits; a {@code BigDecimal} is its value with trailing zeros stripped, in plain notation,
 *       as a JSON string ({@code 10.00} and {@code 10} are both {@code "10"}); a {@code Double} is
 *       {@link Double#toString} as a JSON string ({@code "0.5"}, {@code "NaN"});
 *   <li>a boolean is {@code true} / {@code false}; null is {@code null};
 *   <li>an instant is a JSON string in RFC 3339 UTC with milliseconds, {@code
 *       "2026-08-30T10:00:00.000Z"}.
 * </ul>
 *
 * <p>The hashed fields, each a JSON array whose first element names what it identifies:
 *
 * <pre>
 * logical_window_id = H(["window", model, {key col: value, ...}, window_start, window_end])
 *                   (a calendar window: H([..., window_start, window_end, time_zone]))
 * projection_id     = H(["projection", logical_window_id, generation])
 * aggregate_digest  = H(["aggregate", {output col: value, ...}])
 * </pre>
 *
 * A calendar window's zone is a sixth element (its IANA name, e.g. {@code "Europe/Berlin"}), so the
 * same instant range in two zones is two windows (docs/semantics.md §6.24); fixed windows keep five
 * elements and the ids they always had (docs/decisions/0021-calendar-windows.md).
 *
 * <p>Test vectors are in docs/reference/revision-identity.md and in {@code RevisionIdentityTest}.
 */
public final class RevisionIdentity {
  private static final DateTimeFormatter RFC3339_MILLIS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
          .withZone(java.time.ZoneOffset.UTC);

  private RevisionIdentity() {}

  /** {@code H(["window", model, key, window_start, window_end])}: no generation in it. */
  public static String logicalWindowId(
      String model, Map<String, ?> key, Instant windowStart, Instant windowEnd) {
    return hash(List.of("window", model, key, windowStart, windowEnd));
  }

  /**
   * The id of a window: {@code timeZone} null for fixed windows (five elements), the calendar
   * window's IANA zone otherwise ({@code H(["window", model, key, start, end, time_zone])}).
   */
  public static String logicalWindowId(
      String model, Map<String, ?> key, Instant windowStart, Instant windowEnd, String timeZone) {
    return timeZone == null
        ? logicalWindowId(model, key, windowStart, windowEnd)
        : hash(List.of("window", model, key, windowStart, windowEnd, timeZone));
  }

  /** {@code H(["projection", logical_window_id, generation])}. */
  public static String projectionId(String logicalWindowId, int generation) {
    return hash(List.of("projection", logicalWindowId, (long) generation));
  }

  /** {@code H(["aggregate", values])}: the digest of a revision's output values. */
  public static String aggregateDigest(Map<String, ?> values) {
    return hash(List.of("aggregate", values));
  }

  /**
   * Each thread's SHA-256 (three hashes per window revision: looking the algorithm up each time
   * cost as much as hashing); {@code digest} leaves it reset for the next text.
   */
  private static final ThreadLocal<MessageDigest> SHA_256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("every Java runtime has SHA-256", e);
            }
          });

  private static final HexFormat HEX = HexFormat.of();

  /** SHA-256 of {@link #canonical(Object)}, as 64 lowercase hex digits. */
  public static String hash(Object value) {
    return HEX.formatHex(SHA_256.get().digest(canonical(value).getBytes(StandardCharsets.UTF_8)));
  }

  /** The canonical JSON text of {@code value} (see the class comment). */
  public static String canonical(Object value) {
    StringBuilder out = new StringBuilder();
    write(value, out);
    return out.toString();
  }

  private static void write(Object v, StringBuilder out) {
    if (v == null) {
      out.append("null");
    } else if (v instanceof String) {
      string((String) v, out);
    } else if (v instanceof Long
        || v instanceof Integer
        || v instanceof Short
        || v instanceof Byte) {
      out.append(((Number) v).longValue());
    } else if (v instanceof BigDecimal) {
      BigDecimal d = (BigDecimal) v;
      string(d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString(), out);
    } else if (v instanceof Double || v instanceof Float) {
      string(Double.toString(((Number) v).doubleValue()), out);
    } else if (v instanceof Boolean) {
      out.append(v);
    } else if (v instanceof Instant) {
      string(RFC3339_MILLIS.format((Instant) v), out);
    } else if (v instanceof Map) {
      Map<String, Object> sorted = new TreeMap<>();
      ((Map<?, ?>) v).forEach((k, x) -> sorted.put(String.valueOf(k), x));
      out.append('{');
      boolean first = true;
      for (Map.Entry<String, Object> e : sorted.entrySet()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        string(e.getKey(), out);
        out.append(':');
        write(e.getValue(), out);
      }
      out.append('}');
    } else if (v instanceof List) {
      out.append('[');
      boolean first = true;
      for (Object x : (List<?>) v) {
        if (!first) {
          out.append(',');
        }
        first = false;
        write(x, out);
      }
      out.append(']');
    } else {
      throw new IllegalArgumentException(
          "no canonical form for a " + v.getClass().getName() + ": " + v);
    }
  }

  private static void string(String text, StringBuilder out) {
    out.append('"');
    if (!needsEscapes(text)) {
      out.append(text).append('"'); // the usual text: appended whole rather than char by char
      return;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }

  private static boolean needsEscapes(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\' || c < 0x20) {
        return true;
      }
    }
    return false;
  }
}
