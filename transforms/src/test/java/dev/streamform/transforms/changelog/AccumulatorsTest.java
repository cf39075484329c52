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

  private static final String NINES_38 = "99999999999999999999999999999999999999";

  /**
   * SUM(decimal(p,s)) is decimal(38,s): a record that would take the sum past 38 digits is refused
   * (the keyed stage quarantines it), naming the column and the limit, and the state is unchanged.
   */
  @Test
  void aDecimalSumPast38DigitsIsRefusedAndTheStateIsUnchanged() {
    Accumulators acc = new Accumulators(IN, List.of(Aggregation.sum("m").as("total")));
    Row state = acc.add(null, record(null, null, NINES_38));
    Accumulators.SumOverflow refused =
        assertThrows(
            Accumulators.SumOverflow.class, () -> acc.add(state, record(null, null, NINES_38)));
    assertThat(
        refused.getMessage(),
        equalTo(
            "column `m`: the decimal sum for `total` would overflow: "
                + NINES_38
                + " + "
                + NINES_38
                + " is outside decimal(38,0) (at most 38 digits before the decimal point)"));
    // a negative value still fits, and so does one that takes the sum to exactly 38 digits
    Row back = acc.add(state, record(null, null, "-" + NINES_38));
    assertThat(acc.output(back).getValues(), equalTo(List.of(new BigDecimal("0"))));
  }

  /** With a scale: decimal(38,2) holds 36 digits before the point. */
  @Test
  void aDecimalSumWithAScaleHas38DigitsInAll() {
    Accumulators acc = new Accumulators(IN, List.of(Aggregation.sum("m").as("total")));
    String big = "999999999999999999999999999999999999.99"; // decimal(38,2)'s largest
    Row state = acc.add(null, record(null, null, big));
    assertThrows(Accumulators.SumOverflow.class, () -> acc.add(state, record(null, null, "0.01")));
    assertThat(
        acc.output(acc.add(state, record(null, null, "-0.01"))).getValues(),
        equalTo(List.of(new BigDecimal("999999999999999999999999999999999999.98"))));
  }

  /**
   * AVG(decimal(38,0)) is decimal(38,6): 32 digits before the point. A record whose average would
   * need more is refused, even the first (its sum fits, its average does not).
   */
  @Test
  void aDecimalAverageOutsideItsTypeIsRefused() {
    Accumulators acc = new Accumulators(IN, List.of(Aggregation.avg("m").as("mean")));
    Accumulators.SumOverflow refused =
        assertThrows(
            Accumulators.SumOverflow.class,
            () -> acc.add(null, record(null, null, "100000000000000000000000000000000")));
    assertThat(
        refused.getMessage(),
        equalTo(
            "column `m`: the decimal average for `mean` would overflow:"
                + " 100000000000000000000000000000000.000000 is outside decimal(38,6) (at most 32"
                + " digits before the decimal point)"));
    Row state = acc.add(null, record(null, null, "99999999999999999999999999999999"));
    assertThat(
        acc.output(state).getValues(),
        equalTo(List.of(new BigDecimal("99999999999999999999999999999999.000000"))));
    // the sum behind an AVG is decimal(38,0) too
    Accumulators wide = new Accumulators(IN, List.of(Aggregation.avg("m").as("mean")));
    Row one = wide.add(null, record(null, null, "1"));
    assertThrows(Accumulators.SumOverflow.class, () -> wide.add(one, record(null, null, NINES_38)));
  }

  @Test
  void refusesSumOfAStringAndAnUnknownColumn() {
    assertThrows(
        IllegalArgumentException.class, () -> new Accumulators(IN, List.of(Aggregation.sum("s"))));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Accumulators(IN, List.of(Aggregation.max("nope"))));
  }

  /**
   * An infinite double in a Java author's Row is refused as a decoded record's is, before any
   * aggregate applies it; a MIN or MAX never says "sum" (found by a read-only audit of the Java
   * API: an infinity was taken into MAX and MIN, and every later value of the key was quarantined
   * as a double sum overflow).
   */
  @Test
  void anInfiniteDoubleIsRefusedBeforeAnyAggregateAppliesIt() {
    Accumulators acc =
        new Accumulators(IN, List.of(Aggregation.max("d").as("mx"), Aggregation.min("d").as("mn")));
    Row one = acc.add(null, record(null, 1.0, null));
    Accumulators.SumOverflow refused =
        assertThrows(
            Accumulators.SumOverflow.class,
            () -> acc.add(one, record(null, Double.POSITIVE_INFINITY, null)));
    assertThat(
        refused.getMessage(),
        equalTo(
            "column `d`: 'Infinity' is infinite; a double column takes finite numbers (and NaN)"));
    // the key's state is as before it: a later finite value applies
    assertThat(
        acc.output(acc.add(one, record(null, 2.0, null))).getValues(), equalTo(List.of(2.0, 1.0)));
    Accumulators.SumOverflow first =
        assertThrows(
            Accumulators.SumOverflow.class,
            () -> acc.add(null, record(null, Double.NEGATIVE_INFINITY, null)));
    assertThat(
        first.getMessage(),
        equalTo(
            "column `d`: '-Infinity' is infinite; a double column takes finite numbers (and NaN)"));
  }

  /**
   * A decimal finer than any declared type (more than 38 places) in a Java author's Row is refused
   * with what to do, not as an overflow of "decimal(38,40)" (found by a read-only audit of the Java
   * API: "at most -2 digits before the decimal point").
   */
  @Test
  void aDecimalFinerThanThirtyEightPlacesIsRefusedSayingSo() {
    Accumulators acc = new Accumulators(IN, List.of(Aggregation.sum("m").as("sm")));
    Row one = acc.add(null, record(null, null, "1"));
    Accumulators.SumOverflow refused =
        assertThrows(
            Accumulators.SumOverflow.class, () -> acc.add(one, record(null, null, "1e-40")));
    assertThat(
        refused.getMessage(),
        equalTo(
            "column `m`: 0.0000000000000000000000000000000000000001 has 40 digits after the"
                + " decimal point; a decimal holds at most 38 (decimal(38,38)): round the values to"
                + " 38 places or fewer"));
  }
}
