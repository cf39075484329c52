package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.clock.LogOrder;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowRevision;
import dev.streamform.transforms.windows.WindowedAggregate;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Reify;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hand-over between the clock and keyed state must not depend on how a runner delivers elements
 * (issue "Determinism for Java authors"): the seed's late-event log, fed as an author would —
 * {@code Create.of} in any order, one element per TestStream batch, or reordered on purpose between
 * the clock and the changelog — gives the seed's changelog every time.
 */
class HandOverTest {
  /**
   * docs/semantics.md §5 fixture 1: 42@10:00 (10), 42@10:10 (20), 42@10:01 (5, late), 42@10:06 (1).
   */
  static final SeedStreams SEED =
      new SeedStreams()
          .event(42, "10", "10:00")
          .event(42, "20", "10:10")
          .event(42, "5", "10:01")
          .event(42, "1", "10:06");

  static final List<String> CHANGELOG =
      List.of("p0/0 insert 42 10", "p0/1 update 42 30", "p0/3 update 42 31");
  static final List<String> LATE =
      List.of("p0/2 2026-08-30T10:01:00.000Z < 2026-08-30T10:05:00.000Z");

  static KeyedChangelog model() {
    return KeyedChangelog.by("customer_id")
        .aggregating(Aggregation.sum("amount").as("total_spend"));
  }

  static SourceClock clock() {
    return SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
        .withContiguousOffsets();
  }

  /** The README's "For Java authors" pipeline over a bounded {@code Create.of} source. */
  private static void createOf(
      Pipeline p, String name, List<SourceRecord> records, boolean reorder) {
    ClockResult clocked =
        p.apply(
                name + "/Create",
                Create.of(records).withCoder(SourceRecordCoder.of(SeedStreams.ORDERS)))
            .apply(name + "/Extract", EventTimeExtraction.from("ordered_at"))
            .events()
            .apply(name + "/Clock", clock());
    PCollection<TimedEvent> events = clocked.events();
    if (reorder) {
      events = events.apply(name + "/Reverse", new Reverse());
    }
    PCollection<ChangelogRecord> changes = events.apply(name + "/Changelog", model());
    PAssert.that(
            name + "/ChangelogIs",
            changes.apply(
                name + "/Lines",
                MapElements.into(TypeDescriptors.strings()).via(Scenario::changelogLine)))
        .containsInAnyOrder(CHANGELOG);
    PAssert.that(
            name + "/LateIs",
            clocked
                .late()
                .apply(
                    name + "/LateLines",
                    MapElements.into(TypeDescriptors.strings()).via(Scenario::lateLine)))
        .containsInAnyOrder(LATE);
  }

  @Test
  void createOfInAnyOrderGivesTheSeedChangelogOnEveryRun() {
    Random random = new Random(19);
    for (int run = 0; run < 10; run++) {
      Pipeline p = SeedStreams.pipeline();
      for (int branch = 0; branch < 4; branch++) {
        List<SourceRecord> records = new ArrayList<>(SEED.items());
        Collections.shuffle(records, random);
        createOf(p, "run" + run + "branch" + branch, records, false);
      }
      p.run().waitUntilFinish();
    }
  }

  /**
   * docs/semantics.md §5 fixture 3 (retention 10m) from Create.of in shuffled orders, with no
   * declared partitions: 42@10:00 (10), 7@10:08 (3), watermark 10:10, 42@10:11 (5), 7@10:12 (1) ->
   * insert 42/10, insert 7/3, insert 42/5 (its state was gone: W = 10:10 >= 10:00 + 10m), update
   * 7/4.
   */
  @Test
  void retentionFromCreateOfInAnyOrder() {
    SeedStreams retention =
        new SeedStreams()
            .event(42, "10", "10:00")
            .event(7, "3", "10:08")
            .watermark("10:10")
            .event(42, "5", "10:11")
            .event(7, "1", "10:12");
    KeyedChangelog model =
        KeyedChangelog.by("customer_id")
            .aggregating(Aggregation.sum("amount").as("total_spend"))
            .withRetention(Duration.standardMinutes(10));
    Random random = new Random(3);
    Pipeline p = SeedStreams.pipeline();
    for (int run = 0; run < 8; run++) {
      List<SourceRecord> records = new ArrayList<>(retention.items());
      Collections.shuffle(records, random);
      String name = "retention" + run;
      PCollection<ChangelogRecord> changes =
          p.apply(
                  name + "/Create",
                  Create.of(records).withCoder(SourceRecordCoder.of(SeedStreams.ORDERS)))
              .apply(name + "/Extract", EventTimeExtraction.from("ordered_at"))
              .events()
              .apply(name + "/Clock", clock())
              .events()
              .apply(name + "/Changelog", model);
      PAssert.that(
              name + "/Is",
              changes.apply(
                  name + "/Lines",
                  MapElements.into(TypeDescriptors.strings()).via(Scenario::changelogLine)))
          .containsInAnyOrder(
              "p0/0 insert 42 10", "p0/1 insert 7 3", "p0/3 insert 42 5", "p0/4 update 7 4");
    }
    p.run().waitUntilFinish();
  }

  @Test
  void reorderedOnPurposeBetweenClockAndChangelog() {
    Pipeline p = SeedStreams.pipeline();
    createOf(p, "reversed", SEED.items(), true);
    p.run().waitUntilFinish();
  }

  @Test
  void oneElementPerTestStreamBatch() {
    Pipeline p = SeedStreams.pipeline();
    Scenario s = Scenario.of(p, "batches", SEED.testStream(), clock(), model());
    PAssert.that(s.changelog).containsInAnyOrder(CHANGELOG);
    PAssert.that(s.late).containsInAnyOrder(LATE);
    p.run().waitUntilFinish();
  }

  /**
   * On the Flink runner each key's order from the clock to the changelog is kept, so applying
   * events as they arrive gives the seed's changelog too, without waiting for the watermark.
   */
  @Test
  void appliedOnArrivalOnFlinkAtParallelismTwo(@TempDir Path dir) throws Exception {
    for (int run = 0; run < 2; run++) {
      Pipeline p = FlinkParityTest.flinkPipeline();
      Scenario s =
          Scenario.of(p, "arrival", SEED.testStream(), clock(), model().appliedOnArrival());
      s.writeTo("arrival", dir.resolve("run" + run));
      p.run().waitUntilFinish();
      assertEquals(CHANGELOG, Scenario.readLines(dir.resolve("run" + run).resolve("changelog")));
      assertEquals(LATE, Scenario.readLines(dir.resolve("run" + run).resolve("late")));
    }
  }

  /** Changelog records carry their event's time, so a plain FixedWindows after them works. */
  @Test
  void changelogRecordsAreTimestampedByEventTime(@TempDir Path dir) {
    Pipeline p = SeedStreams.pipeline();
    PCollection<ChangelogRecord> changes =
        p.apply(Create.of(SEED.items()).withCoder(SourceRecordCoder.of(SeedStreams.ORDERS)))
            .apply(EventTimeExtraction.from("ordered_at"))
            .events()
            .apply(clock())
            .events()
            .apply(model());
    PCollection<String> hours =
        changes
            .apply(Window.into(FixedWindows.of(Duration.standardHours(1))))
            .apply(ParDo.of(new WindowOf()));
    PAssert.that(hours)
        .containsInAnyOrder(
            "0-0 2026-08-30T10:00:00.000Z in 2026-08-30T10:00:00.000Z",
            "0-1 2026-08-30T10:10:00.000Z in 2026-08-30T10:00:00.000Z",
            "0-3 2026-08-30T10:06:00.000Z in 2026-08-30T10:00:00.000Z");
    p.run().waitUntilFinish();
  }

  /**
   * An on-time event earlier than its partition's first event (42@10:06 after 42@10:10, on time
   * against W = 10:05) is stamped with the partition's first timestamp, 10:10; its record,
   * timestamped 10:06, must still reach a downstream one-minute window: the changelog holds its
   * output watermark at the record's own time, not only at the stamp, until the record is out.
   */
  @Test
  void onTimeRecordsAreNotLateForANarrowWindowDownstream() {
    SeedStreams log = new SeedStreams().event(42, "10", "10:10").event(42, "1", "10:06");
    Pipeline p = SeedStreams.pipeline();
    for (int branch = 0; branch < 8; branch++) {
      String name = "branch" + branch;
      PCollection<String> minutes =
          p.apply(
                  name + "/Create",
                  Create.of(log.items()).withCoder(SourceRecordCoder.of(SeedStreams.ORDERS)))
              .apply(name + "/Extract", EventTimeExtraction.from("ordered_at"))
              .events()
              .apply(name + "/Clock", clock())
              .events()
              .apply(name + "/Changelog", model())
              .apply(name + "/Minutes", Window.into(FixedWindows.of(Duration.standardMinutes(1))))
              .apply(name + "/ByWindow", WithKeys.of(0))
              .setCoder(KvCoder.of(VarIntCoder.of(), SerializableCoder.of(ChangelogRecord.class)))
              .apply(name + "/Group", GroupByKey.create())
              .apply(name + "/Name", ParDo.of(new GroupedInWindow()));
      PAssert.that(name + "/InTheirMinutes", minutes)
          .containsInAnyOrder("0-0 in 2026-08-30T10:10:00.000Z", "0-1 in 2026-08-30T10:06:00.000Z");
    }
    p.run().waitUntilFinish();
  }

  /**
   * The same for a windowed stage: the 10:06 event (stamped 10:10) makes window [10:06, 10:07),
   * whose records leave timestamped 10:06:59.999 once the event is applied. The windows buffer it
   * by its stamp but hold their output watermark at the earlier of stamp and event time ({@link
   * LogOrder#holdOf}); held at the stamp, a one-minute window downstream would drop them.
   */
  @Test
  void windowRecordsOfAnEventEarlierThanItsStampAreNotLateDownstream() {
    SeedStreams log = new SeedStreams().event(42, "10", "10:10").event(42, "1", "10:06");
    Pipeline p = SeedStreams.pipeline();
    for (int branch = 0; branch < 8; branch++) {
      String name = "branch" + branch;
      PCollection<WindowRevision> revisions =
          p.apply(
                  name + "/Create",
                  Create.of(log.items()).withCoder(SourceRecordCoder.of(SeedStreams.ORDERS)))
              .apply(name + "/Extract", EventTimeExtraction.from("ordered_at"))
              .events()
              .apply(name + "/Clock", clock().keepingLateEvents())
              .events()
              .apply(
                  name + "/Windows",
                  WindowedAggregate.of(FixedWindows.of(Duration.standardMinutes(1)))
                      .by("customer_id")
                      .aggregating(Aggregation.sum("amount").as("total")))
              .revisions();
      PCollection<String> minutes =
          revisions
              .apply(name + "/Minutes", Window.into(FixedWindows.of(Duration.standardMinutes(1))))
              .apply(name + "/ByWindow", WithKeys.of(0))
              .setCoder(KvCoder.of(VarIntCoder.of(), revisions.getCoder()))
              .apply(name + "/Group", GroupByKey.create())
              .apply(name + "/Name", ParDo.of(new RevisionsInWindow()));
      PAssert.that(name + "/InTheirMinutes", minutes)
          .containsInAnyOrder(
              "on_time [2026-08-30T10:06:00.000Z] in 2026-08-30T10:06:00.000Z",
              "final [2026-08-30T10:06:00.000Z] in 2026-08-30T10:06:00.000Z",
              "on_time [2026-08-30T10:10:00.000Z] in 2026-08-30T10:10:00.000Z",
              "final [2026-08-30T10:10:00.000Z] in 2026-08-30T10:10:00.000Z");
    }
    p.run().waitUntilFinish();
  }

  @Test
  void logOrderIsStampThenPartitionThenOffset() {
    assertEquals(
        List.of("0-1", "1-0", "0-2"),
        sorted(List.of(timed(0, 2, 5_000L), timed(1, 0, 1_000L), timed(0, 1, 1_000L))));
  }

  private static List<String> sorted(List<TimestampedValue<TimedEvent>> events) {
    List<TimestampedValue<TimedEvent>> copy = new ArrayList<>(events);
    copy.sort(LogOrder.LOG_ORDER);
    List<String> ids = new ArrayList<>();
    copy.forEach(e -> ids.add(e.getValue().envelope().eventId()));
    return ids;
  }

  private static TimestampedValue<TimedEvent> timed(int partition, long offset, long watermark) {
    SourceRecord r =
        SourceRecord.of(
            partition,
            offset,
            SeedStreams.INGEST,
            org.apache.beam.sdk.values.Row.withSchema(SeedStreams.ORDERS)
                .addValues(1L, null, null)
                .build());
    return TimestampedValue.of(
        TimedEvent.of(
            dev.streamform.transforms.envelope.Envelope.event(
                r, new org.joda.time.Instant(watermark)),
            new org.joda.time.Instant(watermark),
            false,
            new org.joda.time.Instant(watermark)),
        new org.joda.time.Instant(watermark));
  }

  /** Names a record's event, time and the window it was assigned to. */
  static final class WindowOf extends DoFn<ChangelogRecord, String> {
    @ProcessElement
    public void process(@Element ChangelogRecord r, BoundedWindow w, OutputReceiver<String> out) {
      out.output(r.eventId() + " " + r.eventTime() + " in " + ((IntervalWindow) w).start());
    }
  }

  /** Names each record of a group and the window the group fired in. */
  static final class GroupedInWindow extends DoFn<KV<Integer, Iterable<ChangelogRecord>>, String> {
    @ProcessElement
    public void process(
        @Element KV<Integer, Iterable<ChangelogRecord>> in,
        BoundedWindow w,
        OutputReceiver<String> out) {
      in.getValue().forEach(r -> out.output(r.eventId() + " in " + ((IntervalWindow) w).start()));
    }
  }

  /**
   * Names each window record of a group (status, its window's start) and the window it fired in.
   */
  static final class RevisionsInWindow extends DoFn<KV<Integer, Iterable<WindowRevision>>, String> {
    @ProcessElement
    public void process(
        @Element KV<Integer, Iterable<WindowRevision>> in,
        BoundedWindow w,
        OutputReceiver<String> out) {
      in.getValue()
          .forEach(
              r ->
                  out.output(
                      r.status().yamlName()
                          + " ["
                          + r.windowStart()
                          + "] in "
                          + ((IntervalWindow) w).start()));
    }
  }

  /** Hands every event over in the reverse of the order it arrived in, keeping its timestamp. */
  static final class Reverse extends PTransform<PCollection<TimedEvent>, PCollection<TimedEvent>> {
    @Override
    public PCollection<TimedEvent> expand(PCollection<TimedEvent> input) {
      Coder<TimedEvent> coder = input.getCoder();
      return input
          .apply(Reify.timestamps())
          .setCoder(TimestampedValue.TimestampedValueCoder.of(coder))
          .apply(WithKeys.of(0))
          .setCoder(KvCoder.of(VarIntCoder.of(), TimestampedValue.TimestampedValueCoder.of(coder)))
          .apply(GroupByKey.create())
          .apply(
              ParDo.of(
                  new DoFn<KV<Integer, Iterable<TimestampedValue<TimedEvent>>>, TimedEvent>() {
                    @ProcessElement
                    public void process(
                        @Element KV<Integer, Iterable<TimestampedValue<TimedEvent>>> all,
                        OutputReceiver<TimedEvent> out) {
                      List<TimestampedValue<TimedEvent>> list = new ArrayList<>();
                      all.getValue().forEach(list::add);
                      Collections.reverse(list);
                      list.forEach(e -> out.outputWithTimestamp(e.getValue(), e.getTimestamp()));
                    }

                    @Override
                    @SuppressWarnings("deprecation")
                    public Duration getAllowedTimestampSkew() {
                      return Duration.millis(Long.MAX_VALUE);
                    }
                  }))
          .setCoder(coder);
    }
  }
}
