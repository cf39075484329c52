package dev.streamform.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.dedup.DedupResult;
import dev.streamform.transforms.dedup.Deduplicate;
import dev.streamform.transforms.envelope.SourceRecord;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 16, duplicates: {@link Deduplicate} by an id column within a horizon of event time. The
 * seed's orders log with {@code customer_id} standing in for an event id (watermark 5m, horizon
 * 10m).
 */
class DeduplicateTest {

  private static List<SourceRecord> log() {
    return new SeedStreams()
        .event(0, 1, "10", Scenarios.iso("10:00:00")) // p0/0 first of id 1
        .event(0, 1, "10.00", Scenarios.iso("10:00:00")) // p0/1 duplicate (10 = 10.00)
        .event(0, 2, "5", Scenarios.iso("10:01:00")) // p0/2 first of id 2
        .event(0, 2, "6", Scenarios.iso("10:01:00")) // p0/3 conflict: another amount
        .event(1, 1, "10", Scenarios.iso("10:00:00")) // p1/0 duplicate from another partition
        .event(0, 9, "1", Scenarios.iso("10:30:00")) // p0/4 W_0 -> 10:25: ids 1, 2 forgotten
        .event(0, 1, "7", Scenarios.iso("10:26:00")) // p0/5 id 1 again, past its horizon: first
        .items();
  }

  /**
   * In log order and on arrival alike (the DirectRunner keeps the order here: the TestStream hands
   * on one element per step, when the pipeline is quiet).
   */
  @ParameterizedTest(name = "on arrival: {0}")
  @ValueSource(booleans = {false, true})
  void repeatsWithinTheHorizonAreDuplicatesOrConflictsAndEveryEventIsAccountedFor(
      boolean onArrival) {
    Pipeline p = SeedStreams.pipeline();
    ClockResult clocked =
        p.apply(SeedStreams.testStreamOf(log()))
            .apply(dev.streamform.transforms.extraction.EventTimeExtraction.from("ordered_at"))
            .events()
            .apply(SourceClockTest.FIVE);
    Deduplicate byId = Deduplicate.byId("customer_id", Duration.standardMinutes(10));
    DedupResult d = clocked.events().apply(onArrival ? byId.appliedOnArrival() : byId);
    PAssert.that(lines("Kept", d.events())).containsInAnyOrder("p0/0", "p0/2", "p0/4", "p0/5");
    PAssert.that(lines("Dropped", d.duplicates())).containsInAnyOrder("p0/1", "p1/0");
    PAssert.that(
            d.conflicts()
                .apply(
                    MapElements.into(TypeDescriptors.strings())
                        .via((BadRecord b) -> b.getFailure().getDescription())))
        .containsInAnyOrder(
            "partition 0 offset 3: event_id `customer_id` = 2 was first seen at partition 0 offset"
                + " 2 with another payload; a repeated id must repeat its event exactly");
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertThat(Scenario.counter(result, StreamformMetrics.DUPLICATES_DROPPED), equalTo(2L));
    assertThat(Scenario.counter(result, StreamformMetrics.QUARANTINED), equalTo(1L));
    // ids 1 (twice: before and after its horizon), 2 and 9 are all freed by the end of input
    assertThat(Scenario.counter(result, StreamformMetrics.IDS_FORGOTTEN), equalTo(4L));
  }

  /**
   * ADR 0073: ids scoped by a key ({@code withinKey}, an upsert model's) are remembered per key.
   * Here {@code amount} stands in for the id and {@code customer_id} for the model's key: the same
   * id under another customer is that customer's first event, neither a duplicate nor a conflict
   * (source-wide it would be a conflict: the payload differs in the customer); under one customer,
   * repeats are judged as source-wide. On arrival the stage is keyed by the customer alone and
   * holds the customer's ids: one timer per customer, armed when none is and set again once when it
   * fires before the customer's later id is due.
   */
  @ParameterizedTest(name = "on arrival: {0}")
  @ValueSource(booleans = {false, true})
  void idsWithinAKeyAreTheKeysOwn(boolean onArrival) {
    Pipeline p = SeedStreams.pipeline();
    List<SourceRecord> log =
        new SeedStreams()
            .event(0, 1, "10", Scenarios.iso("10:00:00")) // p0/0 first of (1, 10)
            .event(0, 2, "10", Scenarios.iso("10:00:00")) // p0/1 first of (2, 10): its own
            .event(0, 1, "10.00", Scenarios.iso("10:00:00")) // p0/2 duplicate of p0/0
            .event(0, 2, "10", Scenarios.iso("10:00:00")) // p0/3 duplicate of p0/1
            .event(0, 1, "10", Scenarios.iso("10:01:00")) // p0/4 conflict with p0/0: its time
            .event(0, 1, "20", Scenarios.iso("10:03:00")) // p0/5 first of (1, 20)
            .items();
    Deduplicate byAmount =
        Deduplicate.byId("amount", Duration.standardMinutes(10)).withinKey(List.of("customer_id"));
    DedupResult d =
        p.apply(SeedStreams.testStreamOf(log))
            .apply(dev.streamform.transforms.extraction.EventTimeExtraction.from("ordered_at"))
            .events()
            .apply(SourceClockTest.FIVE)
            .events()
            .apply(onArrival ? byAmount.appliedOnArrival() : byAmount);
    PAssert.that(lines("Kept", d.events())).containsInAnyOrder("p0/0", "p0/1", "p0/5");
    PAssert.that(lines("Dropped", d.duplicates())).containsInAnyOrder("p0/2", "p0/3");
    PAssert.that(
            d.conflicts()
                .apply(
                    MapElements.into(TypeDescriptors.strings())
                        .via((BadRecord b) -> b.getFailure().getDescription())))
        .containsInAnyOrder(
            "partition 0 offset 4: event_id `amount` = 10 was first seen at partition 0 offset 0"
                + " with another payload; a repeated id must repeat its event exactly");
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertThat(Scenario.counter(result, StreamformMetrics.DUPLICATES_DROPPED), equalTo(2L));
    assertThat(Scenario.counter(result, StreamformMetrics.QUARANTINED), equalTo(1L));
    assertThat(Scenario.counter(result, StreamformMetrics.IDS_FORGOTTEN), equalTo(3L));
    if (onArrival) {
      // customer 1: armed for 10:10, fires before (1, 20) is due at 10:13, set once more;
      // customer 2: armed for 10:10
      assertThat(Scenario.counter(result, StreamformMetrics.ID_TIMERS_SET), equalTo(3L));
    }
  }

  /**
   * On arrival, an id is forgotten once its own partition's watermark reaches first + horizon, and
   * that check alone decides it while another partition lags (the one timer per key follows {@code
   * min_p W_p}): p1's event at 09:00 holds the timers back; 9@10:15 takes {@code W_0} to 10:10, id
   * 1's horizon (10:00 + 10m) exactly, so id 1's repeat after it on p0 is its first event again:
   * kept, neither a duplicate nor a conflict. With the arrival check exclusive it was dropped as a
   * duplicate.
   */
  @Test
  void onArrivalAnIdIsForgottenAtItsOwnPartitionsHorizonWhileAnotherPartitionHoldsTheTimer() {
    Pipeline p = SeedStreams.pipeline();
    List<SourceRecord> log =
        new SeedStreams()
            .event(1, 5, "1", Scenarios.iso("09:00:00")) // p1/0: W_1 = 08:55 from here on
            .event(0, 1, "10", Scenarios.iso("10:00:00")) // p0/0 first of id 1: horizon 10:10
            .event(0, 9, "1", Scenarios.iso("10:15:00")) // p0/1 W_0 -> 10:10, the horizon
            .event(0, 1, "10", Scenarios.iso("10:12:00")) // p0/2 id 1 again: its first again
            .items();
    DedupResult d =
        p.apply(SeedStreams.testStreamOf(log))
            .apply(dev.streamform.transforms.extraction.EventTimeExtraction.from("ordered_at"))
            .events()
            .apply(SourceClockTest.FIVE)
            .events()
            .apply(
                Deduplicate.byId("customer_id", Duration.standardMinutes(10)).appliedOnArrival());
    PAssert.that(lines("Kept", d.events())).containsInAnyOrder("p1/0", "p0/0", "p0/1", "p0/2");
    PAssert.that(lines("Dropped", d.duplicates())).empty();
    PAssert.that(d.conflicts()).empty();
    p.run().waitUntilFinish();
  }

  /**
   * An event without its id is quarantined with the reason, and two of them are not duplicates of
   * each other (a null id is no id, not one shared id).
   */
  @Test
  void anEventWithoutItsIdIsQuarantinedAndRegistersNothing() {
    Pipeline p = SeedStreams.pipeline();
    List<SourceRecord> log =
        new SeedStreams()
            .event(0, 1, null, Scenarios.iso("10:00:00")) // p0/0 no id
            .event(0, 1, null, Scenarios.iso("10:00:00")) // p0/1 no id again: not a duplicate
            .event(0, 1, "5", Scenarios.iso("10:01:00")) // p0/2 first of id 5
            .event(0, 1, "5", Scenarios.iso("10:01:00")) // p0/3 duplicate
            .items();
    DedupResult d =
        p.apply(SeedStreams.testStreamOf(log))
            .apply(dev.streamform.transforms.extraction.EventTimeExtraction.from("ordered_at"))
            .events()
            .apply(SourceClockTest.FIVE)
            .events()
            .apply(Deduplicate.byId("amount", Duration.standardMinutes(10)));
    PAssert.that(lines("Kept", d.events())).containsInAnyOrder("p0/2");
    PAssert.that(lines("Dropped", d.duplicates())).containsInAnyOrder("p0/3");
    PAssert.that(
            d.conflicts()
                .apply(
                    MapElements.into(TypeDescriptors.strings())
                        .via((BadRecord b) -> b.getFailure().getDescription())))
        .containsInAnyOrder(
            "partition 0 offset 0: no value for event_id column `amount`; an event without its id"
                + " cannot be told from a repeat",
            "partition 0 offset 1: no value for event_id column `amount`; an event without its id"
                + " cannot be told from a repeat");
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertThat(Scenario.counter(result, StreamformMetrics.QUARANTINED), equalTo(2L));
    assertThat(Scenario.counter(result, StreamformMetrics.DUPLICATES_DROPPED), equalTo(1L));
  }

  /**
   * A kept late event (its time behind its partition's watermark, kept for the windows to judge)
   * leaves the clock and Deduplicate timestamped with that watermark, not with its event time: the
   * stages hold their output watermarks there, and an element behind the watermark holds nothing on
   * its way (the DirectRunner's GroupByKey before a keyed stage gives it no hold). Timestamped with
   * its event time, it let a window's watermark pass the window's end while it was on its way from
   * Deduplicate to WindowedAggregate, and an on-time event became a correction ({@code
   * FuzzWindowedTest}, seed 2026 trace 5; {@code DedupWindowedHandOverTest}).
   */
  @Test
  void aKeptLateEventTravelsAtItsPartitionsWatermarkNotBehindIt() {
    Pipeline p = SeedStreams.pipeline();
    List<SourceRecord> log =
        new SeedStreams()
            .event(0, 1, "1", Scenarios.iso("10:00:00")) // p0/0 W_0 -> 09:55
            .event(0, 2, "2", Scenarios.iso("10:10:00")) // p0/1 W_0 -> 10:05
            .event(0, 3, "3", Scenarios.iso("10:02:00")) // p0/2 late: 10:02 < 10:05, kept
            .event(0, 4, "4", Scenarios.iso("10:06:00")) // p0/3 on time
            .items();
    PCollection<TimedEvent> clocked =
        p.apply(SeedStreams.testStreamOf(log))
            .apply(dev.streamform.transforms.extraction.EventTimeExtraction.from("ordered_at"))
            .events()
            .apply(SourceClockTest.FIVE.keepingLateEvents())
            .events();
    DedupResult d = clocked.apply(Deduplicate.byId("customer_id", Duration.standardMinutes(10)));
    // each: its element timestamp, its partition's watermark at arrival and its stamp; the first
    // item is stamped with its own time (no hold yet), the rest with W_0 or the stamp before
    List<String> expected =
        List.of(
            "p0/0 at 10:00:00 W=null stamp=10:00:00",
            "p0/1 at 10:00:00 W=09:55:00 stamp=10:00:00",
            "p0/2 at 10:05:00 W=10:05:00 stamp=10:05:00",
            "p0/3 at 10:05:00 W=10:05:00 stamp=10:05:00");
    PAssert.that(times("Clock", clocked)).containsInAnyOrder(expected);
    PAssert.that(times("Deduplicated", d.events())).containsInAnyOrder(expected);
    p.run().waitUntilFinish();
  }

  private static PCollection<String> times(String name, PCollection<TimedEvent> events) {
    return events.apply(
        name + "Times",
        ParDo.of(
            new DoFn<TimedEvent, String>() {
              @ProcessElement
              public void process(
                  @Element TimedEvent e, @Timestamp Instant at, OutputReceiver<String> out) {
                out.output(
                    "p"
                        + e.envelope().partition()
                        + "/"
                        + e.envelope().offset()
                        + " at "
                        + clock(at)
                        + " W="
                        + (e.watermarkAtArrival() == null ? "null" : clock(e.watermarkAtArrival()))
                        + " stamp="
                        + clock(e.stamp()));
              }
            }));
  }

  private static String clock(Instant t) {
    return t.toString().substring(11, 19); // HH:mm:ss of the seed's day
  }

  @Test
  void aBadDeclarationIsRefusedWithTheFix() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Deduplicate.byId("order_id", Duration.ZERO));
    assertThat(e.getMessage(), containsString("the horizon must be a positive duration"));
    Pipeline p = SeedStreams.pipeline();
    PCollection<TimedEvent> events =
        p.apply(SeedStreams.testStreamOf(log()))
            .apply(dev.streamform.transforms.extraction.EventTimeExtraction.from("ordered_at"))
            .events()
            .apply(SourceClockTest.FIVE)
            .events();
    IllegalArgumentException missing =
        assertThrows(
            IllegalArgumentException.class,
            () -> events.apply(Deduplicate.byId("order_id", Duration.standardHours(1))));
    assertThat(missing.getMessage(), containsString("`order_id` is not a field of the records"));
  }

  private static PCollection<String> lines(String name, PCollection<TimedEvent> events) {
    return events.apply(
        name,
        MapElements.into(TypeDescriptors.strings())
            .via((TimedEvent e) -> "p" + e.envelope().partition() + "/" + e.envelope().offset()));
  }
}
