package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.core.digest.RevisionIdentity;
import dev.streamform.core.time.WindowStatus;
import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.TooLateEvent;
import dev.streamform.transforms.windows.WindowRevision;
import dev.streamform.transforms.windows.WindowedAggregate;
import dev.streamform.transforms.windows.WindowedResult;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * {@link WindowedAggregate} against docs/semantics.md §6, with answers worked out by hand in the
 * comments, fed as an author would: Create.of in shuffled orders and one element per TestStream
 * batch.
 */
class WindowedAggregateTest {
  private static final String DAY2 = "2026-08-31T";

  private static SourceClock clock() {
    return SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
        .keepingLateEvents()
        .withContiguousOffsets()
        .withPartitions(0);
  }

  private static WindowedAggregate hourly() {
    return WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
        .forModel("hourly_revenue")
        .by("customer_id")
        .aggregating(Aggregation.sum("amount").as("revenue"))
        .withAllowedLateness(Duration.standardHours(24));
  }

  /**
   * The seed's hourly revenue: 10 @10:00 and 20 @10:30 on time in [10:00, 11:00); 5 @11:10 moves W
   * to 11:05, so [10,11) gets revision 1 = 30; a refund -4 @10:50 arrives at W = 11:05 (a
   * correction): revision 2 = 26; the watermark item 08-31 11:30 passes [10,11)'s end + 24h (final,
   * revision 2, 26) and [11,12)'s end (revision 1 = 5); a refund -1 @10:20 then is too late for
   * [10,11); the end of input finalizes [11,12).
   */
  private static final SeedStreams SEED =
      new SeedStreams()
          .event(7, "10", "10:00")
          .event(7, "20", "10:30")
          .event(7, "5", "11:10")
          .event(7, "-4", "10:50")
          .watermark(0, Instant.parse(DAY2 + "11:30:00Z"))
          .event(0, 7, "-1", "2026-08-30T10:20:00Z");

  private static final List<String> SEED_RECORDS =
      List.of(
          "10:00 on_time r1 7 30",
          "10:00 corrected r2<1 7 26",
          "10:00 final r2<1 7 26",
          "11:00 on_time r1 7 5",
          "11:00 final r1 7 5");
  private static final List<String> SEED_LATE =
      List.of("p0/5 window 10:00 W 2026-08-31T11:30:00.000Z");

  static String line(WindowRevision r) {
    String start = r.windowStart().toString().substring(11, 16);
    return start
        + " "
        + r.status().yamlName()
        + " r"
        + r.revision()
        + (r.predecessor() == null ? "" : "<" + r.predecessor())
        + " "
        + r.key().getValue(0)
        + " "
        + ((BigDecimal) r.values().getValue(0)).stripTrailingZeros().toPlainString();
  }

  static String lateLine(TooLateEvent e) {
    return "p"
        + e.envelope().partition()
        + "/"
        + e.envelope().offset()
        + " window "
        + e.windowStart().toString().substring(11, 16)
        + " W "
        + e.watermark();
  }

  private static WindowedResult build(
      Pipeline p, String name, PCollection<SourceRecord> records, WindowedAggregate model) {
    return build(name, records, model, clock());
  }

  private static WindowedResult build(
      String name, PCollection<SourceRecord> records, WindowedAggregate model, SourceClock clock) {
    return records
        .apply(name + "/Extract", EventTimeExtraction.from("ordered_at"))
        .events()
        .apply(name + "/Clock", clock)
        .events()
        .apply(name + "/Windows", model);
  }

  private static void expect(
      String name, WindowedResult result, List<String> records, List<String> late) {
    PAssert.that(
            name + "/Records",
            result
                .revisions()
                .apply(
                    name + "/Lines",
                    MapElements.into(TypeDescriptors.strings()).via(WindowedAggregateTest::line)))
        .containsInAnyOrder(records);
    PAssert.that(
            name + "/Late",
            result
                .tooLate()
                .apply(
                    name + "/LateLines",
                    MapElements.into(TypeDescriptors.strings())
                        .via(WindowedAggregateTest::lateLine)))
        .containsInAnyOrder(late);
  }

  @Test
  void seedHourlyRevenueFromCreateOfInAnyOrder() {
    Random random = new Random(11);
    Pipeline p = SeedStreams.pipeline();
    for (int run = 0; run < 6; run++) {
      List<SourceRecord> records = new ArrayList<>(SEED.items());
      Collections.shuffle(records, random);
      String name = "run" + run;
      expect(
          name,
          build(
              p,
              name,
              p.apply(
                  name + "/Create",
                  Create.of(records).withCoder(SourceRecordCoder.of(SeedStreams.ORDERS))),
              hourly()),
          SEED_RECORDS,
          SEED_LATE);
    }
    p.run().waitUntilFinish();
  }

  /**
   * Without declared partitions the clock cannot hold the watermark before a partition's first
   * item, so its stamps start at that item's time; the windows must still give the seed's answer.
   */
  @Test
  void seedHourlyRevenueFromCreateOfWithoutDeclaredPartitions() {
    Random random = new Random(12);
    Pipeline p = SeedStreams.pipeline();
    SourceClock undeclared =
        SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
            .keepingLateEvents()
            .withContiguousOffsets();
    for (int run = 0; run < 6; run++) {
      List<SourceRecord> records = new ArrayList<>(SEED.items());
      Collections.shuffle(records, random);
      String name = "undeclared" + run;
      expect(
          name,
          build(
              name,
              p.apply(
                  name + "/Create",
                  Create.of(records).withCoder(SourceRecordCoder.of(SeedStreams.ORDERS))),
              hourly(),
              undeclared),
          SEED_RECORDS,
          SEED_LATE);
    }
    p.run().waitUntilFinish();
  }

  @Test
  void seedHourlyRevenueOneElementPerTestStreamBatch() {
    Pipeline p = SeedStreams.pipeline();
    TestStream<SourceRecord> stream = SEED.testStream();
    expect("batches", build(p, "batches", p.apply(stream), hourly()), SEED_RECORDS, SEED_LATE);
    p.run().waitUntilFinish();
  }

  /**
   * A correction that arrives before its window's revision 1 follows it, also where events are
   * applied as they arrive (docs/semantics.md §6; {@link WindowedAggregate#appliedOnArrival()}):
   * partitions 0 and 1 declared, hourly, allowed lateness 1h. On partition 0, 10 @10:10 on time,
   * then a watermark item 11:05, then 5 @10:20 — a correction of [10:00, 11:00) by its partition's
   * watermark — while partition 1, still without a watermark, holds revision 1 back. Its watermark
   * item 12:30 then releases revision 1 = 10, the correction = 15 and the final. In log order and
   * on arrival alike.
   */
  @Test
  void aCorrectionArrivingBeforeRevisionOneFollowsItAlsoOnArrival() {
    SeedStreams s =
        new SeedStreams()
            .event(0, 7, "10", "2026-08-30T10:10:00Z")
            .watermark(0, Instant.parse("2026-08-30T11:05:00Z"))
            .event(0, 7, "5", "2026-08-30T10:20:00Z")
            .watermark(1, Instant.parse("2026-08-30T12:30:00Z"));
    SourceClock twoPartitions =
        SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
            .keepingLateEvents()
            .withContiguousOffsets()
            .withPartitions(0, 1);
    WindowedAggregate model = hourly().withAllowedLateness(Duration.standardHours(1));
    List<String> records =
        List.of("10:00 on_time r1 7 10", "10:00 corrected r2<1 7 15", "10:00 final r2<1 7 15");
    Pipeline p = SeedStreams.pipeline();
    expect(
        "inLogOrder",
        build("inLogOrder", p.apply("LogOrder", s.testStream()), model, twoPartitions),
        records,
        List.of());
    expect(
        "onArrival",
        build(
            "onArrival",
            p.apply("Arrival", s.testStream()),
            model.appliedOnArrival(),
            twoPartitions),
        records,
        List.of());
    p.run().waitUntilFinish();
  }

  /**
   * Early every 2 events: 1 @10:00, 2 @10:10 (preview 3), 4 @10:20, 8 @10:30 (preview 15), then the
   * end of input: revision 1 = 15 and final. Allowed lateness 0: final right after revision 1.
   */
  @Test
  void earlyPreviewsEveryTwoOnTimeEvents() {
    SeedStreams s =
        new SeedStreams()
            .event(7, "1", "10:00")
            .event(7, "2", "10:10")
            .event(7, "4", "10:20")
            .event(7, "8", "10:30");
    Pipeline p = SeedStreams.pipeline();
    WindowedAggregate model = hourly().withAllowedLateness(Duration.ZERO).withEarlyResultsEvery(2);
    expect(
        "early",
        build(p, "early", p.apply(s.testStream()), model),
        List.of(
            "10:00 early r0 7 3",
            "10:00 early r0 7 15",
            "10:00 on_time r1 7 15",
            "10:00 final r1 7 15"),
        List.of());
    p.run().waitUntilFinish();
  }

  /**
   * Hopping {size 1h, every 30m}, lateness 10m: 3 @10:40 is in [10:00, 11:00) and [10:30, 11:30);
   * 50 @11:50 moves W to 11:45: [10:00,11:00) and [10:30,11:30) get revision 1 = 3 and are final
   * (11:45 >= 11:00 + 10m, 11:30 + 10m = 11:40); then 1 @10:45 arrives at W = 11:45: too late for
   * both. [11:00,12:00) and [11:30,12:30) hold 50 until the end of input.
   */
  @Test
  void hoppingWindows() {
    SeedStreams s =
        new SeedStreams().event(7, "3", "10:40").event(7, "50", "11:50").event(7, "1", "10:45");
    Pipeline p = SeedStreams.pipeline();
    WindowedAggregate model =
        WindowedAggregate.of(
                SlidingWindows.of(Duration.standardHours(1)).every(Duration.standardMinutes(30)))
            .forModel("half_hourly")
            .by("customer_id")
            .aggregating(Aggregation.sum("amount").as("revenue"))
            .withAllowedLateness(Duration.standardMinutes(10));
    expect(
        "hopping",
        build(p, "hopping", p.apply(s.testStream()), model),
        List.of(
            "10:00 on_time r1 7 3", "10:00 final r1 7 3",
            "10:30 on_time r1 7 3", "10:30 final r1 7 3",
            "11:00 on_time r1 7 50", "11:00 final r1 7 50",
            "11:30 on_time r1 7 50", "11:30 final r1 7 50"),
        List.of(
            "p0/2 window 10:00 W 2026-08-30T11:45:00.000Z",
            "p0/2 window 10:30 W 2026-08-30T11:45:00.000Z"));
    org.apache.beam.sdk.PipelineResult result = p.run();
    result.waitUntilFinish();
    // four windows held state (key 7 in each); each one's final record freed it
    assertEquals(4, Scenario.counter(result, StreamformMetrics.WINDOWS_FINALIZED));
    assertEquals(0, Scenario.counter(result, StreamformMetrics.WINDOWS_LIVE));
  }

  /**
   * A window's state lives until its final record, and only that long: two keys' windows, one
   * finalized mid-stream by the watermark item (10:00 + lateness 10m <= 11:30), the others by the
   * end of input. Measured in the pipeline (windows_live), not inferred from the output.
   */
  @Test
  void finalizedWindowsFreeTheirState() {
    SeedStreams s =
        new SeedStreams()
            .event(7, "1", "10:05")
            .event(8, "2", "10:10")
            .event(7, "3", "11:20")
            .watermark(0, Instant.parse("2026-08-30T11:30:00Z"))
            .event(8, "4", "11:40");
    Pipeline p = SeedStreams.pipeline();
    WindowedAggregate model = hourly().withAllowedLateness(Duration.standardMinutes(10));
    expect(
        "freed",
        build(p, "freed", p.apply(s.testStream()), model),
        List.of(
            "10:00 on_time r1 7 1", "10:00 final r1 7 1",
            "10:00 on_time r1 8 2", "10:00 final r1 8 2",
            "11:00 on_time r1 7 3", "11:00 final r1 7 3",
            "11:00 on_time r1 8 4", "11:00 final r1 8 4"),
        List.of());
    org.apache.beam.sdk.PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(4, Scenario.counter(result, StreamformMetrics.WINDOWS_FINALIZED));
    assertEquals(0, Scenario.counter(result, StreamformMetrics.WINDOWS_LIVE));
  }

  /** Identity fields are RevisionIdentity's, and offsets name the events included. */
  @Test
  void revisionsCarryTheirIdentity() {
    Pipeline p = SeedStreams.pipeline();
    WindowedResult result =
        build(p, "identity", p.apply(SEED.testStream()), hourly().withGeneration(3));
    java.time.Instant start = java.time.Instant.parse("2026-08-30T10:00:00Z");
    String logical =
        RevisionIdentity.logicalWindowId(
            "hourly_revenue", Map.of("customer_id", 7L), start, start.plusSeconds(3600));
    String expected =
        "10:00 r2 "
            + logical
            + " "
            + RevisionIdentity.projectionId(logical, 3)
            + " "
            + RevisionIdentity.aggregateDigest(Map.of("revenue", new BigDecimal("26")))
            + " [p0 0..3 x3]";
    PAssert.that(
            result
                .revisions()
                .apply(
                    org.apache.beam.sdk.transforms.Filter.by(
                        (WindowRevision r) -> r.status() == WindowStatus.CORRECTED))
                .apply(
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            (WindowRevision r) ->
                                r.windowStart().toString().substring(11, 16)
                                    + " r"
                                    + r.revision()
                                    + " "
                                    + r.logicalWindowId()
                                    + " "
                                    + r.projectionId()
                                    + " "
                                    + r.aggregateDigest()
                                    + " "
                                    + offsets(r))))
        .containsInAnyOrder(expected);
    p.run().waitUntilFinish();
  }

  private static String offsets(WindowRevision r) {
    List<String> parts = new ArrayList<>();
    r.offsets()
        .forEach(
            o ->
                parts.add("p" + o.partition() + " " + o.min() + ".." + o.max() + " x" + o.count()));
    return parts.toString();
  }

  @Test
  void windowStartsOfHoppingWindowsAreMultiplesOfEvery() {
    assertEquals(
        "hopping 1h every 30m",
        WindowedAggregate.of(
                SlidingWindows.of(Duration.standardHours(1)).every(Duration.standardMinutes(30)))
            .windowText());
    assertEquals("tumbling 1h", hourly().windowText());
  }

  /**
   * A Java author's window offset is honoured and shown, in the window text and so in display data
   * (found by a read-only audit of the Java API: "tumbling 1h" for windows from 09:10 to 10:10).
   */
  @Test
  void anOffsetIsShownInTheWindowText() {
    assertEquals(
        "tumbling 1h, offset 10m",
        WindowedAggregate.of(
                FixedWindows.of(Duration.standardHours(1)).withOffset(Duration.standardMinutes(10)))
            .windowText());
    assertEquals(
        "hopping 1h every 15m, offset 5m",
        WindowedAggregate.of(
                SlidingWindows.of(Duration.standardHours(1))
                    .every(Duration.standardMinutes(15))
                    .withOffset(Duration.standardMinutes(5)))
            .windowText());
  }
}
