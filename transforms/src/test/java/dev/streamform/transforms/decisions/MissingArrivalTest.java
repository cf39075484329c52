package dev.streamform.transforms.decisions;

import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import java.math.BigDecimal;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * ADR 0113: an event without a value in its declared arrival column ({@code arrival:}) is
 * dead-lettered, naming the column — whatever its record's ingest time. The ingest time used to
 * stand in: the epoch for a fixture item (so the event was "ahead of its arrival 1970") and the
 * wall clock at reading for {@code streamform run} on files (so it was scored, or not, by when the
 * run read it).
 */
class MissingArrivalTest {
  private static Instant at(String hhmm) {
    return Instant.parse("2026-08-30T" + hhmm + ":00Z");
  }

  private static TimestampedValue<SourceRecord> receipt(long offset, String t, Instant ingest) {
    Row row =
        Row.withSchema(DecisionScoringTest.RECEIPTS)
            .addValues(7L, new BigDecimal("10"), at(t).toString(), null)
            .build();
    return TimestampedValue.of(SourceRecord.of(0, offset, ingest, row), at(t));
  }

  /** The same log read at two ingest times: a fixture's (the epoch) and a late run's. */
  @Test
  void anEventWithoutItsArrivalIsDeadLetteredWhateverItsIngestTime() {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    TestStream<SourceRecord> stream =
        TestStream.create(SourceRecordCoder.of(DecisionScoringTest.RECEIPTS))
            .addElements(
                receipt(0, "10:00", new Instant(0)), // as a fixture item is ingested
                receipt(1, "10:20", Instant.parse("2099-01-01T00:00:00Z"))) // as a run reads
            .advanceWatermarkToInfinity();
    DecisionResult result =
        p.apply(stream)
            .apply(EventTimeExtraction.from("occurred_at"))
            .events()
            .apply(
                SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                    .keepingLateEvents())
            .events()
            .apply(DecisionScoringTest.receiptRisk());
    PAssert.that(result.decisions()).empty();
    PAssert.that(
            result
                .deadLetters()
                .apply(
                    "Dead",
                    MapElements.into(TypeDescriptors.strings())
                        .via(d -> d.reason() + " " + d.description())))
        .containsInAnyOrder(
            "CLOCK_SKEW partition 0 offset 0: arrival column `received_at` is missing, so its clock"
                + " skew cannot be judged; give the record its `received_at`",
            "CLOCK_SKEW partition 0 offset 1: arrival column `received_at` is missing, so its clock"
                + " skew cannot be judged; give the record its `received_at`");
    p.run().waitUntilFinish();
  }
}
