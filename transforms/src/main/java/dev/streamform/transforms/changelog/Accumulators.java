package dev.streamform.transforms.changelog;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

import java.io.Serializable;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
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

  /** The state after folding {@code record} into {@code state} (null state = initial value). */
  public Row add(@Nullable Row state, Row record) {
    List<Object> values = new ArrayList<>(2 * aggregations.size());
    for (int i = 0; i < aggregations.size(); i++) {
      Aggregation a = aggregations.get(i);
      Object v = state == null ? null : state.getValue(2 * i);
      long n = state == null ? 0L : state.getInt64(2 * i + 1);
      Object x = a.column() == null ? null : record.getValue(a.column());
      if (a.column() == null || x != null) {
        n++;
        v = fold(a.function(), inputTypes.get(i), v, x);
      }
      values.add(v);
      values.add(n);
    }
    // the values already have the state schema's types (folded from records of the input schema):
    // attach them without Row.Builder's per-field verification (6% of the keyed stage's samples)
    return Row.withSchema(stateSchema).attachValues(values);
  }

  /**
   * As {@link #add(Row, Row)} for the event at {@code partition}/{@code offset} of the source: a
   * sum that overflows fails naming that event, so the person who reads the failure can find it.
   */
  public Row add(@Nullable Row state, Row record, int partition, long offset) {
    try {
      return add(state, record);
    } catch (ArithmeticException e) {
      throw new ArithmeticException(
          "partition " + partition + " offset " + offset + ": " + e.getMessage());
    }
  }

  /** The output values of {@code state}, in aggregation order. */
  public Row output(Row state) {
    List<Object> out = new ArrayList<>(aggregations.size());
    for (int i = 0; i < aggregations.size(); i++) {
      Object v = state.getValue(2 * i);
      long n = state.getInt64(2 * i + 1);
      switch (aggregations.get(i).function()) {
        case COUNT:
          out.add(n);
          break;
        case AVG:
          out.add(n == 0 ? null : average(v, n));
          break;
        default:
          out.add(v);
      }
    }
    return Row.withSchema(outputSchema).attachValues(out);
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
      try {
        return Math.addExact((Long) a, (Long) b);
      } catch (ArithmeticException e) {
        // wrapping would emit a wrong total as if it were right: fail, and say what to change
        throw new ArithmeticException(
            "an int64 sum overflowed: "
                + a
                + " + "
                + b
                + " is outside int64 (-9223372036854775808 to 9223372036854775807); declare the"
                + " summed column as decimal(38,0) in sources.yml for larger totals");
      }
    }
    return (Double) a + (Double) b;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(Object a, Object b) {
    return ((Comparable) a).compareTo(b);
  }

  private static Object average(Object sum, long n) {
    if (sum instanceof BigDecimal) {
      BigDecimal s = (BigDecimal) sum;
      return s.divide(
          BigDecimal.valueOf(n), Math.max(s.scale(), AVG_MIN_SCALE), RoundingMode.HALF_EVEN);
    }
    return ((Number) sum).doubleValue() / n;
  }
}
