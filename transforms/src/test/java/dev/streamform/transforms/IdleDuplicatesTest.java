package dev.streamform.transforms;

import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.dedup.DedupResult;
import dev.streamform.transforms.dedup.Deduplicate;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ADR 0213: ids are forgotten by the timers' watermark, which an idle partition stops holding back.
 * Order 1 arrives on partition 1 at 10:00 (horizon 30m, delay 0); both partitions fall silent for
 * two minutes; partition 0 moves on to 11:01; partition 1 then delivers a retry of order 1, its own
 * watermark still 10:00. Without {@code idle_after} partition 1 holds the watermark, the id is kept
 * and the retry is a duplicate; with it, the id was forgotten by partition 0's time and the retry
 * is judged new — the trade {@code idle_after} declares, as for keys (ADR 0020 item 2).
 */
class IdleDuplicatesTest {
  private static final SourceClock CLOCK =
      SourceClock.forBoundedOutOfOrderness(Duration.ZERO).withPartitions(0, 1);

  @ParameterizedTest(name = "on arrival: {0}")
  @ValueSource(booleans = {false, true})
  void withoutIdleAfterTheRetryIsADuplicate(boolean onArrival) {
    run(CLOCK, onArrival, List.of("p1/0", "p0/0", "p0/1", "p0/2"), List.of("p1/1"));
  }

  @ParameterizedTest(name = "on arrival: {0}")
  @ValueSource(booleans = {false, true})
  void afterAnIdleSpellTheRetryIsJudgedNew(boolean onArrival) {
    run(
        CLOCK.withIdleness(Duration.standardMinutes(1)),
        onArrival,
        List.of("p1/0", "p0/0", "p0/1", "p0/2", "p1/1"),
        List.of());
  }

  private static void run(
      SourceClock clock, boolean onArrival, List<String> kept, List<String> dropped) {
    List<SourceRecord> log =
        new SeedStreams()
            .event(1, 1, "10", Scenarios.iso("10:00:00")) // p1/0 order 1
            .event(0, 2, "1", Scenarios.iso("10:00:00")) // p0/0
            .event(0, 3, "1", Scenarios.iso("11:00:00")) // p0/1
            .event(0, 4, "1", Scenarios.iso("11:01:00")) // p0/2
            .event(1, 1, "10", Scenarios.iso("10:00:00")) // p1/1 the retry of order 1
            .items();
    TestStream<SourceRecord> stream =
        TestStream.create(SourceRecordCoder.of(SeedStreams.ORDERS))
            .addElements(at(log.get(0)))
            .addElements(at(log.get(1)))
            .advanceProcessingTime(Duration.standardMinutes(2))
            .addElements(at(log.get(2)))
            .advanceWatermarkTo(Scenarios.t("11:00:00"))
            .advanceProcessingTime(Duration.standardSeconds(1))
            .addElements(at(log.get(3)))
            .advanceWatermarkTo(Scenarios.t("11:01:00"))
            .advanceProcessingTime(Duration.standardSeconds(1))
            .addElements(at(log.get(4)))
            .advanceWatermarkToInfinity();
    Pipeline p = SeedStreams.pipeline();
    Deduplicate byId = Deduplicate.byId("customer_id", Duration.standardMinutes(30));
    DedupResult d =
        p.apply(stream)
            .apply(EventTimeExtraction.from("ordered_at"))
            .events()
            .apply(clock)
            .events()
            .apply(onArrival ? byId.appliedOnArrival() : byId);
    PAssert.that(lines("Kept", d.events())).containsInAnyOrder(kept);
    PAssert.that(lines("Dropped", d.duplicates())).containsInAnyOrder(dropped);
    p.run().waitUntilFinish();
  }

  private static TimestampedValue<SourceRecord> at(SourceRecord r) {
    return TimestampedValue.of(r, SeedStreams.elementTimestamp(r));
  }

  private static PCollection<String> lines(String name, PCollection<TimedEvent> events) {
    return events.apply(
        name,
        MapElements.into(TypeDescriptors.strings())
            .via((TimedEvent e) -> "p" + e.envelope().partition() + "/" + e.envelope().offset()));
  }
}
