package dev.streamform.transforms.changelog;

import com.google.auto.value.AutoValue;
import java.io.Serializable;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * One aggregate of a keyed changelog: {@code SUM}, {@code COUNT}, {@code MIN}, {@code MAX} or
 * {@code AVG} over a column, named by {@link #as(String)}.
 *
 * <p>SQL rules: nulls are skipped; {@code SUM}, {@code MIN}, {@code MAX} and {@code AVG} of no
 * non-null value are null; {@code COUNT(*)} counts events, {@code COUNT(col)} non-null values.
 * Output types: SUM keeps int64/double/decimal; COUNT is int64; MIN/MAX keep the column's type;
 * AVG of int64 or double is double, AVG of decimal is a decimal with scale {@code max(s, 6)}
 * rounded half-even. Decimal arithmetic is exact ({@code BigDecimal}), never floating point;
 * int64 sums that overflow fail loudly rather than wrap.
 */
@AutoValue
public abstract class Aggregation implements Serializable {

  /** The aggregate functions. */
  public enum Function {
    SUM,
    COUNT,
    MIN,
    MAX,
    AVG
  }

  public abstract Function function();

  /** The aggregated column; null for {@code COUNT(*)}. */
  public abstract @Nullable String column();

  /** The output column name. */
  public abstract String name();

  public static Aggregation sum(String column) {
    return of(Function.SUM, column);
  }

  public static Aggregation count(String column) {
    return of(Function.COUNT, column);
  }

  /** {@code COUNT(*)}: the number of events applied to the key. */
  public static Aggregation countAll() {
    return of(Function.COUNT, null);
  }

  public static Aggregation min(String column) {
    return of(Function.MIN, column);
  }

  public static Aggregation max(String column) {
    return of(Function.MAX, column);
  }

  public static Aggregation avg(String column) {
    return of(Function.AVG, column);
  }

  public static Aggregation of(Function function, @Nullable String column) {
    String defaultName =
        function.name().toLowerCase(java.util.Locale.ROOT) + "_" + (column == null ? "all" : column);
    return new AutoValue_Aggregation(function, column, defaultName);
  }

  /** This aggregate with output column {@code name}. */
  public Aggregation as(String name) {
    return new AutoValue_Aggregation(function(), column(), name);
  }

  @Override
  public final String toString() {
    return function().name().toLowerCase(java.util.Locale.ROOT)
        + "("
        + (column() == null ? "*" : column())
        + ") as "
        + name();
  }
}
