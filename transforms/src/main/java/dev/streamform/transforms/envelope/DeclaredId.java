package dev.streamform.transforms.envelope;

import java.math.BigDecimal;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The text that names an event by its declared id (the source's {@code event_id} column) in a
 * decision, a late or dead-letter row and a decision's identity hash: one spelling per value,
 * whichever runner or reader holds it, so the pipeline, the reference oracle and the sinks agree.
 * Ids compare by value, as duplicate detection compares them: a decimal id without trailing zeros
 * ({@code 7.50} is {@code 7.5}), an instant in ISO-8601 UTC with only the fraction it has ({@code
 * 2026-08-30T10:00:01Z}, as {@link java.time.Instant#toString()} writes it — a Joda instant would
 * say {@code .000Z}), anything else as {@link Object#toString()}.
 */
public final class DeclaredId {
  private DeclaredId() {}

  /** {@code value}'s text, or null for no value. */
  public static @Nullable String text(@Nullable Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof BigDecimal) {
      BigDecimal d = (BigDecimal) value;
      return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
    }
    if (value instanceof org.joda.time.ReadableInstant) {
      return java.time.Instant.ofEpochMilli(((org.joda.time.ReadableInstant) value).getMillis())
          .toString();
    }
    return value.toString();
  }
}
