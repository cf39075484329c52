package dev.streamform.transforms.changelog;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

import java.io.Serializable;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.Schema.FieldType;
import org.apache.beam.sdk.schemas.Schema.TypeName;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The accumulator of a list of {@link Aggregation}s over records of one schema: its state schema,
 * how one record is folded in, and the output values. State per aggregate {@code i} is a value
 * {@code v<i>} (sum, min or max) and a count {@code n<i>} of the values folded in.
 */
public final class Accumulators implements Serializable {
  private static final int AVG_MIN_SCALE = 6;

  /** The precision of a decimal {@code SUM} and {@code AVG}: {@code decimal(38,s)}. */
  private static final int MAX_DECIMAL = 38;

  private final List<Aggregation> aggregations;
  private final List<@Nullable FieldType> inputTypes;
  private final Schema stateSchema;
  private final Schema outputSchema;

  public Accumulators(Schema input, List<Aggregation> aggregations) {
    this.aggregations = List.copyOf(aggregations);
    this.inputTypes = new ArrayList<>();
    Schema.Builder state = Schema.builder();
    Schema.Builder output = Schema.builder();
    for (int i = 0; i < aggregations.size(); i++) {
      Aggregation a = aggregations.get(i);
      FieldType type = null;
      if (a.column() != null) {
        checkArgument(
            input.hasField(a.column()),
            "%s: column `%s` is not a field of the records (fields: %s)",
            a,
            a.column(),
            input.getFieldNames());
        type = input.getField(a.column()).getType().withNullable(false);
      }
      checkArgument(
          a.function() == Aggregation.Function.COUNT || type != null,
          "%s needs a column",
          a.function());
      if (a.function() == Aggregation.Function.SUM || a.function() == Aggregation.Function.AVG) {
        TypeName t = type.getTypeName();
        checkArgument(
            t == TypeName.INT64 || t == TypeName.DOUBLE || t == TypeName.DECIMAL,
            "%s needs an int64, double or decimal column; `%s` is %s",
            a,
            a.column(),
            t);
      }
      inputTypes.add(type);
      state.addNullableField("v" + i, type == null ? FieldType.INT64 : type);
      state.addInt64Field("n" + i);
      output.addNullableField(a.name(), outputType(a.function(), type));
    }
    this.stateSchema = state.build();
    this.outputSchema = output.build();
  }

  private static FieldType outputType(Aggregation.Function f, @Nullable FieldType in) {
    switch (f) {
      case COUNT:
        return FieldType.INT64;
      case AVG:
        return in.getTypeName() == TypeName.DECIMAL ? FieldType.DECIMAL : FieldType.DOUBLE;
      default:
        return in;
    }
  }

  public Schema stateSchema() {
    return stateSchema;
  }

  public Schema outputSchema() {
    return outputSchema;
  }

  /**
   * The state after folding {@code record} into {@code state} (null state = initial value).
   *
   * @throws SumOverflow when an int64 sum would leave int64 ({@link Int64Overflow}), a double sum
   *     would pass the largest double ({@link DoubleOverflow}) or a decimal sum or average its
   *     declared type ({@link DecimalOverflow}): the state is unchanged, and the record is not
   *     applied (a keyed stage quarantines it, naming the column)
   */
  public Row add(@Nullable Row state, Row record) {
    List<Object> values = new ArrayList<>(2 * aggregations.size());
    for (int i = 0; i < aggregations.size(); i++) {
      Aggregation a = aggregations.get(i);
      Object v = state == null ? null : state.getValue(2 * i);
      long n = state == null ? 0L : state.getInt64(2 * i + 1);
      Object x = a.column() == null ? null : record.getValue(a.column());
      if (x instanceof Double && ((Double) x).isInfinite()) {
        // a decoded record never holds one (ColumnValues refuses it); a Java author's Row may
        throw new UnfitValue(UnfitValue.reason(a.column(), (Double) x));
      }
      if (x instanceof BigDecimal
          && ((BigDecimal) x).scale() > MAX_DECIMAL // the common case allocates nothing
          && ((BigDecimal) x).stripTrailingZeros().scale() > MAX_DECIMAL) {
        // nor a decimal finer than decimal(38,38) (a declared type's scale is at most 38)
        throw new UnfitValue(UnfitValue.reason(a.column(), (BigDecimal) x));
      }
      if (a.column() == null || x != null) {
        n++;
        Object before = v;
        try {
          v = fold(a.function(), inputTypes.get(i), v, x);
        } catch (ArithmeticException overflow) {
          throw new Int64Overflow(Int64Overflow.reason(a.column(), a.name(), (Long) v, (Long) x));
        }
        if (v instanceof Double
            && ((Double) v).isInfinite()
            && before != null
            && sums(a.function())) {
          // two finite doubles (an infinite one is refused above) whose sum is not: the total
          // would read "Infinity" from here on, whatever came after
          throw new DoubleOverflow(
              DoubleOverflow.reason(a.column(), a.name(), (Double) before, (Double) x));
        }
        if (v instanceof BigDecimal && sums(a.function())) {
          checkDecimal(a, (BigDecimal) before, (BigDecimal) x, (BigDecimal) v, n);
        }
      }
      values.add(v);
      values.add(n);
    }
    // the values already have the state schema's types (folded from records of the input schema):
    // attach them without Row.Builder's per-field verification (6% of the keyed stage's samples)
    return Row.withSchema(stateSchema).attachValues(values);
  }

  private static boolean sums(Aggregation.Function f) {
    return f == Aggregation.Function.SUM || f == Aggregation.Function.AVG;
  }

  /**
   * Refuses a decimal {@code sum} (of {@code before}, null for none, and {@code x}) past {@code
   * decimal(38,s)}, s the values' scale, and for an {@code AVG} an average of {@code n} values past
   * its {@code decimal(38, max(s,6))}: the output columns' declared types.
   */
  private void checkDecimal(
      Aggregation a, @Nullable BigDecimal before, BigDecimal x, BigDecimal sum, long n) {
    if (before != null && DecimalOverflow.digitsBeforeThePoint(sum) > MAX_DECIMAL - sum.scale()) {
      throw new DecimalOverflow(DecimalOverflow.reason(a.column(), a.name(), before, x));
    }
    if (a.function() != Aggregation.Function.AVG) {
      return;
    }
    int scale = Math.max(sum.scale(), AVG_MIN_SCALE);
    // the average has no more digits before the point than its sum: divide only when it may
    if (DecimalOverflow.digitsBeforeThePoint(sum) > MAX_DECIMAL - scale) {
      BigDecimal avg = average(sum, n);
      if (DecimalOverflow.digitsBeforeThePoint(avg) > MAX_DECIMAL - scale) {
        throw new DecimalOverflow(DecimalOverflow.averageReason(a.column(), a.name(), avg));
      }
    }
  }

  /** {@code AVG(decimal(p,s))}: the sum over n, half-even to scale {@code max(s, 6)}. */
  private static BigDecimal average(BigDecimal sum, long n) {
    return sum.divide(
        BigDecimal.valueOf(n), Math.max(sum.scale(), AVG_MIN_SCALE), RoundingMode.HALF_EVEN);
  }

  /**
   * A record whose value would take a {@code SUM} (or the sum behind an {@code AVG}) out of its
   * type's range: the record is not applied and its keyed stage quarantines it with {@link
   * #getMessage()} as the reason, naming the column.
   */
  public abstract static class SumOverflow extends ArithmeticException {
    private static final long serialVersionUID = 1L;

    SumOverflow(String reason) {
      super(reason);
    }

    /**
     * {@code column `c`: the <type> sum for `out` would overflow: <sum> + <value> is outside
     * <range>}.
     */
    static String reason(
        String column, String type, String output, Object sum, Object value, String range) {
      return "column `"
          + column
          + "`: the "
          + type
          + " sum for `"
          + output
          + "` would overflow: "
          + sum
          + " + "
          + value
          + " is outside "
          + range;
    }
  }

  /**
   * A record whose double column holds an infinity, which no double column takes, or whose decimal
   * has more than 38 digits after the point, which no declared decimal type holds: a decoded record
   * is refused them where it is read (ColumnValues, the declared types), a Row a Java author hands
   * the stage here, before any aggregate applies it (an infinity would hold a SUM, MIN or MAX there
   * and make every later value of its key look like an overflow; a decimal sum would be said to
   * overflow "decimal(38,40)").
   */
  public static final class UnfitValue extends SumOverflow {
    private static final long serialVersionUID = 1L;

    UnfitValue(String reason) {
      super(reason);
    }

    static String reason(String column, double value) {
      return "column `"
          + column
          + "`: '"
          + value
          + "' is infinite; a double column takes finite numbers (and NaN)";
    }

    static String reason(String column, BigDecimal value) {
      return "column `"
          + column
          + "`: "
          + value.toPlainString()
          + " has "
          + value.stripTrailingZeros().scale()
          + " digits after the decimal point; a decimal holds at most "
          + MAX_DECIMAL
          + " (decimal(38,38)): round the values to "
          + MAX_DECIMAL
          + " places or fewer";
    }
  }

  /**
   * A record whose value would take an int64 {@code SUM} (or the sum behind an {@code AVG}) outside
   * int64: wrapping would emit a wrong total as if it were right.
   */
  public static final class Int64Overflow extends SumOverflow {
    private static final long serialVersionUID = 1L;

    Int64Overflow(String reason) {
      super(reason);
    }

    /**
     * The reason, naming the column: {@code column `amount`: the int64 sum for `total` would
     * overflow: 9223372036854775800 + 10 is outside int64 (...); declare ...}.
     */
    public static String reason(String column, String output, long sum, long value) {
      return SumOverflow.reason(
          column,
          "int64",
          output,
          sum,
          value,
          "int64 (-9223372036854775808 to 9223372036854775807); declare `"
              + column
              + "` as decimal(38,0) in sources.yml for larger totals (in a Java pipeline without"
              + " sources.yml: a DECIMAL field of the records' Schema)");
    }
  }

  /**
   * A record whose value would take a double {@code SUM} (or the sum behind an {@code AVG}) past
   * the largest double (about ±1.8e308): the sum would be infinite, and stay so whatever came
   * after.
   */
  public static final class DoubleOverflow extends SumOverflow {
    private static final long serialVersionUID = 1L;

    DoubleOverflow(String reason) {
      super(reason);
    }

    /**
     * The reason, naming the column: {@code column `amount`: the double sum for `total` would
     * overflow: 1.0E308 + 1.0E308 is outside the double range (about ±1.8e308)}.
     */
    public static String reason(String column, String output, double sum, double value) {
      return SumOverflow.reason(
          column, "double", output, sum, value, "the double range (about ±1.8e308)");
    }
  }

  /**
   * A record whose value would take a decimal {@code SUM} (or the sum behind an {@code AVG}) past
   * its type, {@code decimal(38,s)}, or an {@code AVG} past {@code decimal(38, max(s,6))}: the
   * total would be a value its own column cannot hold (a fixture cannot even expect it).
   */
  public static final class DecimalOverflow extends SumOverflow {
    private static final long serialVersionUID = 1L;

    DecimalOverflow(String reason) {
      super(reason);
    }

    /** The digits of {@code d} before its decimal point (0 for a value below 1). */
    static long digitsBeforeThePoint(BigDecimal d) {
      return Math.max(0L, (long) d.precision() - d.scale());
    }

    /** {@code decimal(38,s) (at most 38-s digits before the decimal point)}. */
    private static String type(int scale) {
      return "decimal("
          + MAX_DECIMAL
          + ","
          + scale
          + ") (at most "
          + (MAX_DECIMAL - scale)
          + " digits before the decimal point)";
    }

    /**
     * The reason, naming the column: {@code column `amount`: the decimal sum for `total` would
     * overflow: 99…9 + 99…9 is outside decimal(38,0) (at most 38 digits before the decimal point)}.
     */
    public static String reason(String column, String output, BigDecimal sum, BigDecimal value) {
      int scale = Math.max(sum.scale(), value.scale());
      return SumOverflow.reason(
          column, "decimal", output, sum.toPlainString(), value.toPlainString(), type(scale));
    }

    /**
     * The reason for an average, naming the column: {@code column `amount`: the decimal average for
     * `mean` would overflow: 1…0.500000 is outside decimal(38,6) (at most 32 digits before the
     * decimal point)}.
     */
    public static String averageReason(String column, String output, BigDecimal average) {
      return "column `"
          + column
          + "`: the decimal average for `"
          + output
          + "` would overflow: "
          + average.toPlainString()
          + " is outside "
          + type(average.scale());
    }
  }

  /**
   * The output values of {@code records} folded in order, each as a double (null: 0.0), by output
   * name in aggregation order: a scoring model's features. The values are those of {@link
   * #output(Row)} after {@link #add(Row, Row)} of each record, but an int64 sum that would leave
   * int64 goes on exactly in decimal: a feature is a double, so it has a value there and no record
   * needs to be refused for it.
   */
  public Map<String, Double> asDoubles(List<Row> records) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (int i = 0; i < aggregations.size(); i++) {
      Aggregation a = aggregations.get(i);
      Object v = null;
      long n = 0;
      for (Row record : records) {
        Object x = a.column() == null ? null : record.getValue(a.column());
        if (a.column() == null || x != null) {
          n++;
          v = foldWidening(a.function(), inputTypes.get(i), v, x);
        }
      }
      Object value = outputOf(i, v, n);
      out.put(a.name(), value == null ? 0.0 : ((Number) value).doubleValue());
    }
    return out;
  }

  /** {@link #fold}, but an int64 sum past int64 continues exactly as a decimal. */
  private static @Nullable Object foldWidening(
      Aggregation.Function f, @Nullable FieldType type, @Nullable Object acc, @Nullable Object x) {
    boolean sums = f == Aggregation.Function.SUM || f == Aggregation.Function.AVG;
    if (sums && acc instanceof BigDecimal && x instanceof Long) {
      return ((BigDecimal) acc).add(BigDecimal.valueOf((Long) x));
    }
    try {
      return fold(f, type, acc, x);
    } catch (ArithmeticException overflow) { // only an int64 sum: it goes on as a decimal
      return BigDecimal.valueOf((Long) acc).add(BigDecimal.valueOf((Long) x));
    }
  }

  /** The output values of {@code state}, in aggregation order. */
  public Row output(Row state) {
    List<Object> out = new ArrayList<>(aggregations.size());
    for (int i = 0; i < aggregations.size(); i++) {
      out.add(outputOf(i, state.getValue(2 * i), state.getInt64(2 * i + 1)));
    }
    return Row.withSchema(outputSchema).attachValues(out);
  }

  /** Aggregate {@code i}'s output value from its folded value {@code v} of {@code n} values. */
  private @Nullable Object outputOf(int i, @Nullable Object v, long n) {
    switch (aggregations.get(i).function()) {
      case COUNT:
        return n;
      case AVG:
        if (n == 0) {
          return null;
        }
        if (inputTypes.get(i).getTypeName() == TypeName.DECIMAL) {
          return average((BigDecimal) v, n);
        }
        return ((Number) v).doubleValue() / n; // an int64 sum (widened by asDoubles) or a double
      default:
        return v;
    }
  }

  private static @Nullable Object fold(
      Aggregation.Function f, @Nullable FieldType type, @Nullable Object acc, @Nullable Object x) {
    switch (f) {
      case COUNT:
        return null;
      case SUM:
      case AVG:
        return acc == null ? x : add(acc, x);
      case MIN:
        return acc == null || compare(x, acc) < 0 ? x : acc;
      case MAX:
        return acc == null || compare(x, acc) > 0 ? x : acc;
      default:
        throw new IllegalStateException("unknown aggregate " + f);
    }
  }

  private static Object add(Object a, Object b) {
    if (a instanceof BigDecimal) {
      return ((BigDecimal) a).add((BigDecimal) b);
    }
    if (a instanceof Long) {
      return Math.addExact((Long) a, (Long) b); // an overflow: Int64Overflow, in add(state, ..)
    }
    return (Double) a + (Double) b;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(Object a, Object b) {
    return ((Comparable) a).compareTo(b);
  }
}
