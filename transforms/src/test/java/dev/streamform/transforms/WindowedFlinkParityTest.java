package dev.streamform.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowedAggregate;
import dev.streamform.transforms.windows.WindowedResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/semantics.md §6–§7 for windows: the same per-partition logs give the same previews,
 * revisions, finals and too-late rows on the DirectRunner and on Flink at parallelism 2 (five
 * runs), and they are the answers worked out by hand below. Revision numbers carry the order within
 * a window.
 */
class WindowedFlinkParityTest {

  /** A scenario: its log, its windows and the records and late rows it must give. */
  private static final class Case {
    final SeedStreams log;
    final WindowedAggregate model;
    final List<String> records;
    final List<String> late;

    Case(SeedStreams log, WindowedAggregate model, List<String> records, List<String> late) {
      this.log = log;
      this.model = model;
      this.records = records;
      this.late = late;
    }
  }

  private static WindowedAggregate sum(WindowedAggregate w) {
    return w.forModel("revenue")
        .by("customer_id")
        .aggregating(Aggregation.sum("amount").as("revenue"));
  }

  static Map<String, Case> cases() {
    Map<String, Case> all = new LinkedHashMap<>();
    // The seed's hourly revenue (see WindowedAggregateTest).
    all.put(
        "hourly",
        new Case(
            new SeedStreams()
                .event(7, "10", "10:00")
                .event(7, "20", "10:30")
                .event(7, "5", "11:10")
                .event(7, "-4", "10:50")
                .watermark(0, Instant.parse("2026-08-31T11:30:00Z"))
                .event(0, 7, "-1", "2026-08-30T10:20:00Z"),
            sum(WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1))))
                .withAllowedLateness(Duration.standardHours(24)),
            List.of(
                "10:00 on_time r1 7 30",
                "10:00 corrected r2<1 7 26",
                "10:00 final r2<1 7 26",
                "11:00 on_time r1 7 5",
                "11:00 final r1 7 5"),
            List.of("p0/5 window 10:00 W 2026-08-31T11:30:00.000Z")));
    // Two partitions, partition 1 behind: key 7's correction (-2 @10:40, arriving at W_0 = 11:25)
    // waits until W = min(W_0, W_1) passes 11:00, which happens when 8 @11:20 moves W_1 to 11:15;
    // then [10,11) of key 7 gets revision 1 = 10 and the held correction as revision 2 = 8.
    all.put(
        "two-partitions",
        new Case(
            new SeedStreams()
                .event(0, 7, "10", "2026-08-30T10:00:00Z")
                .event(0, 7, "5", "2026-08-30T11:30:00Z")
                .event(0, 7, "-2", "2026-08-30T10:40:00Z")
                .event(1, 8, "3", "2026-08-30T10:20:00Z")
                .event(1, 8, "4", "2026-08-30T11:20:00Z"),
            sum(WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1))))
                .withAllowedLateness(Duration.standardHours(1)),
            List.of(
                "10:00 on_time r1 7 10",
                "10:00 corrected r2<1 7 8",
                "10:00 final r2<1 7 8",
                "11:00 on_time r1 7 5",
                "11:00 final r1 7 5",
                "10:00 on_time r1 8 3",
                "10:00 final r1 8 3",
                "11:00 on_time r1 8 4",
                "11:00 final r1 8 4"),
            List.of()));
    // Hopping (see WindowedAggregateTest#hoppingWindows).
    all.put(
        "hopping",
        new Case(
            new SeedStreams().event(7, "3", "10:40").event(7, "50", "11:50").event(7, "1", "10:45"),
            sum(WindowedAggregate.of(
                    SlidingWindows.of(Duration.standardHours(1))
                        .every(Duration.standardMinutes(30))))
                .withAllowedLateness(Duration.standardMinutes(10)),
            List.of(
                "10:00 on_time r1 7 3",
                "10:00 final r1 7 3",
                "10:30 on_time r1 7 3",
                "10:30 final r1 7 3",
                "11:00 on_time r1 7 50",
                "11:00 final r1 7 50",
                "11:30 on_time r1 7 50",
                "11:30 final r1 7 50"),
            List.of(
                "p0/2 window 10:00 W 2026-08-30T11:45:00.000Z",
                "p0/2 window 10:30 W 2026-08-30T11:45:00.000Z")));
    // Early every 2 on-time events; a correction with no on-time events is revision 1 corrected:
    // 5 @09:10 arrives at W = 10:25 (after 20 @10:30), past [09,10)'s end, within 1h of lateness.
    all.put(
        "early-and-correction-first",
        new Case(
            new SeedStreams()
                .event(7, "1", "10:00")
                .event(7, "2", "10:10")
                .event(7, "20", "10:30")
                .event(7, "5", "09:10"),
            sum(WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1))))
                .withAllowedLateness(Duration.standardHours(1))
                .withEarlyResultsEvery(2),
            List.of(
                "10:00 early r0 7 3",
                "10:00 on_time r1 7 23",
                "10:00 final r1 7 23",
                "09:00 corrected r1 7 5",
                "09:00 final r1 7 5"),
            List.of()));
    // Hopping windows with a preview every 3 on-time events; partition 1 (key 8) holds W at 09:55
    // until the input ends. Key 7's 4 @10:50 arrives at W_0 = 11:15: a correction of [10:00,
    // 11:00), which has no revision 1 yet, and on time in [10:30, 11:30); then 8 @11:10, on time in
    // both of its windows. In log order [10:00, 11:00) gets revision 1 = 1 before the correction
    // (revision 2 = 5), and [10:30, 11:30)'s third on-time event is 4 @10:50 (preview 1+2+4 = 7),
    // not 8 @11:10: applied on arrival, both events must wait for the correction's turn.
    all.put(
        "correction-then-on-time",
        new Case(
            new SeedStreams()
                .event(1, 8, "3", "2026-08-30T10:00:00Z")
                .event(0, 7, "1", "2026-08-30T10:40:00Z")
                .event(0, 7, "2", "2026-08-30T11:20:00Z")
                .event(0, 7, "4", "2026-08-30T10:50:00Z")
                .event(0, 7, "8", "2026-08-30T11:10:00Z"),
            sum(WindowedAggregate.of(
                    SlidingWindows.of(Duration.standardHours(1))
                        .every(Duration.standardMinutes(30))))
                .withAllowedLateness(Duration.standardHours(1))
                .withEarlyResultsEvery(3),
            List.of(
                "10:00 on_time r1 7 1",
                "10:00 corrected r2<1 7 5",
                "10:00 final r2<1 7 5",
                "10:30 early r0 7 7",
                "10:30 on_time r1 7 15",
                "10:30 final r1 7 15",
                "11:00 on_time r1 7 10",
                "11:00 final r1 7 10",
                "09:30 on_time r1 8 3",
                "09:30 final r1 8 3",
                "10:00 on_time r1 8 3",
                "10:00 final r1 8 3"),
            List.of()));
    return all;
  }

  private static void addAll(Pipeline p, Path dir) {
    addAll(p, dir, false);
  }

  /** Every case into {@code p}, its windows applied on arrival where it says so. */
  private static void addAll(Pipeline p, Path dir, boolean onArrival) {
    for (Map.Entry<String, Case> e : cases().entrySet()) {
      String name = e.getKey();
      WindowedAggregate model = e.getValue().model;
      WindowedResult result =
          p.apply(name + "/Read", e.getValue().log.testStream())
              .apply(name + "/Extract", EventTimeExtraction.from("ordered_at"))
              .events()
              .apply(
                  name + "/Clock",
                  SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                      .keepingLateEvents()
                      .withContiguousOffsets()
                      .withPartitions(0, 1))
              .events()
              .apply(name + "/Windows", onArrival ? model.appliedOnArrival() : model);
      result
          .revisions()
          .apply(
              name + "/Lines",
              MapElements.into(TypeDescriptors.strings()).via(WindowedAggregateTest::line))
          .apply(
              name + "/WriteRecords",
              ParDo.of(new Scenario.LinesToFiles(dir.resolve(name).resolve("records"))));
      result
          .tooLate()
          .apply(
              name + "/LateLines",
              MapElements.into(TypeDescriptors.strings()).via(WindowedAggregateTest::lateLine))
          .apply(
              name + "/WriteLate",
              ParDo.of(new Scenario.LinesToFiles(dir.resolve(name).resolve("late"))));
    }
  }

  private static List<String> check(Path dir, String runName) throws Exception {
    List<String> differences = new ArrayList<>();
    for (Map.Entry<String, Case> e : cases().entrySet()) {
      List<String> want = e.getValue().records.stream().sorted().toList();
      List<String> got = Scenario.readLines(dir.resolve(e.getKey()).resolve("records"));
      if (!want.equals(got)) {
        differences.add(runName + " " + e.getKey() + " records: want " + want + " got " + got);
      }
      List<String> wantLate = e.getValue().late.stream().sorted().toList();
      List<String> gotLate = Scenario.readLines(dir.resolve(e.getKey()).resolve("late"));
      if (!wantLate.equals(gotLate)) {
        differences.add(runName + " " + e.getKey() + " late: want " + wantLate + " got " + gotLate);
      }
    }
    return differences;
  }

  @Test
  void directRunnerGivesTheHandWorkedAnswers(@TempDir Path dir) throws Exception {
    Pipeline p = SeedStreams.pipeline();
    addAll(p, dir);
    p.run().waitUntilFinish();
    List<String> differences = check(dir, "direct");
    assertThat(String.join("\n", differences), differences, equalTo(List.of()));
  }

  @Test
  void flinkAtParallelismTwoGivesTheSameFiveTimes(@TempDir Path dir) throws Exception {
    assertFlinkGivesTheHandWorkedAnswers(dir, false);
  }

  /**
   * As {@code streamform run} builds windows on Flink (issue 31): applied on arrival where that
   * gives what log order gives. The corrections of windows still waiting for revision 1 (cases
   * "two-partitions", "correction-then-on-time") and the key's events after them wait their turn.
   */
  @Test
  void appliedOnArrivalFlinkAtParallelismTwoGivesTheSameFiveTimes(@TempDir Path dir)
      throws Exception {
    assertFlinkGivesTheHandWorkedAnswers(dir, true);
  }

  private static void assertFlinkGivesTheHandWorkedAnswers(Path dir, boolean onArrival)
      throws Exception {
    List<String> differences = new ArrayList<>();
    for (int run = 1; run <= FlinkParityTest.RUNS; run++) {
      Path out = dir.resolve("flink-" + run);
      Pipeline p = FlinkParityTest.flinkPipeline();
      addAll(p, out, onArrival);
      assertThat("run " + run, p.run().waitUntilFinish(), equalTo(PipelineResult.State.DONE));
      differences.addAll(check(out, "flink run " + run + (onArrival ? " on arrival" : "")));
    }
    assertThat(String.join("\n", differences), differences, equalTo(List.of()));
  }
}
