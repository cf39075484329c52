package dev.streamform.transforms;

import static dev.streamform.transforms.Scenarios.iso;
import static dev.streamform.transforms.Scenarios.t;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.SourceClock;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * docs/semantics.md §3, rule by rule, on the DirectRunner (TestStream + PAssert, exact outputs).
 */
class KeyedChangelogTest {
  static final SourceClock NO_DELAY =
      SourceClock.forBoundedOutOfOrderness(Duration.ZERO).withContiguousOffsets();
  static final SourceClock FIVE =
      SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5)).withContiguousOffsets();
  static final KeyedChangelog TEN_MINUTES =
      Scenarios.customerMetrics().withRetention(Duration.standardMinutes(10));

  @Test
  void stateExpiresWhenTheWatermarkReachesLatestPlusRetentionExactly() {
    Pipeline p = SeedStreams.pipeline();
    Scenario s =
        Scenario.of(
            p,
            "edge",
            new SeedStreams()
                .event(0, 42, "1", iso("10:00:00"))
                .watermark(0, t("10:10:00"))
                .event(0, 42, "2", iso("10:10:00"))
                .items(),
            NO_DELAY,
            TEN_MINUTES);
    PAssert.that(s.changelog).containsInAnyOrder("p0/0 insert 42 1", "p0/2 insert 42 2");
    PAssert.that(s.late).empty();
    p.run().waitUntilFinish();
  }

  /**
   * Applied on arrival, the edge is judged by the event's own partition's watermark at arrival, and
   * that check alone decides it while another partition lags (the key's timer follows {@code min_p
   * W_p}): p1's event at 09:00 holds every timer back; 5@10:10 takes {@code W_0} to 42's edge
   * exactly (10:00 + 10m), so 42@10:11 on p0 finds its state gone and starts over with INSERT. With
   * the arrival check exclusive it was {@code p0/2 update 42 3}. (In log order the engine passes
   * the edge before a buffered event that arrived at it, so the arrival check does not decide
   * there.)
   */
  @Test
  void onArrivalAKeyExpiresAtItsOwnPartitionsEdgeWhileAnotherPartitionHoldsTheTimerBack() {
    Pipeline p = SeedStreams.pipeline();
    Scenario s =
        Scenario.of(
            p,
            "lagging",
            new SeedStreams()
                .event(1, 99, "1", iso("09:00:00")) // p1/0: W_1 = 09:00 from here on
                .event(0, 42, "1", iso("10:00:00")) // p0/0: 42's edge is 10:10
                .event(0, 5, "1", iso("10:10:00")) // p0/1: W_0 -> 10:10, min_p W_p stays 09:00
                .event(0, 42, "2", iso("10:11:00")) // p0/2: arrives at W_0 = 10:10, the edge
                .items(),
            NO_DELAY,
            TEN_MINUTES.appliedOnArrival());
    PAssert.that(s.changelog)
        .containsInAnyOrder(
            "p1/0 insert 99 1", "p0/0 insert 42 1", "p0/1 insert 5 1", "p0/2 insert 42 2");
    PAssert.that(s.late).empty();
    p.run().waitUntilFinish();
  }

  /**
   * Retention frees state, measured in the pipeline: 42 @10:00 and 7 @10:05; the watermark item
   * 10:10 reaches 42's edge, so 42 @10:11 starts over (INSERT; its old state freed, by the timer or
   * on arrival, counted once); 7 @10:12 is 3 min short of its edge (UPDATE). The end of input
   * passes every edge: 42's second state and 7's are freed by their timers. Three states were
   * created (three INSERTs), three freed, none left — a timer that never frees leaves keys_live
   * above 0 while the changelog stays right.
   */
  @Test
  void retentionFreesEveryKeysStateAndTheMetricsSaySo() {
    Pipeline p = SeedStreams.pipeline();
    Scenario s =
        Scenario.of(
            p,
            "freed",
            new SeedStreams()
                .event(0, 42, "1", iso("10:00:00"))
                .event(0, 7, "2", iso("10:05:00"))
                .watermark(0, t("10:10:00"))
                .event(0, 42, "3", iso("10:11:00"))
                .event(0, 7, "4", iso("10:12:00"))
                .items(),
            NO_DELAY,
            TEN_MINUTES);
    PAssert.that(s.changelog)
        .containsInAnyOrder(
            "p0/0 insert 42 1", "p0/1 insert 7 2", "p0/3 insert 42 3", "p0/4 update 7 6");
    org.apache.beam.sdk.PipelineResult result = p.run();
    result.waitUntilFinish();
    org.junit.jupiter.api.Assertions.assertEquals(
        3, Scenario.counter(result, StreamformMetrics.EXPIRED));
    org.junit.jupiter.api.Assertions.assertEquals(
        0, Scenario.counter(result, StreamformMetrics.KEYS_LIVE));
  }

  /**
   * Issue 31, no timer per event: applied on arrival, a key touched 40 times within its retention
   * arms one timer, which fires early and is moved once to the key's deadline then; the state is
   * still freed, and every event still finds it alive.
   */
  @Test
  void onArrivalAKeyTouchedFortyTimesSetsTwoTimersNotForty() {
    Pipeline p = SeedStreams.pipeline();
    SeedStreams stream = new SeedStreams();
    List<String> expected = new java.util.ArrayList<>();
    for (int i = 0; i < 40; i++) {
      stream.event(0, 42, "1", iso(String.format("10:%02d:%02d", i * 10 / 60, i * 10 % 60)));
      expected.add("p0/" + i + (i == 0 ? " insert 42 1" : " update 42 " + (i + 1)));
    }
    Scenario s = Scenario.of(p, "timers", stream.items(), NO_DELAY, TEN_MINUTES.appliedOnArrival());
    PAssert.that(s.changelog).containsInAnyOrder(expected);
    org.apache.beam.sdk.PipelineResult result = p.run();
    result.waitUntilFinish();
    org.junit.jupiter.api.Assertions.assertEquals(
        2, Scenario.counter(result, StreamformMetrics.TIMERS_SET), "timers set");
    org.junit.jupiter.api.Assertions.assertEquals(
        1, Scenario.counter(result, StreamformMetrics.EXPIRED), "keys expired");
    org.junit.jupiter.api.Assertions.assertEquals(
        0, Scenario.counter(result, StreamformMetrics.KEYS_LIVE), "keys live");
  }

  /** Without retention nothing is freed: every key's state is still held after the run. */
  @Test
  void withoutRetentionEveryKeysStateIsKept() {
    Pipeline p = SeedStreams.pipeline();
    Scenario s =
        Scenario.of(
            p,
            "kept",
            new SeedStreams()
                .event(0, 42, "1", iso("10:00:00"))
                .event(0, 7, "2", iso("10:05:00"))
                .watermark(0, t("12:00:00"))
                .event(0, 42, "3", iso("12:11:00"))
                .items(),
            NO_DELAY,
            Scenarios.customerMetrics());
    PAssert.that(s.changelog)
        .containsInAnyOrder("p0/0 insert 42 1", "p0/1 insert 7 2", "p0/3 update 42 4");
    org.apache.beam.sdk.PipelineResult result = p.run();
    result.waitUntilFinish();
    org.junit.jupiter.api.Assertions.assertEquals(
        0, Scenario.counterIfReported(result, StreamformMetrics.EXPIRED));
    org.junit.jupiter.api.Assertions.assertEquals(
        2, Scenario.counter(result, StreamformMetrics.KEYS_LIVE));
  }

  @Test
  void stateIsKeptOneMillisecondBeforeTheEdge() {
    Pipeline p = SeedStreams.pipeline();
    Scenario s =
        Scenario.of(
            p,
            "before",
            new SeedStreams()
                .event(0, 42, "1", iso("10:00:00"))
                .watermark(0, t("10:09:59.999"))
                .event(0, 42, "2", iso("10:10:00"))
                .items(),
            NO_DELAY,
            TEN_MINUTES);
    PAssert.that(s.changelog).containsInAnyOrder("p0/0 insert 42 1", "p0/2 update 42 3");
    p.run().waitUntilFinish();
  }

  @Test
  void anotherKeysEventCanAdvanceTheWatermarkToTheEdge() {
    Pipeline p = SeedStreams.pipeline();
    Scenario s =
        Scenario.of(
            p,
            "other",
            new SeedStreams()
                .event(0, 42, "1", iso("10:00:00"))
                .event(0, 7, "1", iso("10:09:59.999"))
                .event(0, 42, "2", iso("10:10:00"))
                .event(0, 7, "1", iso("10:10:00"))
                .event(0, 42, "4", iso("10:11:00"))
                .items(),
            NO_DELAY,
            TEN_MINUTES);
    // 7@10:09:59.999 leaves W 1 ms short of 42's edge: update; 42@10:10 moves W to the edge,
    // so the next 42 event starts over.
    PAssert.that(s.changelog)
        .containsInAnyOrder(
            "p0/0 insert 42 1",
            "p0/1 insert 7 1",
            "p0/2 update 42 3",
            "p0/3 update 7 2",
            "p0/4 update 42 7");
    p.run().waitUntilFinish();
  }

  @Test
  void anEventIsAppliedBeforeItsOwnTimeAdvancesTheWatermark() {
    Pipeline p = SeedStreams.pipeline();
    // 42@10:30 arrives while W = 10:00 < 10:10: it updates; only then does W jump to 10:30.
    Scenario s =
        Scenario.of(
            p,
            "jump",
            new SeedStreams()
                .event(0, 42, "1", iso("10:00:00"))
                .event(0, 42, "2", iso("10:30:00"))
                .event(0, 42, "4", iso("10:39:59.999"))
                .event(0, 7, "1", iso("10:50:00"))
                .event(0, 42, "8", iso("10:50:00"))
                .items(),
            NO_DELAY,
            TEN_MINUTES);
    PAssert.that(s.changelog)
        .containsInAnyOrder(
            "p0/0 insert 42 1",
            "p0/1 update 42 3",
            "p0/2 update 42 7",
            "p0/3 insert 7 1",
            "p0/4 insert 42 8");
    p.run().waitUntilFinish();
  }

  @Test
  void anOutOfOrderEventWithinTheDelayExtendsAKeysLife() {
    Pipeline p = SeedStreams.pipeline();
    SeedStreams head =
        new SeedStreams().event(0, 42, "1", iso("09:50:00")).event(0, 7, "1", iso("10:00:00"));
    // latest(42) goes 09:50 -> 09:58 (on time: W = 09:55): expiry moves from 10:00 to 10:08
    Scenario extended =
        Scenario.of(
            p,
            "extended",
            new SeedStreams()
                .event(0, 42, "1", iso("09:50:00"))
                .event(0, 7, "1", iso("10:00:00"))
                .event(0, 42, "2", iso("09:58:00"))
                .watermark(0, t("10:05:00"))
                .event(0, 42, "4", iso("10:06:00"))
                .items(),
            FIVE,
            TEN_MINUTES);
    Scenario control =
        Scenario.of(
            p,
            "control",
            head.watermark(0, t("10:05:00")).event(0, 42, "4", iso("10:06:00")).items(),
            FIVE,
            TEN_MINUTES);
    PAssert.that(extended.changelog)
        .containsInAnyOrder(
            "p0/0 insert 42 1", "p0/1 insert 7 1", "p0/2 update 42 3", "p0/4 update 42 7");
    PAssert.that(extended.late).empty();
    PAssert.that(control.changelog)
        .containsInAnyOrder("p0/0 insert 42 1", "p0/1 insert 7 1", "p0/3 insert 42 4");
    p.run().waitUntilFinish();
  }

  @Test
  void anOutOfOrderEventNeverShortensAKeysLife() {
    Pipeline p = SeedStreams.pipeline();
    // latest(42) stays 10:00 after the 09:56 event (on time, W = 09:55): W = 10:09:59.999 keeps it
    Scenario s =
        Scenario.of(
            p,
            "shorter",
            new SeedStreams()
                .event(0, 42, "1", iso("10:00:00"))
                .event(0, 42, "2", iso("09:56:00"))
                .watermark(0, t("10:09:59.999"))
                .event(0, 42, "4", iso("10:15:00"))
                .items(),
            FIVE,
            TEN_MINUTES);
    PAssert.that(s.changelog)
        .containsInAnyOrder("p0/0 insert 42 1", "p0/1 update 42 3", "p0/3 update 42 7");
    p.run().waitUntilFinish();
  }

  @Test
  void aKeptLateEventExtendsAKeysLifeAndADroppedOneDoesNot() {
    SeedStreams log =
        new SeedStreams()
            .event(0, 42, "1", iso("09:50:00"))
            .event(0, 7, "1", iso("10:00:00"))
            .event(0, 42, "2", iso("09:54:00"))
            .watermark(0, t("10:03:00"))
            .event(0, 42, "4", iso("10:10:00"));
    Pipeline p = SeedStreams.pipeline();
    Scenario kept = Scenario.of(p, "kept", log.items(), FIVE.keepingLateEvents(), TEN_MINUTES);
    Scenario dropped = Scenario.of(p, "dropped", log.items(), FIVE, TEN_MINUTES);
    // kept: latest(42) = 09:54, expiry 10:04 > W = 10:03 -> update; dropped: expiry 10:00 -> insert
    PAssert.that(kept.changelog)
        .containsInAnyOrder(
            "p0/0 insert 42 1", "p0/1 insert 7 1", "p0/2 update 42 3", "p0/4 update 42 7");
    PAssert.that(kept.late).empty();
    PAssert.that(dropped.changelog)
        .containsInAnyOrder("p0/0 insert 42 1", "p0/1 insert 7 1", "p0/4 insert 42 4");
    PAssert.that(dropped.late)
        .containsInAnyOrder("p0/2 2026-08-30T09:54:00.000Z < 2026-08-30T09:55:00.000Z");
    p.run().waitUntilFinish();
  }

  @Test
  void aKeptLateEventNeverShortensAKeysLife() {
    Pipeline p = SeedStreams.pipeline();
    Scenario s =
        Scenario.of(
            p,
            "keptOld",
            new SeedStreams()
                .event(0, 42, "1", iso("10:00:00"))
                .event(0, 42, "2", iso("09:40:00"))
                .watermark(0, t("10:09:59.999"))
                .event(0, 42, "4", iso("10:20:00"))
                .items(),
            FIVE.keepingLateEvents(),
            TEN_MINUTES);
    PAssert.that(s.changelog)
        .containsInAnyOrder("p0/0 insert 42 1", "p0/1 update 42 3", "p0/3 update 42 7");
    p.run().waitUntilFinish();
  }

  @Test
  void withoutRetentionAKeyNeverExpires() {
    Pipeline p = SeedStreams.pipeline();
    Scenario s =
        Scenario.of(
            p,
            "forever",
            new SeedStreams()
                .event(0, 42, "1", iso("10:00:00"))
                .watermark(0, t("23:59:59"))
                .event(0, 42, "2", iso("23:59:59"))
                .items(),
            NO_DELAY,
            Scenarios.customerMetrics());
    PAssert.that(s.changelog).containsInAnyOrder("p0/0 insert 42 1", "p0/2 update 42 3");
    p.run().waitUntilFinish();
  }

  @Test
  void aggregatesOverDecimalAreExactAndSkipNulls() {
    Pipeline p = SeedStreams.pipeline();
    Scenario s =
        Scenario.of(
            p,
            "aggregates",
            new SeedStreams()
                .event(0, 42, "0.1", iso("10:00:00"))
                .event(0, 42, null, iso("10:00:01"))
                .event(0, 42, "0.2", iso("10:00:02"))
                .event(0, 42, "1", iso("10:00:03"))
                .items(),
            NO_DELAY,
            KeyedChangelog.by("customer_id")
                .aggregating(
                    Aggregation.sum("amount").as("sum"),
                    Aggregation.count("amount").as("n"),
                    Aggregation.countAll().as("all"),
                    Aggregation.min("amount").as("min"),
                    Aggregation.max("amount").as("max"),
                    Aggregation.avg("amount").as("avg")));
    // key, sum, count(amount), count(*), min, max, avg (decimal: scale max(s, 6), half-even)
    PAssert.that(s.changelog)
        .containsInAnyOrder(
            "p0/0 insert 42 0.1 1 1 0.1 0.1 0.100000",
            "p0/1 update 42 0.1 1 2 0.1 0.1 0.100000",
            "p0/2 update 42 0.3 2 3 0.1 0.2 0.150000",
            "p0/3 update 42 1.3 3 4 0.1 1 0.433333");
    p.run().waitUntilFinish();
  }
}
