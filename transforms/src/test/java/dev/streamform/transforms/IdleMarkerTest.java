package dev.streamform.transforms;

import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.clock.IdleMarker;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Idle markers (docs/semantics.md §9.7): partition 1 delivers at 10:00 (its {@code W_p} 09:55),
 * partition 0 at 11:00 (10:55); then two minutes of processing time without an item: both go idle,
 * each marker naming generation 3 and its own {@code W_p}. Then partition 1 delivers 10:01 (on
 * time) and 09:50 (late): one resuming marker, naming the first item, and the watermark after it
 * did not move backward (09:56, from 10:01 − 5m). Partition 0 stays idle: no resuming marker of its
 * own.
 */
class IdleMarkerTest {
  private static final SourceClock CLOCK =
      SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
          .withIdleness(Duration.standardMinutes(1))
          .withGeneration(3);

  @Test
  void aPartitionGoingIdleAndResumingLeavesMarkersNamingItsGeneration() {
    List<SourceRecord> log =
        new SeedStreams()
            .event(1, 42, "10", Scenarios.iso("10:00:00"))
            .event(0, 7, "1", Scenarios.iso("11:00:00"))
            .event(1, 42, "5", Scenarios.iso("10:01:00"))
            .event(1, 42, "6", Scenarios.iso("09:50:00"))
            .items();
    TestStream<SourceRecord> stream =
        TestStream.create(SourceRecordCoder.of(SeedStreams.ORDERS))
            .addElements(at(log.get(0)))
            .addElements(at(log.get(1)))
            .advanceWatermarkTo(Scenarios.t("11:00:00"))
            .advanceProcessingTime(Duration.standardMinutes(2))
            .addElements(at(log.get(2)), at(log.get(3)))
            .advanceWatermarkToInfinity();
    Pipeline p = SeedStreams.pipeline();
    ClockResult clocked =
        p.apply(stream).apply(EventTimeExtraction.from("ordered_at")).events().apply(CLOCK);
    PAssert.that(
            clocked
                .idleMarkers()
                .apply(MapElements.into(TypeDescriptors.strings()).via(IdleMarkerTest::line)))
        .containsInAnyOrder(
            "p0 gen 3 idle at W 2026-08-30T10:55:00.000Z",
            "p1 gen 3 idle at W 2026-08-30T09:55:00.000Z",
            "p1 gen 3 resumed from W 2026-08-30T09:55:00.000Z with offset 1 at"
                + " 2026-08-30T10:01:00.000Z, W after 2026-08-30T09:56:00.000Z");
    p.run().waitUntilFinish();
  }

  /**
   * A finite log whose ends are declared (a file run's: partition 0 two lines, partition 1 one):
   * two minutes of processing time before any item reaches the clock make no partition idle — its
   * items are not there yet, which is no silence (ADR 0063). Partition 1, read to its end (11:00,
   * {@code W_1} 10:55), goes idle in the next two minutes; partition 0, one line still to come,
   * does not; once its last line (10:02, {@code W_0} 09:57) is judged it goes idle too. Each at its
   * final {@code W_p}; nothing resumes.
   */
  @Test
  void aPartitionOfAFiniteLogGoesIdleOnlyOnceReadToItsEnd() {
    List<SourceRecord> log =
        new SeedStreams()
            .event(0, 7, "1", Scenarios.iso("10:00:00"))
            .event(1, 42, "10", Scenarios.iso("11:00:00"))
            .event(0, 7, "2", Scenarios.iso("10:02:00"))
            .items();
    TestStream<SourceRecord> stream =
        TestStream.create(SourceRecordCoder.of(SeedStreams.ORDERS))
            .advanceProcessingTime(Duration.standardMinutes(2))
            .addElements(at(log.get(0)), at(log.get(1)))
            .advanceProcessingTime(Duration.standardMinutes(2))
            .addElements(at(log.get(2)))
            .advanceProcessingTime(Duration.standardMinutes(2))
            .advanceWatermarkToInfinity();
    Pipeline p = SeedStreams.pipeline();
    ClockResult clocked =
        p.apply(stream)
            .apply(EventTimeExtraction.from("ordered_at"))
            .events()
            .apply(
                CLOCK
                    .withPartitions(0, 1)
                    .withContiguousOffsets()
                    .withEnds(java.util.Map.of(0, 2L, 1, 1L)));
    PAssert.that(
            clocked
                .idleMarkers()
                .apply(MapElements.into(TypeDescriptors.strings()).via(IdleMarkerTest::line)))
        .containsInAnyOrder(
            "p1 gen 3 idle at W 2026-08-30T10:55:00.000Z",
            "p0 gen 3 idle at W 2026-08-30T09:57:00.000Z");
    p.run().waitUntilFinish();
  }

  private static String line(IdleMarker m) {
    return "p"
        + m.partition()
        + " gen "
        + m.generation()
        + (m.idle()
            ? " idle at W " + m.watermark()
            : " resumed from W "
                + m.watermark()
                + " with offset "
                + m.offset()
                + " at "
                + m.eventTime()
                + ", W after "
                + m.watermarkAfter());
  }

  private static TimestampedValue<SourceRecord> at(SourceRecord r) {
    return TimestampedValue.of(r, SeedStreams.elementTimestamp(r));
  }
}
