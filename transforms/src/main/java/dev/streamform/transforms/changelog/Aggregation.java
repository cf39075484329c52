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
 * Output types: SUM keeps int64/double/decimal; COUNT is int64; MIN/MAX keep the column's type; AVG
 * of int64 or double is double, AVG of decimal is a decimal with scale {@code max(s, 6)} rounded
 * half-even. Decimal arithmetic is exact ({@code BigDecimal}), never floating point; an int64 sum
 * never wraps, a double sum never becomes infinite and a decimal sum (or average) never has more
 * than 38 digits at its scale: an event that would take it out of its type's range is refused (see
 * {@link Accumulators.SumOverflow}) and its stage quarantines it.
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

  /**
   * {@code SUM(column)}.
   *
   * @throws IllegalArgumentException if {@code column} is null or blank
   */
  public static Aggregation sum(String column) {
    return of(Function.SUM, required("sum", column));
  }

  /**
   * {@code COUNT(column)}: the number of non-null values; {@link #countAll()} counts events.
   *
   * @throws IllegalArgumentException if {@code column} is null or blank
   */
  public static Aggregation count(String column) {
    return of(Function.COUNT, required("count", column));
  }

  /** {@code COUNT(*)}: the number of events applied to the key. */
  public static Aggregation countAll() {
    return of(Function.COUNT, null);
  }

  /**
   * {@code MIN(column)}.
   *
   * @throws IllegalArgumentException if {@code column} is null or blank
   */
  public static Aggregation min(String column) {
    return of(Function.MIN, required("min", column));
  }

  /**
   * {@code MAX(column)}.
   *
   * @throws IllegalArgumentException if {@code column} is null or blank
   */
  public static Aggregation max(String column) {
    return of(Function.MAX, required("max", column));
  }

  /**
   * {@code AVG(column)}.
   *
   * @throws IllegalArgumentException if {@code column} is null or blank
   */
  public static Aggregation avg(String column) {
    return of(Function.AVG, required("avg", column));
  }

  /**
   * {@code function(column)}, named {@code <function>_<column>} until {@link #as(String)}; a null
   * column means {@code COUNT(*)} and is refused for every other function.
   *
   * @throws IllegalArgumentException if {@code function} is null, the column is blank, or null for
   *     a function other than COUNT
   */
  public static Aggregation of(Function function, @Nullable String column) {
    if (function == null) {
      throw new IllegalArgumentException(
          "Aggregation.of: the function is required (SUM, COUNT, MIN, MAX or AVG)");
    }
    String factory = function.name().toLowerCase(java.util.Locale.ROOT);
    if (column != null || function != Function.COUNT) {
      required(factory, column);
    }
    String defaultName = factory + "_" + (column == null ? "all" : column);
    return new AutoValue_Aggregation(function, column, defaultName);
  }

  /**
   * This aggregate with output column {@code name}.
   *
   * @throws IllegalArgumentException if {@code name} is null or blank
   */
  public Aggregation as(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException(
          "Aggregation."
              + call()
              + ".as("
              + quoted(name)
              + "): an output column needs a name,"
              + " e.g. .as(\"total_spend\")");
    }
    return new AutoValue_Aggregation(function(), column(), name);
  }

  private static String required(String factory, @Nullable String column) {
    if (column == null || column.isBlank()) {
      throw new IllegalArgumentException(
          "Aggregation."
              + factory
              + "("
              + quoted(column)
              + "): the aggregated column is required,"
              + " e.g. Aggregation."
              + factory
              + "(\"amount\")"
              + (factory.equals("count") ? "; to count events use Aggregation.countAll()" : ""));
    }
    return column;
  }

  private static String quoted(@Nullable String text) {
    return text == null ? "null" : "\"" + text + "\"";
  }

  @Override
  public final String toString() {
    return call() + " as " + name();
  }

  /** {@code sum(amount)}, {@code count(*)}: the aggregate without its name. */
  private String call() {
    return function().name().toLowerCase(java.util.Locale.ROOT)
        + "("
        + (column() == null ? "*" : column())
        + ")";
  }
}
