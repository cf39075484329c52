package dev.streamform.transforms.changelog;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.Schema.FieldType;
import org.apache.beam.sdk.values.Row;
import org.junit.jupiter.api.Test;

/** The aggregate arithmetic of {@link Accumulators}, per type, with nulls. */
class AccumulatorsTest {
  static final Schema IN =
      Schema.builder()
          .addNullableField("i", FieldType.INT64)
          .addNullableField("d", FieldType.DOUBLE)
          .addNullableField("m", FieldType.DECIMAL)
          .addNullableField("s", FieldType.STRING)
          .build();

  static List<Aggregation> all(String column) {
    return List.of(
        Aggregation.sum(column),
        Aggregation.count(column),
        Aggregation.countAll(),
        Aggregation.min(column),
        Aggregation.max(column),
        Aggregation.avg(column));
  }

  static Row record(Long i, Double d, String m) {
    return Row.withSchema(IN).addValues(i, d, m == null ? null : new BigDecimal(m), "x").build();
  }

  static List<Object> fold(Accumulators acc, Row... records) {
    Row state = null;
    for (Row r : records) {
      state = acc.add(state, r);
    }
    return acc.output(state).getValues();
  }

  @Test
  void int64() {
    Accumulators acc = new Accumulators(IN, all("i"));
    assertThat(
        fold(
            acc,
            record(3L, null, null),
            record(null, null, null),
            record(-1L, null, null),
            record(4L, null, null)),
        equalTo(Arrays.asList(6L, 3L, 4L, -1L, 4L, 2.0)));
    assertThat(
        acc.outputSchema().getField("avg_i").getType().getTypeName(),
        equalTo(Schema.TypeName.DOUBLE));
    assertThat(
        acc.outputSchema().getField("sum_i").getType().getTypeName(),
        equalTo(Schema.TypeName.INT64));
  }

  @Test
  void doubles() {
    Accumulators acc = new Accumulators(IN, all("d"));
    assertThat(
        fold(acc, record(null, 0.5, null), record(null, null, null), record(null, 2.0, null)),
        equalTo(Arrays.asList(2.5, 2L, 3L, 0.5, 2.0, 1.25)));
  }

  @Test
  void decimalIsExact() {
    Accumulators acc = new Accumulators(IN, all("m"));
    List<Object> out =
        fold(acc, record(null, null, "0.1"), record(null, null, null), record(null, null, "0.2"));
    assertThat(
        out.get(0), equalTo(new BigDecimal("0.3"))); // exactly, scale 1: not 0.30000000000000004
    assertThat(
        out.subList(1, 5),
        equalTo(Arrays.asList(2L, 3L, new BigDecimal("0.1"), new BigDecimal("0.2"))));
    assertThat(out.get(5), equalTo(new BigDecimal("0.150000"))); // AVG decimal: scale max(1, 6)
  }

  @Test
  void decimalAverageKeepsALargerScaleAndRoundsHalfEven() {
    Accumulators acc = new Accumulators(IN, List.of(Aggregation.avg("m")));
    // scale 8 > 6: 0.00000005 / 2 = 0.000000025 -> 0.00000002 (half-even)
    assertThat(
        fold(acc, record(null, null, "0.00000005"), record(null, null, "0.00000000")),
        equalTo(List.of(new BigDecimal("0.00000002"))));
    // scale 0: 2 / 3 at scale 6, and 0.0000025 -> 0.000002 (half-even, not half-up)
    assertThat(
        fold(acc, record(null, null, "1"), record(null, null, "1"), record(null, null, "0")),
        equalTo(List.of(new BigDecimal("0.666667"))));
    assertThat(
        fold(acc, record(null, null, "0.000005"), record(null, null, "0.000000")),
        equalTo(List.of(new BigDecimal("0.000002"))));
  }

  @Test
  void onlyNullsGiveNullAggregatesAndZeroCounts() {
    Accumulators acc = new Accumulators(IN, all("m"));
    assertThat(
        fold(acc, record(null, null, null), record(null, null, null)),
        equalTo(Arrays.asList(null, 0L, 2L, null, null, null)));
  }

  @Test
  void minAndMaxOfStrings() {
    Accumulators acc = new Accumulators(IN, List.of(Aggregation.min("s"), Aggregation.max("s")));
    Row b = Row.withSchema(IN).addValues(null, null, null, "b").build();
    Row a = Row.withSchema(IN).addValues(null, null, null, "a").build();
    assertThat(fold(acc, b, a), equalTo(List.of("a", "b")));
  }

  @Test
  void int64SumOverflowFailsLoudly() {
    Accumulators acc = new Accumulators(IN, List.of(Aggregation.sum("i")));
    assertThrows(
        ArithmeticException.class,
        () -> fold(acc, record(Long.MAX_VALUE, null, null), record(1L, null, null)));
  }

  @Test
  void refusesSumOfAStringAndAnUnknownColumn() {
    assertThrows(
        IllegalArgumentException.class, () -> new Accumulators(IN, List.of(Aggregation.sum("s"))));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Accumulators(IN, List.of(Aggregation.max("nope"))));
  }
}
