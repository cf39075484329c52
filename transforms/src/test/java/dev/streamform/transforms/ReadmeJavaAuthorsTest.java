package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "For Java authors" pipeline, exactly as printed there (the code between the {@code
 * README} markers below must be the README's snippet, which the first test checks), fed the seed's
 * late-event log by a bounded {@code Create.of}: 40 runs on the DirectRunner and 3 on Flink at
 * parallelism 2 each give the seed's answer — insert 10, update 30, update 31, the 10:01 event late
 * (docs/semantics.md §5, fixture 1).
 */
class ReadmeJavaAuthorsTest {
  private static final int DIRECT_RUNS = 40;
  private static final int FLINK_RUNS = 3;

  private static Instant at(String hhmm) {
    return Instant.parse("2026-08-30T" + hhmm + ":00Z");
  }

  /** The seed's late-event log: partition 0, offsets 0..3. */
  private static List<SourceRecord> seedLog(Schema schema) {
    long[] customers = {42, 42, 42, 42};
    String[] amounts = {"10", "20", "5", "1"};
    String[] times = {"10:00", "10:10", "10:01", "10:06"};
    List<SourceRecord> log = new ArrayList<>();
    for (int offset = 0; offset < 4; offset++) {
      Row order =
          Row.withSchema(schema)
              .addValues(customers[offset], new BigDecimal(amounts[offset]), at(times[offset]))
              .build();
      log.add(SourceRecord.of(0, offset, Instant.now(), order));
    }
    return log;
  }

  /**
   * Builds the README's pipeline on {@code pipeline}, its outputs written as lines under {@code
   * out}.
   */
  private static void readmePipeline(Pipeline pipeline, Path out) {
    Schema schema =
        Schema.builder()
            .addInt64Field("customer_id")
            .addDecimalField("amount")
            .addDateTimeField("ordered_at")
            .build();
    List<SourceRecord> log = seedLog(schema);
    // spotless:off (the docs show this code as it is written here)
    // README begin
    PCollection<SourceRecord> records =                   // (partition, offset, Row): a log
        pipeline.apply(Create.of(log).withCoder(SourceRecordCoder.of(schema)));
    ClockResult clocked = records
        .apply(EventTimeExtraction.from("ordered_at"))    // .quarantined(): BadRecords with reasons
        .events()
        .apply(SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
            .withContiguousOffsets()                      // offsets 0, 1, 2, ... without gaps
            .droppingLateEvents());
    PCollection<ChangelogRecord> changes = clocked.events()   // .late(): events with the W they lost to
        .apply(KeyedChangelog.by("customer_id")
            .aggregating(Aggregation.sum("amount").as("total_spend"))
            .withRetention(Duration.standardMinutes(10)));
    // README end
    // spotless:on
    changes
        .apply(
            "ChangelogLines",
            MapElements.into(TypeDescriptors.strings()).via(Scenario::changelogLine))
        .apply("WriteChangelog", ParDo.of(new Scenario.LinesToFiles(out.resolve("changelog"))));
    clocked
        .late()
        .apply("LateLines", MapElements.into(TypeDescriptors.strings()).via(Scenario::lateLine))
        .apply("WriteLate", ParDo.of(new Scenario.LinesToFiles(out.resolve("late"))));
  }

  /**
   * The seed's answer, by hand from docs/semantics.md §5 (sorted as {@link Scenario#readLines}
   * sorts).
   */
  private static final List<String> CHANGELOG =
      List.of("p0/0 insert 42 10", "p0/1 update 42 30", "p0/3 update 42 31");

  private static final List<String> LATE =
      List.of("p0/2 2026-08-30T10:01:00.000Z < 2026-08-30T10:05:00.000Z");

  private static List<String> runsThatDiffer(Path dir, String runner, int runs) throws IOException {
    List<String> wrong = new ArrayList<>();
    for (int run = 1; run <= runs; run++) {
      Path out = dir.resolve(runner + "-" + run);
      Pipeline p =
          runner.equals("direct") ? SeedStreams.pipeline() : FlinkParityTest.flinkPipeline();
      readmePipeline(p, out);
      assertEquals(PipelineResult.State.DONE, p.run().waitUntilFinish(), runner + " run " + run);
      List<String> changelog = Scenario.readLines(out.resolve("changelog"));
      List<String> late = Scenario.readLines(out.resolve("late"));
      if (!changelog.equals(CHANGELOG) || !late.equals(LATE)) {
        wrong.add(runner + " run " + run + ": changelog " + changelog + " late " + late);
      }
    }
    return wrong;
  }

  @Test
  void theSnippetIsTheReadmes() throws IOException {
    Path page = Paths.get("docs/guides/java-authors.md");
    Path readme =
        Files.isRegularFile(Paths.get("..").resolve(page)) ? Paths.get("..").resolve(page) : page;
    Path self = Paths.get("src/test/java/dev/streamform/transforms/ReadmeJavaAuthorsTest.java");
    String source =
        Files.readString(Files.isRegularFile(self) ? self : Paths.get("transforms").resolve(self));
    String snippet =
        source.substring(
            source.indexOf("// README begin\n") + "// README begin\n".length(),
            source.indexOf("    // README end"));
    String text = Files.readString(readme);
    int start = text.indexOf("# For Java authors");
    String section = text.substring(start, text.indexOf("\n## ", start + 1));
    assertTrue(
        normalized(section).contains(normalized(snippet)),
        "docs/guides/java-authors.md no longer shows the pipeline this test runs:\n" + snippet);
  }

  /** Lines without their common indentation. */
  private static String normalized(String code) {
    return code.lines().map(String::strip).collect(Collectors.joining("\n"));
  }

  @Test
  void fortyRunsOnTheDirectRunnerGiveTheSeedsAnswer(@TempDir Path dir) throws IOException {
    assertEquals(List.of(), runsThatDiffer(dir, "direct", DIRECT_RUNS));
  }

  @Test
  void threeRunsOnFlinkAtParallelismTwoGiveTheSeedsAnswer(@TempDir Path dir) throws IOException {
    assertEquals(List.of(), runsThatDiffer(dir, "flink", FLINK_RUNS));
  }
}
