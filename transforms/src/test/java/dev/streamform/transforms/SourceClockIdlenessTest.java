package dev.streamform.transforms;

import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code idle_after}: a partition silent for that long (processing time) stops holding the clock's
 * output watermark back. Observed through retention: key 42 lives in partition 1, whose {@code W_p}
 * stays at 09:55, while partition 0 and the runner's source watermark move to 11:00. While
 * partition 1 holds the watermark, 42's expiry timer (10:10) cannot fire and its next event in
 * partition 1 updates it; once partition 1 is idle, the timer fires and the same event starts over.
 */
class SourceClockIdlenessTest {
  private static final SourceClock CLOCK =
      SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5));

  @Test
  void aBusyPartitionHoldsTheWatermarkSoTheKeyIsUpdated() {
    run(CLOCK, "p1/0 insert 42 10", "p0/0 insert 7 1", "p1/1 update 42 15");
  }

  @Test
  void anIdlePartitionStopsHoldingTheWatermarkSoTheKeyExpires() {
    run(
        CLOCK.withIdleness(Duration.standardMinutes(1)),
        "p1/0 insert 42 10",
        "p0/0 insert 7 1",
        "p1/1 insert 42 5");
  }

  private static void run(SourceClock clock, String... changelog) {
    List<SourceRecord> log =
        new SeedStreams()
            .event(1, 42, "10", Scenarios.iso("10:00:00"))
            .event(0, 7, "1", Scenarios.iso("11:00:00"))
            .event(1, 42, "5", Scenarios.iso("10:01:00"))
            .items();
    TestStream<SourceRecord> stream =
        TestStream.create(SourceRecordCoder.of(SeedStreams.ORDERS))
            .addElements(at(log.get(0)))
            .addElements(at(log.get(1)))
            // the source's own watermark runs ahead, as a processing-time Kafka watermark does
            .advanceWatermarkTo(Scenarios.t("11:00:00"))
            .advanceProcessingTime(Duration.standardMinutes(2))
            .addElements(at(log.get(2)))
            .advanceWatermarkToInfinity();
    Pipeline p = SeedStreams.pipeline();
    Scenario s =
        Scenario.of(
            p,
            "idle",
            stream,
            clock,
            Scenarios.customerMetrics().withRetention(Duration.standardMinutes(10)));
    PAssert.that(s.changelog).containsInAnyOrder(changelog);
    PAssert.that(s.late).empty();
    p.run().waitUntilFinish();
  }

  private static TimestampedValue<SourceRecord> at(SourceRecord r) {
    return TimestampedValue.of(r, SeedStreams.elementTimestamp(r));
  }
}
