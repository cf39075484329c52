package dev.streamform.transforms.decisions;

import dev.streamform.transforms.clock.ClockCoders;
import dev.streamform.transforms.clock.LogOrder;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.EnvelopeCoder;
import dev.streamform.transforms.envelope.SourceRecord;
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
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * ADR 0112: under {@code latest_available} the keyed stage applies a key's events in log order —
 * each partition's own events in offset order — whatever order the runner hands them over in.
 *
 * <p>Beam promises no order between the clock and the keyed stage (after a shuffle, and after the
 * duplicate stage's release), so the events here reach {@link ScoreEvents} as a runner may deliver
 * them: the clocked events of one partition, one key (the audit's fixture {@code Lmin3}, watermark
 * 0s), with offset 3 handed over before offset 2.
 *
 * <pre>
 * 0-0 x1 10 @10:00 (A -)       0-1 x2 20 @10:20 (A 10:00)
 * 0-2 x4  1 @10:05 (A 10:20: late, lateness 10m; revises x2, enters state)
 * 0-3 x5  2 @10:15 (A 10:20: on time)
 * delivered: 0-0, 0-1, 0-3, 0-2
 * </pre>
 *
 * In offset order x4 is applied before x5 is decided: x4 revises x2 only (x2 r2 reads x1, x4: 11
 * over 2, state 3), and x5 reads x1, x2, x4 (31 over 3, state 4). Applied in delivery order, x5 was
 * decided first from x1, x2 (30 over 2, state 3) and x4 then revised it too.
 */
class LatestAvailableLogOrderTest {
  private static Instant at(String hhmm) {
    return Instant.parse("2026-08-30T" + hhmm + ":00Z");
  }

  /** A clocked event of partition 0 as {@code SourceClock} hands it over (watermark delay 0s). */
  private static TimestampedValue<TimedEvent> event(
      long offset, long merchant, String amount, String t, @Nullable String a, String stamp) {
    Row row =
        Row.withSchema(DecisionScoringTest.RECEIPTS)
            .addValues(merchant, new BigDecimal(amount), at(t).toString(), at(t).toDateTime())
            .build();
    Envelope e = Envelope.event(SourceRecord.of(0, offset, new Instant(0), row), at(t));
    TimedEvent timed = TimedEvent.of(e, a == null ? null : at(a), false, at(stamp));
    return TimestampedValue.of(timed, LogOrder.timestampOf(timed));
  }

  @Test
  void aPartitionsEventsAreAppliedInOffsetOrderWhateverTheDeliveryOrder() {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    TestStream<TimedEvent> delivered =
        TestStream.create(
                ClockCoders.TimedEventCoder.of(EnvelopeCoder.of(DecisionScoringTest.RECEIPTS)))
            .addElements(event(0, 7, "10", "10:00", null, "10:00"))
            .addElements(event(1, 7, "20", "10:20", "10:00", "10:00"))
            .addElements(event(3, 7, "2", "10:15", "10:20", "10:20")) // before offset 2
            .addElements(event(2, 7, "1", "10:05", "10:20", "10:20"))
            .advanceWatermarkToInfinity();
    DecisionResult result =
        p.apply(delivered)
            .apply(
                DecisionScoringTest.receiptRisk()
                    .withContract(FeatureContract.LATEST_AVAILABLE)
                    .withMaxClockSkew(org.joda.time.Duration.standardMinutes(5), "received_at"));
    PAssert.that(
            result
                .decisions()
                .apply(
                    "Lines",
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            d ->
                                DecisionScoringTest.line(d)
                                    .replaceAll(" supersedes \\w+", " supersedes"))))
        .containsInAnyOrder(
            "0-0 m7 scored r1 score 0.1 spend 0.0 n 0 state 1 cutoff 10:00 scored 10:00",
            "0-1 m7 scored r1 score 0.31 spend 10.0 n 1 state 2 cutoff 10:00 scored 10:00",
            "0-1 m7 revised r2 score 0.411 spend 11.0 n 2 state 3 cutoff 10:20 scored 10:20"
                + " supersedes by 0-2",
            "0-3 m7 scored r1 score 0.351 spend 31.0 n 3 state 4 cutoff 10:20 scored 10:20");
    PAssert.that(
            result
                .revising()
                .apply(
                    "Revising",
                    MapElements.into(TypeDescriptors.strings())
                        .via(r -> r.eventId() + " affects " + r.affectedDecisions().size())))
        .containsInAnyOrder("0-2 affects 1");
    p.run().waitUntilFinish();
  }
}
