package dev.streamform.sink;

import java.math.BigDecimal;

/**
 * A canary by key (docs/semantics.md §9.9): the keys whose bucket is below {@code basisPoints} read
 * {@code generation}, the others the model's canonical generation. A key's bucket is {@code
 * streamform.key_bucket(key)}: the first 32 bits of SHA-256 of the key as PostgreSQL prints it as
 * jsonb (e.g. {@code {"merchant_id": 7}}), unsigned, modulo 10 000 — of the key only, so every
 * window of a key, every run and every reader agree.
 *
 * @param generation the generation the share reads
 * @param basisPoints the share in hundredths of a percent, 1 to 9 999 (500 = 5%)
 */
public record CanaryShare(int generation, int basisPoints) {
  /** Buckets per key space: a share is counted in basis points. */
  public static final int BUCKETS = 10_000;

  public CanaryShare {
    if (generation < 1) {
      throw new IllegalArgumentException(
          "a generation is a whole number from 1, got " + generation);
    }
    if (basisPoints < 1 || basisPoints >= BUCKETS) {
      throw new IllegalArgumentException(
          "a canary share is more than 0% and less than 100%, got " + percent(basisPoints));
    }
  }

  /**
   * Whether a key whose bucket is {@code bucket} is in the share: its bucket is below the share
   * (exclusive, as {@code streamform.generation_for_key} decides in the database). Every Java
   * reader of a canary decides by this.
   */
  public boolean covers(int bucket) {
    return bucket < basisPoints;
  }

  /** How a share is written: ASCII digits, an optional point with digits after it, then %. */
  private static final java.util.regex.Pattern SPELLING =
      java.util.regex.Pattern.compile("[0-9]+(\\.[0-9]+)?%");

  /**
   * {@code "5%"}, {@code "0.5%"} or {@code "12.25%"} in basis points (500, 50, 1225).
   *
   * @throws IllegalArgumentException for anything else, or a share not in (0%, 100%) or finer than
   *     0.01%
   */
  public static int basisPoints(String percent) {
    // the documented spelling only: BigDecimal alone would also take 1e1, +5, .5 and other digits
    if (!SPELLING.matcher(percent).matches()) {
      throw new IllegalArgumentException(
          "a share is a percentage such as 5% or 0.5% (digits, an optional point with digits"
              + " after it, then %), got '"
              + percent
              + "'");
    }
    BigDecimal p = new BigDecimal(percent.substring(0, percent.length() - 1));
    BigDecimal bp = p.movePointRight(2);
    if (bp.signum() <= 0 || bp.compareTo(BigDecimal.valueOf(BUCKETS)) >= 0) {
      throw new IllegalArgumentException(
          "a canary share is more than 0% and less than 100% (give no share to move every key),"
              + " got "
              + percent);
    }
    if (bp.stripTrailingZeros().scale() > 0) {
      throw new IllegalArgumentException(
          "a share is counted in hundredths of a percent (0.01%), got " + percent);
    }
    return bp.intValueExact();
  }

  /** {@code 5%}, {@code 0.5%}. */
  public static String percent(int basisPoints) {
    return BigDecimal.valueOf(basisPoints).movePointLeft(2).stripTrailingZeros().toPlainString()
        + "%";
  }

  /** {@code 5% of keys (bucket < 500 of 10000) read generation 2}. */
  public String describe() {
    return percent(basisPoints)
        + " of keys (bucket < "
        + basisPoints
        + " of "
        + BUCKETS
        + ") read generation "
        + generation;
  }
}
