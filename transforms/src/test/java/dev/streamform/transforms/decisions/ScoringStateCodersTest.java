package dev.streamform.transforms.decisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.streamform.transforms.clock.ClockCoders;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.EnvelopeCoder;
import dev.streamform.transforms.envelope.SourceRecord;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Issue 30: a scoring model's keyed state is written field by field by hand-written coders, not by
 * Java serialization, whose bytes depend on the classes' layout (a savepoint that a recompiled
 * class cannot read) and which is slow.
 */
class ScoringStateCodersTest {
  private static final Schema RECEIPTS = DecisionScoringTest.RECEIPTS;

  @Test
  void appliedAndDecidedEventsRoundTripWithoutJavaSerialization() throws Exception {
    ClockCoders.TimedEventCoder events = ClockCoders.TimedEventCoder.of(EnvelopeCoder.of(RECEIPTS));
    Row record =
        Row.withSchema(RECEIPTS)
            .withFieldValue("merchant_id", 7L)
            .withFieldValue("amount", new BigDecimal("12.50"))
            .build();
    Instant at = Instant.parse("2026-08-30T10:00:00Z");
    TimedEvent event =
        TimedEvent.of(
            Envelope.event(SourceRecord.of(1, 4, at, record), at), at.minus(1), false, at);

    ArrayList<ScoreEvents.Applied> applied = new ArrayList<>();
    applied.add(new ScoreEvents.Applied("1-4", at.getMillis(), Long.MIN_VALUE, record));
    ArrayList<ScoreEvents.Applied> appliedBack =
        roundTrip(ScoreEvents.appliedCoder(events), applied);
    assertEquals(1, appliedBack.size());
    assertEquals("1-4", appliedBack.get(0).eventId);
    assertEquals(at.getMillis(), appliedBack.get(0).time);
    assertEquals(Long.MIN_VALUE, appliedBack.get(0).arrival);
    assertEquals(record, appliedBack.get(0).record);

    ScoreEvents.Decided decided = new ScoreEvents.Decided(event, at, "d1");
    decided.revision = 3;
    ArrayList<ScoreEvents.Decided> decidedBack =
        roundTrip(ScoreEvents.decidedCoder(events), new ArrayList<>(List.of(decided)));
    assertEquals(event, decidedBack.get(0).event);
    assertEquals(at, decidedBack.get(0).arrivedAt);
    assertEquals("d1", decidedBack.get(0).latestId);
    assertEquals(3, decidedBack.get(0).revision);
  }

  /** Encodes and decodes {@code value}; fails when the bytes are a Java serialization stream. */
  private static <T> T roundTrip(Coder<T> coder, T value) throws Exception {
    byte[] bytes = CoderUtils.encodeToByteArray(coder, value);
    boolean javaSerialization = containsStreamMagic(bytes);
    assertFalse(
        javaSerialization, coder + " wrote a Java serialization stream (0xACED) into state");
    return CoderUtils.decodeFromByteArray(coder, bytes);
  }

  private static boolean containsStreamMagic(byte[] bytes) {
    for (int i = 0; i + 1 < bytes.length; i++) {
      if ((bytes[i] & 0xff) == 0xAC && (bytes[i + 1] & 0xff) == 0xED) {
        return true;
      }
    }
    return false;
  }
}
