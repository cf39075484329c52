package dev.streamform.transforms;

import static dev.streamform.transforms.Scenarios.iso;
import static dev.streamform.transforms.Scenarios.t;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.clock.LateEvent;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * docs/semantics.md §2, rule by rule, on the DirectRunner (TestStream + PAssert, exact outputs).
 */
class SourceClockTest {
  static final SourceClock FIVE =
      SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5)).withContiguousOffsets();

  /** The clock alone: processed events as "p/o W-at-arrival kept|on-time", late as in Scenario. */
  static ClockResult clock(Pipeline p, String name, List<SourceRecord> delivery, SourceClock c) {
    return p.apply(name + "/Read", SeedStreams.testStreamOf(delivery))
        .apply(name + "/Extract", EventTimeExtraction.from("ordered_at"))
        .events()
        .apply(name + "/Clock", c);
  }

  static PCollection<String> timed(String name, ClockResult r) {
    return r.events()
        .apply(
            name + "/Timed",
            MapElements.into(TypeDescriptors.strings())
                .via(
                    (TimedEvent e) ->
                        "p"
                            + e.envelope().partition()
                            + "/"
                            + e.envelope().offset()
                            + " W="
                            + e.watermarkAtArrival()
                            + (e.keptLate() ? " kept-late" : " on-time")));
  }

  static PCollection<String> late(String name, ClockResult r) {
    return r.late()
        .apply(name + "/Late", MapElements.into(TypeDescriptors.strings()).via(Scenario::lateLine));
  }

  @Test
  void anEventExactlyAtTheWatermarkIsOnTimeAndOneMillisecondBeforeIsLate() {
    Pipeline p = SeedStreams.pipeline();
    ClockResult r =
        clock(
            p,
            "edge",
            new SeedStreams()
                .event(0, 42, "1", iso("10:10:00"))
                .event(0, 42, "1", iso("10:05:00"))
                .event(0, 42, "1", iso("10:04:59.999"))
                .items(),
            FIVE);
    PAssert.that(timed("edge", r))
        .containsInAnyOrder("p0/0 W=null on-time", "p0/1 W=2026-08-30T10:05:00.000Z on-time");
    PAssert.that(late("edge", r))
        .containsInAnyOrder("p0/2 2026-08-30T10:04:59.999Z < 2026-08-30T10:05:00.000Z");
    p.run().waitUntilFinish();
  }

  @Test
  void anEventTooFarAheadOfItsIngestTimeMovesNoWatermark() {
    // SeedStreams' items are ingested at the epoch: each is decades ahead of its arrival
    List<SourceRecord> delivery =
        new SeedStreams()
            .event(0, 42, "1", iso("10:10:00"))
            .event(0, 42, "1", iso("10:04:00"))
            .items();
    Pipeline p = SeedStreams.pipeline();
    ClockResult skewed =
        clock(p, "skewed", delivery, FIVE.withMaxClockSkew(Duration.standardDays(1), null));
    // the 10:10 event's time is not believed: W stays undefined, and 10:04 is on time
    PAssert.that(timed("skewed", skewed))
        .containsInAnyOrder("p0/0 W=null on-time", "p0/1 W=null on-time");
    PAssert.that(late("skewed", skewed)).empty();
    // within a bound of 36,500 days, the longest (2026 is 56 years after the ingest time),
    // it moves W to 10:05 as any event does
    ClockResult within =
        clock(p, "within", delivery, FIVE.withMaxClockSkew(Duration.standardDays(36_500), null));
    PAssert.that(timed("within", within)).containsInAnyOrder("p0/0 W=null on-time");
    PAssert.that(late("within", within))
        .containsInAnyOrder("p0/1 2026-08-30T10:04:00.000Z < 2026-08-30T10:05:00.000Z");
    p.run().waitUntilFinish();
  }

  @Test
  void aWatermarkItemBehindTheWatermarkHasNoEffect() {
    Pipeline p = SeedStreams.pipeline();
    ClockResult r =
        clock(
            p,
            "behind",
            new SeedStreams()
                .event(0, 42, "1", iso("10:10:00"))
                .watermark(0, t("10:00:00"))
                .event(0, 42, "1", iso("10:04:00"))
                .event(0, 42, "1", iso("10:05:00"))
                .items(),
            FIVE);
    // Had the item moved W back to 10:00, the 10:04 event would be on time.
    PAssert.that(timed("behind", r))
        .containsInAnyOrder("p0/0 W=null on-time", "p0/3 W=2026-08-30T10:05:00.000Z on-time");
    PAssert.that(late("behind", r))
        .containsInAnyOrder("p0/2 2026-08-30T10:04:00.000Z < 2026-08-30T10:05:00.000Z");
    p.run().waitUntilFinish();
  }

  @Test
  void aWatermarkItemAheadAdvancesTheWatermarkAndAnEventAtItIsOnTime() {
    Pipeline p = SeedStreams.pipeline();
    ClockResult r =
        clock(
            p,
            "ahead",
            new SeedStreams()
                .watermark(0, t("10:20:00"))
                .event(0, 42, "1", iso("10:20:00"))
                .event(0, 42, "1", iso("10:19:59.999"))
                .items(),
            FIVE);
    PAssert.that(timed("ahead", r)).containsInAnyOrder("p0/1 W=2026-08-30T10:20:00.000Z on-time");
    PAssert.that(late("ahead", r))
        .containsInAnyOrder("p0/2 2026-08-30T10:19:59.999Z < 2026-08-30T10:20:00.000Z");
    p.run().waitUntilFinish();
  }

  @Test
  void nothingIsLateWhileThePartitionsWatermarkIsUndefined() {
    Pipeline p = SeedStreams.pipeline();
    // Partition 0 is far ahead; partition 1's first event, hours behind, is on time (W_1
    // undefined), and after it W_1 = 02:55 decides partition 1's lateness alone.
    ClockResult r =
        clock(
            p,
            "undefined",
            new SeedStreams()
                .event(0, 42, "1", iso("10:00:00"))
                .event(1, 7, "1", iso("03:00:00"))
                .event(1, 7, "1", iso("02:55:00"))
                .event(1, 7, "1", iso("02:54:59.999"))
                .items(),
            FIVE);
    PAssert.that(timed("undefined", r))
        .containsInAnyOrder(
            "p0/0 W=null on-time",
            "p1/0 W=null on-time",
            "p1/1 W=2026-08-30T02:55:00.000Z on-time");
    PAssert.that(late("undefined", r))
        .containsInAnyOrder("p1/2 2026-08-30T02:54:59.999Z < 2026-08-30T02:55:00.000Z");
    p.run().waitUntilFinish();
  }

  @Test
  void dropRoutesALateEventWithItsReasonAndKeepProcessesItFlaggedAsLate() {
    List<SourceRecord> log = Scenarios.lateEventLog().items();
    Pipeline p = SeedStreams.pipeline();
    ClockResult dropped = clock(p, "drop", log, FIVE);
    ClockResult kept = clock(p, "keep", log, FIVE.keepingLateEvents());
    PAssert.that(timed("drop", dropped))
        .containsInAnyOrder(
            "p0/0 W=null on-time",
            "p0/1 W=2026-08-30T09:55:00.000Z on-time",
            "p0/3 W=2026-08-30T10:05:00.000Z on-time");
    PAssert.that(
            dropped
                .late()
                .apply(
                    "Reasons",
                    MapElements.into(TypeDescriptors.strings()).via((LateEvent e) -> e.reason())))
        .containsInAnyOrder(
            "event time 2026-08-30T10:01:00.000Z is behind the watermark 2026-08-30T10:05:00.000Z"
                + " of partition 0");
    PAssert.that(timed("keep", kept))
        .containsInAnyOrder(
            "p0/0 W=null on-time",
            "p0/1 W=2026-08-30T09:55:00.000Z on-time",
            "p0/2 W=2026-08-30T10:05:00.000Z kept-late",
            "p0/3 W=2026-08-30T10:05:00.000Z on-time");
    PAssert.that(kept.late()).empty();
    p.run().waitUntilFinish();
  }

  /**
   * The clock's counters (docs/reference/metrics.md): a late event kept is counted as kept late,
   * not on time, and a late event dropped as dropped; each pipeline runs one policy, as the
   * counters are summed by name over a pipeline.
   */
  @Test
  void aKeptLateEventIsCountedAsKeptLateAndADroppedOneAsDropped() {
    List<SourceRecord> log = Scenarios.lateEventLog().items();
    List<Long> counts = new ArrayList<>();
    for (SourceClock policy : List.of(FIVE.keepingLateEvents(), FIVE)) {
      Pipeline p = SeedStreams.pipeline();
      clock(p, "clock", log, policy);
      PipelineResult result = p.run();
      result.waitUntilFinish();
      counts.add(Scenario.counterIfReported(result, StreamformMetrics.ON_TIME));
      counts.add(Scenario.counterIfReported(result, StreamformMetrics.LATE_KEPT));
      counts.add(Scenario.counterIfReported(result, StreamformMetrics.LATE_DROPPED));
    }
    // keep: 3 on time, 1 kept late, none dropped; drop: 3 on time, none kept, 1 dropped
    assertThat(counts, equalTo(List.of(3L, 1L, 0L, 3L, 0L, 1L)));
  }

  @Test
  void latenessIsJudgedAgainstEachPartitionsOwnWatermark() {
    Pipeline p = SeedStreams.pipeline();
    Scenario s =
        Scenario.of(
            p,
            "multi",
            Scenarios.alternating(Scenarios.multiPartitionLog().items()),
            FIVE,
            Scenarios.customerMetrics().withRetention(Duration.standardMinutes(15)));
    PAssert.that(s.changelog).containsInAnyOrder(Scenarios.MULTI_PARTITION_CHANGELOG);
    PAssert.that(s.late).containsInAnyOrder(Scenarios.MULTI_PARTITION_LATE);
    p.run().waitUntilFinish();
  }

  @Test
  void everyInterleavingOfThePartitionsGivesTheSameChangelogAndLateList() {
    List<SourceRecord> log = Scenarios.multiPartitionLog().items(); // p0: 0..3, p1: 4..8
    List<List<SourceRecord>> deliveries =
        List.of(
            log,
            Scenarios.pick(log, 4, 5, 6, 7, 8, 0, 1, 2, 3),
            Scenarios.alternating(log),
            Scenarios.pick(log, 4, 0, 5, 6, 1, 2, 7, 8, 3),
            // and each partition's items out of offset order on top of the interleaving
            Scenarios.pick(log, 8, 3, 7, 2, 6, 1, 5, 0, 4));
    Pipeline p = SeedStreams.pipeline();
    for (int i = 0; i < deliveries.size(); i++) {
      Scenario s =
          Scenario.of(
              p,
              "order" + i,
              deliveries.get(i),
              FIVE,
              Scenarios.customerMetrics().withRetention(Duration.standardMinutes(15)));
      PAssert.that("order " + i, s.changelog)
          .containsInAnyOrder(Scenarios.MULTI_PARTITION_CHANGELOG);
      PAssert.that("order " + i + " late", s.late)
          .containsInAnyOrder(Scenarios.MULTI_PARTITION_LATE);
    }
    p.run().waitUntilFinish();
  }

  @Test
  void itemsOutOfOffsetOrderGiveTheInOrderResultsAndDuplicatesAreIgnored() {
    List<SourceRecord> log = Scenarios.lateEventLog().items();
    Pipeline p = SeedStreams.pipeline();
    Scenario inOrder =
        Scenario.of(p, "inOrder", Scenarios.pick(log, 0, 1, 2), FIVE, Scenarios.customerMetrics());
    Scenario reordered =
        Scenario.of(
            p, "reordered", Scenarios.pick(log, 2, 0, 1), FIVE, Scenarios.customerMetrics());
    Scenario duplicated =
        Scenario.of(
            p, "duplicated", Scenarios.pick(log, 1, 0, 1, 2, 0), FIVE, Scenarios.customerMetrics());
    for (Scenario s : List.of(inOrder, reordered, duplicated)) {
      PAssert.that(s.changelog).containsInAnyOrder("p0/0 insert 42 10", "p0/1 update 42 30");
      PAssert.that(s.late)
          .containsInAnyOrder("p0/2 2026-08-30T10:01:00.000Z < 2026-08-30T10:05:00.000Z");
    }
    PipelineResult result = p.run();
    result.waitUntilFinish();
    // "duplicated" delivers 1, 0 (judges 0 then the pending 1), 1 again, 2, 0 again: two
    // items whose offsets were already judged, ignored and counted
    assertThat(Scenario.counter(result, StreamformMetrics.DUPLICATES), equalTo(2L));
  }

  @Test
  void withoutContiguousOffsetsItemsAreJudgedInArrivalOrder() {
    List<SourceRecord> log = Scenarios.lateEventLog().items();
    Pipeline p = SeedStreams.pipeline();
    Scenario s =
        Scenario.of(
            p,
            "arrival",
            Scenarios.pick(log, 1, 0, 2),
            SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5)),
            Scenarios.customerMetrics());
    // 10:10 first sets W = 10:05, so 10:00 and 10:01 are both late in arrival order
    PAssert.that(s.changelog).containsInAnyOrder("p0/1 insert 42 20");
    PAssert.that(s.late)
        .containsInAnyOrder(
            "p0/0 2026-08-30T10:00:00.000Z < 2026-08-30T10:05:00.000Z",
            "p0/2 2026-08-30T10:01:00.000Z < 2026-08-30T10:05:00.000Z");
    p.run().waitUntilFinish();
  }

  @Test
  void quarantinedPlusLateDroppedPlusProcessedEqualsEventsDelivered() {
    List<SourceRecord> log =
        new SeedStreams()
            .event(0, 42, "10", iso("10:00:00"))
            .event(0, 42, "1", null)
            .watermark(0, t("10:10:00"))
            .event(0, 42, "2", iso("10:05:00"))
            .event(0, 7, "3", "10:00:00")
            .event(1, 7, "4", iso("09:00:00"))
            .event(1, 7, "5", iso("10:20:00"))
            .event(1, 7, "6", iso("10:14:00"))
            .items();
    long events = log.stream().filter(r -> !r.isWatermark()).count();
    Pipeline p = SeedStreams.pipeline();
    Scenario s = Scenario.of(p, "counts", log, FIVE, Scenarios.customerMetrics());
    PAssert.that(s.changelog)
        .containsInAnyOrder("p0/0 insert 42 10", "p1/0 insert 7 4", "p1/1 update 7 9");
    PipelineResult result = p.run();
    result.waitUntilFinish();
    long quarantined = Scenario.counter(result, StreamformMetrics.QUARANTINED);
    long late = Scenario.counter(result, StreamformMetrics.LATE_DROPPED);
    long processed = Scenario.counter(result, StreamformMetrics.PROCESSED);
    assertThat(List.of(quarantined, late, processed), equalTo(List.of(2L, 2L, 3L)));
    assertThat(quarantined + late + processed, equalTo(events));
    assertThat(Scenario.counter(result, StreamformMetrics.CHANGELOG), equalTo(3L));
    assertThat(Scenario.counter(result, StreamformMetrics.ON_TIME), equalTo(3L));
  }
}
