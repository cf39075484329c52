package dev.streamform.transforms.decisions;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.transforms.PlantedDefect;
import dev.streamform.transforms.StreamformMetrics;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
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

/**
 * Issue 32, ADR 0050: a partition that was idle while the others moved far ahead comes back with
 * events on time by its own watermark, whose feature window reaches back into state the key freed
 * meanwhile. No decision may claim ({@code state_cutoff = occurred_at}) state it did not read.
 * Model: {@link DecisionScoringTest#receiptRisk()} (range 1h, lateness 10m: a key's events are kept
 * until the watermark is 2h10m past them); clock: 5m delay, partitions 0 (a till) and 1 (a phone).
 *
 * <pre>
 * p1: 1-0 m7 10 @09:00 (A -)          p0: 0-0 m7 100 @09:10 (A -), 0-1 m7 50 @09:20 (A 09:05)
 * 2 minutes of processing time: both partitions idle
 * p0: 0-2 m7 1 @12:00 (A 09:15), 0-3 m8 1 @12:10 (A 11:55): W0 12:05, p1 still idle
 *     m7's tick at 12:00 decides 0-2 and frees what is 2h10m behind it: 09:00, 09:10, 09:20
 * p1: 1-1 m7 20 @09:30 (A 08:55 < 09:40: on time by its partition's log)
 *     1-2 m7  5 @09:05 (A 09:25 >= 09:15: late; revise, late events update state)
 * </pre>
 *
 * When partition 1 never goes idle (no processing time passes), the late 1-2 revises 0-0 (reading
 * 1-0, 1-2: 15 over 2, 1.0 + 0.015 + 0.2 = 1.215) and 0-1 (1-0, 0-0, 1-2: 115 over 3, 0.915), and
 * 1-1 reads 1-0, 0-0, 0-1, 1-2 (165 over 4, 0.2 + 0.165 + 0.4 = 0.765). With partition 1 idle, that
 * state is gone when they arrive: 1-1 goes to reconciliation with the freed horizon (09:20) as its
 * reason instead of a decision that says it read its hour, and 1-2, which would revise decisions
 * freed (through 09:20), is reconciled instead of revising nothing.
 */
class IdlePartitionStateTest {
  private final Map<Integer, Long> offsets = new HashMap<>();

  private static Instant at(String hhmm) {
    return Instant.parse("2026-08-30T" + hhmm + ":00Z");
  }

  private TimestampedValue<SourceRecord> receipt(int p, long merchant, String amount, String t) {
    Row row =
        Row.withSchema(DecisionScoringTest.RECEIPTS)
            .addValues(merchant, new BigDecimal(amount), at(t).toString(), at(t).toDateTime())
            .build();
    return TimestampedValue.of(
        SourceRecord.of(p, offsets.merge(p, 1L, Long::sum) - 1, new Instant(0), row), at(t));
  }

  private TestStream<SourceRecord> stream(boolean phoneGoesIdle) {
    TestStream.Builder<SourceRecord> s =
        TestStream.create(SourceRecordCoder.of(DecisionScoringTest.RECEIPTS))
            .addElements(
                receipt(1, 7, "10", "09:00"),
                receipt(0, 7, "100", "09:10"),
                receipt(0, 7, "50", "09:20"));
    if (phoneGoesIdle) {
      s = s.advanceProcessingTime(Duration.standardMinutes(2));
    }
    return s.addElements(receipt(0, 7, "1", "12:00"), receipt(0, 8, "1", "12:10"))
        // the source's own watermark runs ahead, as a processing-time Kafka watermark does
        .advanceWatermarkTo(at("12:10"))
        .addElements(receipt(1, 7, "20", "09:30"), receipt(1, 7, "5", "09:05"))
        .advanceWatermarkToInfinity();
  }

  private static Pipeline pipeline() {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    return Pipeline.create(options);
  }

  private DecisionResult run(Pipeline p, boolean phoneGoesIdle) {
    SourceClock clock =
        SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
            .keepingLateEvents()
            .withContiguousOffsets()
            .withPartitions(0, 1);
    // -Didle.plant=SCORE_IGNORES_FREED_HORIZON: the defect as it was, to show that this test fails
    try (PlantedDefect.Scope planted =
        PlantedDefect.plant(PlantedDefect.valueOf(System.getProperty("idle.plant", "NONE")))) {
      return p.apply(stream(phoneGoesIdle))
          .apply(EventTimeExtraction.from("occurred_at"))
          .events()
          .apply(phoneGoesIdle ? clock.withIdleness(Duration.standardMinutes(1)) : clock)
          .events()
          .apply(DecisionScoringTest.receiptRisk());
    }
  }

  private static PAssert.IterableAssert<String> lines(DecisionResult result) {
    return PAssert.that(
        result
            .decisions()
            .apply(
                "Lines",
                MapElements.into(TypeDescriptors.strings())
                    .via(
                        d ->
                            DecisionScoringTest.line(d)
                                .replaceAll(" scored \\d\\d:\\d\\d", "")
                                .replaceAll(" supersedes \\w+", " supersedes"))));
  }

  @org.junit.jupiter.api.Test
  void withThePhoneBusyItsReturningReceiptReadsItsWholeHour() {
    Pipeline p = pipeline();
    DecisionResult result = run(p, false);
    lines(result)
        .containsInAnyOrder(
            "1-0 m7 scored r1 score 0.1 spend 0.0 n 0 state 3 cutoff 09:00",
            "0-0 m7 scored r1 score 1.11 spend 10.0 n 1 state 4 cutoff 09:10",
            "0-1 m7 scored r1 score 0.81 spend 110.0 n 2 state 5 cutoff 09:20",
            "0-0 m7 revised r2 score 1.215 spend 15.0 n 2 state 6 cutoff 09:25 supersedes by 1-2",
            "0-1 m7 revised r2 score 0.915 spend 115.0 n 3 state 6 cutoff 09:25 supersedes by 1-2",
            "1-1 m7 scored r1 score 0.765 spend 165.0 n 4 state 6 cutoff 09:30",
            "0-2 m7 scored r1 score 0.01 spend 0.0 n 0 state 6 cutoff 12:00",
            "0-3 m8 scored r1 score 0.01 spend 0.0 n 0 state 1 cutoff 12:10");
    PAssert.that(result.reconciliations()).empty();
    p.run().waitUntilFinish();
  }

  @org.junit.jupiter.api.Test
  void withThePhoneIdleItsReturningReceiptGoesToReconciliationNamingTheFreedHorizon() {
    Pipeline p = pipeline();
    DecisionResult result = run(p, true);
    lines(result)
        .containsInAnyOrder(
            "1-0 m7 scored r1 score 0.1 spend 0.0 n 0 state 2 cutoff 09:00",
            "0-0 m7 scored r1 score 1.11 spend 10.0 n 1 state 3 cutoff 09:10",
            "0-1 m7 scored r1 score 0.81 spend 110.0 n 2 state 4 cutoff 09:20",
            "0-2 m7 scored r1 score 0.01 spend 0.0 n 0 state 4 cutoff 12:00",
            "0-3 m8 scored r1 score 0.01 spend 0.0 n 0 state 1 cutoff 12:10");
    PAssert.that(
            result
                .reconciliations()
                .apply(
                    "Reconciled",
                    MapElements.into(TypeDescriptors.strings())
                        .via(r -> r.eventId() + " " + r.route() + " " + r.reason())))
        .containsInAnyOrder(
            "1-1 reconciled its features over (2026-08-30T08:30:00.000Z,"
                + " 2026-08-30T09:30:00.000Z] reach below its key's freed horizon"
                + " 2026-08-30T09:20:00.000Z: state freed while its partition's watermark"
                + " (2026-08-30T08:55:00.000Z) was behind, idle",
            "1-2 reconciled the decisions it would change, from 2026-08-30T09:05:00.000Z, reach"
                + " below its key's freed horizon of decisions 2026-08-30T09:20:00.000Z: state"
                + " freed while its partition's watermark (2026-08-30T09:25:00.000Z) was behind,"
                + " idle");
    p.run().waitUntilFinish();
  }

  /**
   * Latest available frees a key's state by the stage's watermark, as as of occurrence does (ADR
   * 0112; it freed it by the watermark of the partition each event arrived from, so a partition
   * merely behind another, never idle, reached the freed horizon too). Applied in log order, 1-1
   * (arrived at 08:55) comes before 0-1 (09:05) and 0-2 (11:55), and nothing is freed while
   * partition 1 is behind: 1-1 reads its whole hour. Log order: the two first events share the
   * stamp of the partitions' start (a tie broken by partition), then 1-1, 0-1, 0-2.
   *
   * <pre>
   * p1: 1-0 m7 10 @09:00 (A -)          p0: 0-0 m7 100 @09:10 (A -), 0-1 m7 1 @12:00 (A 09:05)
   * p0: 0-2 m7 1 @12:10 (A 11:55)
   * p1: 1-1 m7 20 @09:30 (A 08:55: on time), reading (08:30, now]: 0-0 and 1-0
   * </pre>
   */
  @org.junit.jupiter.api.Test
  void underLatestAvailableAPartitionBehindButNotIdleReadsItsWholeRange() {
    Pipeline p = pipeline();
    TestStream<SourceRecord> stream =
        TestStream.create(SourceRecordCoder.of(DecisionScoringTest.RECEIPTS))
            .addElements(receipt(1, 7, "10", "09:00"), receipt(0, 7, "100", "09:10"))
            .addElements(receipt(0, 7, "1", "12:00"))
            .addElements(receipt(0, 7, "1", "12:10"))
            .advanceWatermarkTo(at("12:10"))
            .addElements(receipt(1, 7, "20", "09:30"))
            .advanceWatermarkToInfinity();
    DecisionResult result =
        p.apply(stream)
            .apply(EventTimeExtraction.from("occurred_at"))
            .events()
            .apply(
                SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                    .keepingLateEvents()
                    .withContiguousOffsets()
                    .withPartitions(0, 1)) // no idleness: no partition is ever idle
            .events()
            .apply(
                DecisionScoringTest.receiptRisk().withContract(FeatureContract.LATEST_AVAILABLE));
    PAssert.that(result.reconciliations()).empty();
    PAssert.that(
            result
                .decisions()
                .apply(
                    "OneOne",
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            d ->
                                d.eventId()
                                    + " "
                                    + d.route()
                                    + " n "
                                    + d.features().get("receipts_1h").longValue()
                                    + " state "
                                    + d.stateRevision())))
        .containsInAnyOrder(
            "0-0 scored n 0 state 1",
            "1-0 scored n 1 state 2",
            "1-1 scored n 2 state 3",
            "0-1 scored n 0 state 4",
            "0-2 scored n 1 state 5");
    p.run().waitUntilFinish();
  }

  /**
   * Nothing falls out of the counts: each of the 7 receipts is counted once — decided, late, dead-
   * lettered, or (1-1, not late) reconciled for freed state — as {@code streamform run} adds them
   * up against the lines read. By the metrics' names, as a runner reports them.
   */
  @org.junit.jupiter.api.Test
  void everyReceiptIsCountedOnceWithTheOneReconciledForFreedStateOnItsOwnCount() {
    Pipeline p = pipeline();
    run(p, true);
    Map<String, Long> counters = counters(p.run());
    long decided = counters.getOrDefault("decisions", 0L);
    long late = counters.getOrDefault("decisions_late", 0L);
    long deadLettered = counters.getOrDefault("decisions_dead_lettered", 0L);
    long reconciled = counters.getOrDefault("decisions_reconciled_below_horizon", 0L);
    assertEquals(7, decided + late + deadLettered + reconciled, "counters: " + counters);
    assertEquals(1, reconciled, "counters: " + counters);
    assertEquals(5, decided, "counters: " + counters);
  }

  /** The pipeline's counters in namespace streamform, by name (attempted, summed over steps). */
  private static Map<String, Long> counters(PipelineResult result) {
    result.waitUntilFinish();
    Map<String, Long> counters = new TreeMap<>();
    for (MetricResult<Long> c :
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.inNamespace(StreamformMetrics.NAMESPACE))
                    .build())
            .getCounters()) {
      counters.merge(c.getName().getName(), StreamformMetrics.valueAfterJob(c), Long::sum);
    }
    return counters;
  }
}
