package dev.streamform.transforms.envelope;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.streamform.transforms.clock.LateEvent;
import dev.streamform.transforms.clock.TimedEvent;
import java.math.BigDecimal;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * {@code ingestTime} is when an item was read, informational only: the same item read at two
 * moments (a replay, a restarted job) is the same record, envelope, event and late event.
 */
class IngestTimeEqualityTest {
  private static final Schema ORDERS =
      Schema.builder().addInt64Field("customer_id").addDecimalField("amount").build();
  private static final Row ORDER =
      Row.withSchema(ORDERS).addValues(42L, new BigDecimal("5")).build();
  private static final Instant TEN_OH_ONE = Instant.parse("2026-08-30T10:01:00Z");
  private static final Instant W = Instant.parse("2026-08-30T10:05:00Z");

  private static SourceRecord readAt(long ingestMillis, long offset) {
    return SourceRecord.of(0, offset, new Instant(ingestMillis), ORDER);
  }

  @Test
  void theSameItemReadTwiceIsEqualWhateverItsIngestTime() {
    SourceRecord first = readAt(1_000, 2);
    SourceRecord replay = readAt(9_999_000, 2);
    assertEquals(first, replay);
    assertEquals(first.hashCode(), replay.hashCode());

    Envelope e1 = Envelope.event(first, TEN_OH_ONE);
    Envelope e2 = Envelope.event(replay, TEN_OH_ONE);
    assertEquals(e1, e2);
    assertEquals(e1.hashCode(), e2.hashCode());

    assertEquals(LateEvent.of(e1, W), LateEvent.of(e2, W));
    assertEquals(LateEvent.of(e1, W).hashCode(), LateEvent.of(e2, W).hashCode());
    assertEquals(TimedEvent.of(e1, W, false, W), TimedEvent.of(e2, W, false, W));

    SourceRecord p1 = SourceRecord.punctuation(1, 7, new Instant(1), W);
    SourceRecord p2 = SourceRecord.punctuation(1, 7, new Instant(2), W);
    assertEquals(p1, p2);
    assertEquals(Envelope.punctuation(p1), Envelope.punctuation(p2));
  }

  @Test
  void everythingElseStillCounts() {
    SourceRecord r = readAt(1_000, 2);
    assertNotEquals(r, readAt(1_000, 3));
    assertNotEquals(r, SourceRecord.of(1, 2, new Instant(1_000), ORDER));
    assertNotEquals(
        r,
        SourceRecord.of(
            0,
            2,
            new Instant(1_000),
            Row.withSchema(ORDERS).addValues(42L, new BigDecimal("6")).build()));
    Envelope e = Envelope.event(r, TEN_OH_ONE);
    assertNotEquals(e, Envelope.event(r, TEN_OH_ONE.plus(1)));
    assertNotEquals(e, Envelope.gap(r));
    assertNotEquals(LateEvent.of(e, W), LateEvent.of(e, W.plus(1)));
  }
}
