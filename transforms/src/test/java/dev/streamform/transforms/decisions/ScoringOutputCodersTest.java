package dev.streamform.transforms.decisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.extraction.ExtractionResult;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 30: what {@link ScoreEvents} outputs (decisions, late events, dead letters, state updates)
 * is written field by field by hand-written coders — not Java serialization, whose bytes are tied
 * to the classes' layout — and enums by name, so reordering a constant changes nothing.
 */
class ScoringOutputCodersTest {
  private static final Schema RECEIPTS = DecisionScoringTest.RECEIPTS;
  private static final Instant AT = Instant.parse("2026-08-30T10:00:00Z");
  private static DecisionResult result;
  private static Schema keySchema;
  private static Row record;
  private static Row key;

  @BeforeAll
  static void buildWithoutRunning() {
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    ExtractionResult extracted =
        p.apply(Create.empty(SourceRecordCoder.of(RECEIPTS)))
            .apply(EventTimeExtraction.from("occurred_at"));
    result =
        extracted
            .events()
            .apply(
                SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                    .keepingLateEvents()
                    .withContiguousOffsets()
                    .withPartitions(0, 1))
            .events()
            .apply(DecisionScoringTest.receiptRisk().withQuarantine(extracted.quarantined()));
    keySchema = Schema.builder().addField(RECEIPTS.getField("merchant_id")).build();
    record =
        Row.withSchema(RECEIPTS)
            .addValues(7L, new BigDecimal("12.50"), AT.toString(), AT.toDateTime())
            .build();
    key = Row.withSchema(keySchema).addValue(7L).build();
  }

  @Test
  void decisionsRoundTripFieldByField() throws Exception {
    Decision first = decision(null, FeatureContract.AS_OF_OCCURRENCE, 1, null, null);
    Decision revision =
        decision(AT.plus(60_000), FeatureContract.LATEST_AVAILABLE, 2, first.decisionId(), "1-9");
    Coder<Decision> coder = result.decisions().getCoder();
    assertEquals(first, roundTrip(coder, first));
    assertEquals(revision, roundTrip(coder, revision));
    assertNamed(coder, revision, "LATEST_AVAILABLE");
  }

  @Test
  void lateEventsRoundTripFieldByField() throws Exception {
    UnscoredLateEvent late =
        UnscoredLateEvent.of(
            "receipt_risk",
            key,
            record,
            "1-3",
            1,
            3,
            AT,
            AT.plus(600_000),
            LateAction.RECONCILE,
            true,
            List.of("a", "b"),
            null);
    UnscoredLateEvent freed =
        UnscoredLateEvent.of(
            "receipt_risk",
            key,
            record,
            "1-4",
            1,
            4,
            AT,
            null,
            LateAction.RECONCILE,
            true,
            List.of(),
            "features over (..] reach below the key's freed horizon");
    for (Coder<UnscoredLateEvent> coder :
        List.of(
            result.reconciliations().getCoder(),
            result.ignored().getCoder(),
            result.revising().getCoder())) {
      assertEquals(late, roundTrip(coder, late));
      assertNamed(coder, late, "RECONCILE");
      assertEquals(freed, roundTrip(coder, freed));
    }
  }

  @Test
  void deadLettersAndStateUpdatesRoundTripFieldByField() throws Exception {
    Coder<DeadLetter> dead = result.deadLetters().getCoder();
    DeadLetter skew = DeadLetter.skew("1-2", "6m ahead of its arrival", record);
    assertEquals(skew, roundTrip(dead, skew));
    assertNamed(dead, skew, "CLOCK_SKEW");

    StateUpdate update = StateUpdate.of(key, "0-4", AT, 5, true);
    assertEquals(update, roundTrip(result.stateUpdates().getCoder(), update));
  }

  private static Decision decision(
      Instant watermark, FeatureContract contract, int rev, String supersedes, String revisedBy) {
    return Decision.builder()
        .setModel("receipt_risk")
        .setKey(key)
        .setEvent(record)
        .setEventId("0-4")
        .setPartition(0)
        .setOffset(4)
        .setOccurredAt(AT)
        .setArrivedAt(AT.plus(1000))
        .setArrivalWatermark(watermark)
        .setScoredAt(AT)
        .setContract(contract)
        .setStateCutoff(AT)
        .setStateRevision(3)
        .setFeatures(new TreeMap<>(Map.of("receipts_1h", 1.0, "spend_1h", 50.0)))
        .setScore(0.675)
        .setModelDigest("m")
        .setPreprocessingDigest("p")
        .setPolicyGeneration(2)
        .setRevision(rev)
        .setSupersedes(supersedes)
        .setRevisedBy(revisedBy)
        .build();
  }

  /** Encodes and decodes {@code value}; fails when the bytes are a Java serialization stream. */
  private static <T> T roundTrip(Coder<T> coder, T value) throws Exception {
    byte[] bytes = CoderUtils.encodeToByteArray(coder, value);
    assertFalse(javaSerialization(bytes), coder + " wrote a Java serialization stream (0xACED)");
    return CoderUtils.decodeFromByteArray(coder, bytes);
  }

  /** The enum constant is in the bytes by name (not by its position in the enum). */
  private static <T> void assertNamed(Coder<T> coder, T value, String constant) throws Exception {
    String text =
        new String(CoderUtils.encodeToByteArray(coder, value), StandardCharsets.ISO_8859_1);
    assertTrue(text.contains(constant), coder + " does not write " + constant + " by name");
  }

  private static boolean javaSerialization(byte[] bytes) {
    for (int i = 0; i + 1 < bytes.length; i++) {
      if ((bytes[i] & 0xff) == 0xAC && (bytes[i + 1] & 0xff) == 0xED) {
        return true;
      }
    }
    return false;
  }
}
