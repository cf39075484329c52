package dev.streamform.transforms.changelog;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.RowCoder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.Row;
import org.junit.jupiter.api.Test;

/**
 * The one state cell of a changelog key: every combination of its four parts survives its coder.
 */
class KeyCellTest {
  private static final Schema RECORDS =
      Schema.builder().addStringField("customer_id").addDecimalField("amount").build();
  private static final Accumulators SUM =
      new Accumulators(RECORDS, List.of(Aggregation.sum("amount").as("total")));
  private static final KeyCell.CellCoder CODER =
      new KeyCell.CellCoder(RowCoder.of(SUM.stateSchema()));

  @Test
  void everyCombinationOfPartsRoundTrips() throws Exception {
    Row aggregate =
        SUM.add(null, Row.withSchema(RECORDS).addValues("c1", new BigDecimal("12.50")).build());
    List<KeyCell> cells = new ArrayList<>();
    for (int present = 0; present < 16; present++) {
      cells.add(
          new KeyCell(
              (present & 1) == 0 ? null : aggregate,
              (present & 2) == 0 ? null : 1_700_000_000_000L,
              (present & 4) == 0 ? null : -5L, // the beginning of time is negative
              (present & 8) == 0 ? null : Long.MAX_VALUE));
    }
    for (KeyCell cell : cells) {
      KeyCell back =
          CoderUtils.decodeFromByteArray(CODER, CoderUtils.encodeToByteArray(CODER, cell));
      assertThat(back, equalTo(cell));
      assertThat(back.isEmpty(), equalTo(cell == cells.get(0)));
    }
  }

  @Test
  void aCellWithAnAggregateAndItsTimesIsSmall() throws Exception {
    Row aggregate =
        SUM.add(null, Row.withSchema(RECORDS).addValues("c1", new BigDecimal("12.5")).build());
    KeyCell cell = new KeyCell(aggregate, 1_700_000_000_000L, 1_700_003_600_000L, null);
    int bytes = CoderUtils.encodeToByteArray(CODER, cell).length;
    // the flags byte, the aggregate row, two varint times (6 bytes each at this epoch)
    assertThat(
        bytes,
        lessThan(
            1
                + CoderUtils.encodeToByteArray(RowCoder.of(SUM.stateSchema()), aggregate).length
                + 13));
  }

  @Test
  void aByteThatIsNoCellIsRefused() {
    assertThrows(
        CoderException.class,
        () -> CoderUtils.decodeFromByteArray(CODER, new byte[] {(byte) 0x40}));
  }

  @Test
  void aStateRowAttachedWithoutVerificationEqualsOneBuiltWithIt() {
    Row record = Row.withSchema(RECORDS).addValues("c1", new BigDecimal("2.25")).build();
    Row state = SUM.add(SUM.add(null, record), record);
    Row built = Row.withSchema(SUM.stateSchema()).addValues(state.getValues()).build();
    assertThat(state, equalTo(built));
    assertThat(SUM.output(state).getDecimal("total"), equalTo(new BigDecimal("4.50")));
  }
}
