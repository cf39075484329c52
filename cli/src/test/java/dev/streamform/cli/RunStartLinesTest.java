package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.is;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Project;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lines {@code streamform run} prints at the start of a Kafka run: where a run without a
 * savepoint reads its source from, with what the output topics already hold (docs/decisions/0142),
 * and, for an upsert model applied in log order, that a partition's last records wait for every
 * partition's watermark and what releases them (docs/decisions/0143).
 */
class RunStartLinesTest {
  private static final Path ORDERS_KAFKA = Path.of("../end-to-end/src/test/resources/orders-kafka");
  private static final Path DUPLICATES = Path.of("../test-streams/fixtures/duplicates/orders");

  @TempDir Path dir;

  @Test
  void aRunWithoutASavepointSaysItReadsFromTheEarliestOffsetsAndWhatTheOutputsHold() {
    Map<String, Long> held = new LinkedHashMap<>();
    held.put("soak_metrics", 120L);
    held.put("soak_metrics.late", 0L);
    held.put("soak_metrics.quarantine", 1L);
    assertThat(
        RunCommand.readingLine("soak_orders", held),
        is(
            "streamform run: reading soak_orders from its earliest offsets (no savepoint): what"
                + " earlier runs published is published again (a Flink job restored with"
                + " --from-savepoint continues instead: docs/guides/kafka.md); the output topics"
                + " already hold soak_metrics 120 records, soak_metrics.quarantine 1 record"));
  }

  /** Every count {@code run} prints is grouped in thousands as its summary is (Counts.grouped). */
  @Test
  void countsOfAThousandAndMoreAreGroupedInThousands() {
    Map<String, Long> held = new LinkedHashMap<>();
    held.put("soak_metrics", 12_345L);
    held.put("soak_metrics.quarantine", 1_000L);
    assertThat(
        RunCommand.readingLine("soak_orders", held),
        endsWith(
            "; the output topics already hold soak_metrics 12,345 records,"
                + " soak_metrics.quarantine 1,000 records"));
    // run --shadow's line about the live run's too-late events
    assertThat(
        LateEventsRecomputed.line(
            "live/soak_metrics.late.jsonl",
            new LateEventsRecomputed.Result(2_500, 0, 1_200, ""),
            2),
        is(
            "too-late events of the live run (live/soak_metrics.late.jsonl, 2,500 rows): 1,200 in"
                + " generation 2's revisions, 1,300 still outside them"));
  }

  @Test
  void emptyOrNewOutputsAreSaidToHoldNothingAndUnknownOnesAreNotGuessed() {
    assertThat(
        RunCommand.readingLine("soak_orders", Map.of("soak_metrics", 0L)),
        is(
            "streamform run: reading soak_orders from its earliest offsets (no savepoint); its"
                + " output topics hold no records yet"));
    assertThat(
        RunCommand.readingLine("soak_orders", null),
        is(
            "streamform run: reading soak_orders from its earliest offsets (no savepoint): if"
                + " earlier runs wrote to its output topics, what earlier runs published is"
                + " published again (a Flink job restored with --from-savepoint continues instead:"
                + " docs/guides/kafka.md)"));
  }

  @Test
  void anUpsertModelInLogOrderSaysItsLastRecordsWaitForEveryPartition() throws Exception {
    DeclaredModel upsert = DeclaredModel.of(Project.load(ORDERS_KAFKA), "customer_metrics");
    assertThat(
        RunCommand.logOrderLine(upsert, false, "direct"),
        is(
            Optional.of(
                "streamform run: customer_metrics applies events in log order (on direct): a"
                    + " partition's last records are applied only once every partition's"
                    + " watermark has passed them; a silent partition holds them back until"
                    + " records or punctuations move its watermark (no idle_after is declared,"
                    + " which would release it after a silence)")));
    // on Flink it applies on arrival: nothing waits
    assertThat(RunCommand.logOrderLine(upsert, true, "flink"), is(Optional.empty()));
  }

  @Test
  void idleAfterIsNamedAsWhatReleasesThem() throws Exception {
    Path project = copy(ORDERS_KAFKA);
    Path sources = project.resolve("sources.yml");
    Files.writeString(
        sources,
        Files.readString(sources)
            .replace("    watermark: 5m\n", "    watermark: 5m\n    idle_after: 2m\n"));
    DeclaredModel upsert = DeclaredModel.of(Project.load(project), "customer_metrics");
    assertThat(
        RunCommand.logOrderLine(upsert, false, "direct").orElseThrow(),
        is(
            "streamform run: customer_metrics applies events in log order (on direct): a"
                + " partition's last records are applied only once every partition's watermark"
                + " has passed them; a silent partition holds them back until it has been silent"
                + " for idle_after (2m) or records or punctuations move its watermark"));
  }

  @Test
  void sourceWideEventIdsApplyInLogOrderOnFlinkToo() throws Exception {
    Project loaded = Project.load(DUPLICATES);
    assertThat(
        RunCommand.logOrderLine(DeclaredModel.of(loaded, "customer_metrics"), true, "flink")
            .orElseThrow(),
        is(
            "streamform run: customer_metrics applies events in log order (its source's event_id"
                + " is unique source-wide, not per key): a"
                + " partition's last records are applied only once every partition's watermark"
                + " has passed them; a silent partition holds them back until records or"
                + " punctuations move its watermark (no idle_after is declared, which would"
                + " release it after a silence)"));
  }

  /**
   * A windowed model in log order (the DirectRunner): a correction that is a quiet partition's last
   * record waits for the watermark to pass it, and run says so as for an upsert model (found by an
   * audit: the notice and the guide spoke of upsert models only); on Flink it is applied on arrival
   * and nothing is said. With event_id the duplicate detection hands events over in log order too,
   * and a correction waiting there holds back nothing else (it held every window's firing: a
   * read-only audit of determinism saw revision 1 of every key wait on a quiet topic; fixed in the
   * engine, LateEventWaitingForItsIdTest), so the line is the same.
   */
  @Test
  void aWindowedModelInLogOrderSaysALastCorrectionWaits() throws Exception {
    Project loaded = Project.load(DUPLICATES);
    assertThat(
        RunCommand.logOrderLine(DeclaredModel.of(loaded, "hourly_spend"), false, "direct")
            .orElseThrow(),
        is(
            "streamform run: hourly_spend applies events in log order (on direct): a correction"
                + " of a window that has its revision is applied only once every partition's"
                + " watermark has passed it, so a correction that is its partition's last record"
                + " waits; a silent partition holds it back until records or punctuations move"
                + " its watermark (no idle_after is declared, which would release it after a"
                + " silence)"));
    // on Flink too: a windowed model with a source-wide event_id keeps log order (found by a
    // read-only audit of the gates on Kafka: nothing said that its corrections wait)
    assertThat(
        RunCommand.logOrderLine(DeclaredModel.of(loaded, "hourly_spend"), true, "flink")
            .orElseThrow(),
        is(
            "streamform run: hourly_spend applies events in log order (its source's event_id is"
                + " unique source-wide, not per key): a correction of a window that has its"
                + " revision is applied only once every partition's watermark has passed it, so a"
                + " correction that is its partition's last record waits; a silent partition holds"
                + " it back until records or punctuations move its watermark (no idle_after is"
                + " declared, which would release it after a silence)"));
  }

  /**
   * On Flink without event_id a windowed model applies events as they arrive, but a correction that
   * arrives before its window's revision 1 follows it only once every partition's watermark has
   * passed the one it arrived at (docs/decisions/0189): the line says so (found by a read-only
   * audit of the gates on Kafka: the Kafka guide said such a correction was applied on arrival, and
   * a quiet partition's last one waited 107 s).
   */
  @Test
  void aWindowedModelOnArrivalSaysACorrectionBeforeRevisionOneWaits() throws Exception {
    Project loaded = Project.load(Path.of("../end-to-end/src/test/resources/payments-kafka"));
    assertThat(
        RunCommand.logOrderLine(DeclaredModel.of(loaded, "hourly_revenue"), true, "flink")
            .orElseThrow(),
        is(
            "streamform run: hourly_revenue applies events as they arrive (on flink), except a"
                + " correction that arrives before its window's revision 1 (its own partition's"
                + " watermark is past the window's end, another partition's is not yet): it"
                + " follows revision 1 once every partition's watermark has passed the one it"
                + " arrived at, so one that is its partition's last record waits; a silent"
                + " partition holds it back until records or punctuations move its watermark (no"
                + " idle_after is declared, which would release it after a silence)"));
  }

  private Path copy(Path from) throws Exception {
    Path copy = dir.resolve("project");
    try (Stream<Path> all = Files.walk(from)) {
      for (Path f : (Iterable<Path>) all::iterator) {
        Path to = copy.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to);
        }
      }
    }
    return copy;
  }
}
