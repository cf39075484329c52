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
 * Without {@link SourceClock#withPartitions}, the clock would hold its output watermark at each
 * partition's {@code W_p} only once it has seen an item of that partition. If the runner's own
 * watermark (a source watermark, or a TestStream {@code advanceWatermarkTo}) has already passed a
 * partition's event times before its first item reaches the clock, the hold comes too late: the
 * changelog's expiry timers for that partition's keys fire at once and the key's next event emits
 * INSERT although its partition's {@code W_p} never reached {@code latest + retention} (§3, §7).
 * Declaring the partitions makes each hold the watermark back from the start.
 */
class SourceWatermarkAheadTest {

  @Test
  void runnerWatermarkAheadOfAnUnseenPartitionMustNotExpireItsKeys() {
    List<SourceRecord> log =
        new SeedStreams()
            .event(0, 42, "10", Scenarios.iso("10:00:00"))
            .event(0, 42, "5", Scenarios.iso("10:20:00"))
            .event(1, 7, "3", Scenarios.iso("08:00:00"))
            .event(1, 7, "1", Scenarios.iso("08:01:00"))
            .items();
    TestStream.Builder<SourceRecord> b =
        TestStream.create(SourceRecordCoder.of(SeedStreams.ORDERS));
    b = b.addElements(TimestampedValue.of(log.get(0), SeedStreams.elementTimestamp(log.get(0))));
    b = b.addElements(TimestampedValue.of(log.get(1), SeedStreams.elementTimestamp(log.get(1))));
    b = b.advanceWatermarkTo(Scenarios.t("10:30:00"));
    b = b.addElements(TimestampedValue.of(log.get(2), SeedStreams.elementTimestamp(log.get(2))));
    b = b.addElements(TimestampedValue.of(log.get(3), SeedStreams.elementTimestamp(log.get(3))));
    Pipeline p = SeedStreams.pipeline();
    Scenario s =
        Scenario.of(
            p,
            "ahead",
            b.advanceWatermarkToInfinity(),
            SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                .withContiguousOffsets()
                .withPartitions(0, 1),
            Scenarios.customerMetrics().withRetention(Duration.standardMinutes(10)));
    PAssert.that(s.changelog)
        .containsInAnyOrder(
            "p0/0 insert 42 10", "p0/1 update 42 15", "p1/0 insert 7 3", "p1/1 update 7 4");
    p.run().waitUntilFinish();
  }
}
