package dev.streamform.transforms;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.clock.LateEvent;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/** The seed's three reference results (docs/semantics.md §5), through the composite transforms. */
class SeedFixturesTest {

  /** Runs the customer_metrics model; returns "offset op key total" lines and late offsets. */
  static final class Run {
    final List<String> changelog = new ArrayList<>();
    final List<String> late = new ArrayList<>();
  }

  static PCollection<String> changelogLines(PCollection<ChangelogRecord> records) {
    return records.apply(
        "Lines",
        MapElements.into(TypeDescriptors.strings())
            .via(
                (ChangelogRecord r) ->
                    r.offset()
                        + " "
                        + r.op().name().toLowerCase()
                        + " "
                        + r.value("customer_id")
                        + " "
                        + ((java.math.BigDecimal) r.value("total_spend")).toPlainString()));
  }

  static PCollection<String> lateLines(PCollection<LateEvent> late) {
    return late.apply(
        "LateLines",
        MapElements.into(TypeDescriptors.strings())
            .via(
                (LateEvent e) ->
                    e.envelope().offset()
                        + " "
                        + e.envelope().eventTime()
                        + " < "
                        + e.watermark()));
  }

  static ClockResult clock(Pipeline p, SeedStreams given, SourceClock clock) {
    return p.apply(given.testStream())
        .apply(EventTimeExtraction.from("ordered_at"))
        .events()
        .apply(clock.withContiguousOffsets());
  }

  static KeyedChangelog customerMetrics() {
    return KeyedChangelog.by("customer_id")
        .aggregating(Aggregation.sum("amount").as("total_spend"));
  }

  static SeedStreams lateEventStream() {
    return new SeedStreams()
        .event(42, "10", "10:00")
        .event(42, "20", "10:10")
        .event(42, "5", "10:01")
        .event(42, "1", "10:06");
  }

  @Test
  void lateEventIsDroppedAndListed() {
    Pipeline p = SeedStreams.pipeline();
    ClockResult clocked =
        clock(
            p,
            lateEventStream(),
            SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5)));
    PAssert.that(changelogLines(clocked.events().apply(customerMetrics())))
        .containsInAnyOrder("0 insert 42 10", "1 update 42 30", "3 update 42 31");
    PAssert.that(lateLines(clocked.late()))
        .containsInAnyOrder("2 2026-08-30T10:01:00.000Z < 2026-08-30T10:05:00.000Z");
    p.run().waitUntilFinish();
  }

  @Test
  void lateEventKeptGivesAFurtherUpdate() {
    Pipeline p = SeedStreams.pipeline();
    ClockResult clocked =
        clock(
            p,
            lateEventStream(),
            SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5)).keepingLateEvents());
    PAssert.that(changelogLines(clocked.events().apply(customerMetrics())))
        .containsInAnyOrder("0 insert 42 10", "1 update 42 30", "2 update 42 35", "3 update 42 36");
    PAssert.that(clocked.late()).empty();
    p.run().waitUntilFinish();
  }

  @Test
  void watermarkItemsAdvanceTheClockAndNeverMoveItBack() {
    SeedStreams given =
        new SeedStreams()
            .event(1, "1", "10:00")
            .event(1, "1", "09:57")
            .watermark("10:20")
            .event(1, "1", "10:15")
            .watermark("10:00")
            .event(1, "1", "10:19")
            .event(1, "1", "10:30")
            .event(1, "1", "10:24")
            .event(1, "1", "10:26");
    Pipeline p = SeedStreams.pipeline();
    ClockResult clocked =
        clock(p, given, SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5)));
    PAssert.that(changelogLines(clocked.events().apply(customerMetrics())))
        .containsInAnyOrder("0 insert 1 1", "1 update 1 2", "6 update 1 3", "8 update 1 4");
    PAssert.that(lateLines(clocked.late()))
        .containsInAnyOrder(
            "3 2026-08-30T10:15:00.000Z < 2026-08-30T10:20:00.000Z",
            "5 2026-08-30T10:19:00.000Z < 2026-08-30T10:20:00.000Z",
            "7 2026-08-30T10:24:00.000Z < 2026-08-30T10:25:00.000Z");
    p.run().waitUntilFinish();
  }

  @Test
  void retentionExpiresAKeyAndItStartsOver() {
    SeedStreams given =
        new SeedStreams()
            .event(42, "10", "10:00")
            .event(7, "3", "10:08")
            .watermark("10:10")
            .event(42, "5", "10:11")
            .event(7, "1", "10:12");
    Pipeline p = SeedStreams.pipeline();
    ClockResult clocked =
        clock(p, given, SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5)));
    PAssert.that(
            changelogLines(
                clocked
                    .events()
                    .apply(customerMetrics().withRetention(Duration.standardMinutes(10)))))
        .containsInAnyOrder("0 insert 42 10", "1 insert 7 3", "3 insert 42 5", "4 update 7 4");
    PAssert.that(clocked.late()).empty();
    p.run().waitUntilFinish();
  }
}
