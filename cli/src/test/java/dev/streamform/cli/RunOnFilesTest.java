package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.sinks.JsonRecords;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code streamform run} on a file source: the same events as a fixture give the same changelog (or
 * window records) and late rows as the fixture's own run; bad lines are quarantined with their file
 * and line; the counts add up.
 */
class RunOnFilesTest {
  private static final Path TIME = Path.of("../test-streams/fixtures/time");
  private static final Path EXAMPLE = Path.of("../examples/orders-on-file");
  private static final Path RECEIPTS = Path.of("../test-streams/fixtures/decisions/receipts");
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  /**
   * A seed fixture project with its source turned into files, one per partition, each holding the
   * fixture's items of that partition in order (a watermark item without partition in every file):
   * the file run's outputs equal the fixture run's, row for row, identity and offsets included.
   */
  @ParameterizedTest
  @CsvSource({
    "late-event, late_event",
    "retention, retention",
    "watermark-items, watermark_items",
    "hourly-revenue, hourly_revenue",
    "two-partitions, partition_behind",
    "early-results, previews",
    "hopping-revenue, hopping_revenue",
  })
  void aFileOfAFixturesEventsGivesTheFixturesOutputs(String projectName, String fixtureName)
      throws Exception {
    Path project = copyAsFileProject(TIME.resolve(projectName), dir.resolve(projectName));
    Project loaded = Project.load(project);
    Fixture fixture = Fixture.load(loaded, fixtureFile(project, fixtureName));
    writeFiles(project, fixture);
    DeclaredModel model = DeclaredModel.of(loaded, fixture.model());
    FixtureOutcome expected = FixtureRunner.on(RunnerChoice.direct()).run(model, fixture);

    Path output = dir.resolve("out");
    assertThat(
        err.toString(),
        run("run", project.toString(), "--model", fixture.model(), "--output", output.toString()),
        is(0));
    String name = fixture.model();
    List<JsonNode> records = rows(output.resolve(name + ".jsonl"));
    List<JsonNode> late = rows(output.resolve(name + ".late.jsonl"));

    if (model.windowed()) {
      List<String> want = new ArrayList<>();
      for (FixtureOutcome.Revision r : expected.revisions) {
        Map<String, Object> offsets = new TreeMap<>();
        r.offsets.forEach(
            (p, o) -> offsets.put(p.toString(), o.min() + "/" + o.max() + "/" + o.count()));
        want.add(
            windowRow(
                r.windowStart.toString(),
                r.columns(),
                r.revision,
                r.status,
                r.logicalWindowId,
                r.projectionId,
                r.aggregateDigest,
                offsets));
      }
      List<String> got = new ArrayList<>();
      for (JsonNode r : records) {
        Map<String, Object> columns = new LinkedHashMap<>();
        model.outputColumns().keySet().forEach(c -> columns.put(c, r.get(c)));
        Map<String, Object> offsets = new TreeMap<>();
        r.get("offsets")
            .fields()
            .forEachRemaining(
                e ->
                    offsets.put(
                        e.getKey(),
                        e.getValue().get("min")
                            + "/"
                            + e.getValue().get("max")
                            + "/"
                            + e.getValue().get("count")));
        got.add(
            windowRow(
                Instant.parse(r.get("window_start").asText()).toString(),
                columns,
                r.get("revision").asInt(),
                r.get("status").asText(),
                r.get("logical_window_id").asText(),
                r.get("projection_id").asText(),
                r.get("aggregate_digest").asText(),
                offsets));
      }
      // per (key, window) in order; between windows the order is not part of the contract
      assertThat(sortedByWindow(got), is(sortedByWindow(want)));
    } else {
      List<String> want = new ArrayList<>();
      expected.changelog.forEach(c -> want.add(c.eventId + " " + c.op + " " + text(c.values)));
      List<String> got = new ArrayList<>();
      for (JsonNode r : records) {
        Map<String, Object> values = new LinkedHashMap<>();
        model.outputColumns().keySet().forEach(c -> values.put(c, r.get(c)));
        got.add(r.get("__event").asText() + " " + r.get("op").asText() + " " + text(values));
      }
      assertThat(got, is(want));
    }
    List<String> wantLate = new ArrayList<>();
    expected.late.forEach(d -> wantLate.add(d.eventId + " " + d.windowStart));
    List<String> gotLate = new ArrayList<>();
    late.forEach(
        l ->
            gotLate.add(
                l.get("partition").asInt()
                    + "-"
                    + l.get("offset").asLong()
                    + " "
                    + (l.has("window_start")
                        ? Instant.parse(l.get("window_start").asText())
                        : null)));
    assertThat(gotLate, is(wantLate));
    // the same processed count as the fixture's; the command exits 0 only when the counts add up
    assertThat(
        out.toString(),
        containsString(
            expected.processed + " event" + (expected.processed == 1 ? "" : "s") + " processed, "));
  }

  /**
   * A scoring model on files (issue 32): the receipts project's fixture events as files give the
   * fixture's decisions — the same ids, so the same transform — plus its late events, reconcile
   * route and dead letters, each in its own file with the file and line it came from.
   */
  @ParameterizedTest
  @CsvSource({"offline_uploads", "reconciled"})
  void aScoringModelOnFilesDecidesAsItsFixtureDoes(String fixtureName) throws Exception {
    Path project = copyAsFileProject(RECEIPTS, dir.resolve("receipts"));
    Project loaded = Project.load(project);
    Fixture fixture = Fixture.load(loaded, fixtureFile(project, fixtureName));
    writeFiles(project, fixture);
    DeclaredModel model = DeclaredModel.of(loaded, fixture.model());
    FixtureOutcome expected = FixtureRunner.on(RunnerChoice.direct()).run(model, fixture);

    Path output = dir.resolve("out");
    assertThat(
        err.toString(),
        run("run", project.toString(), "--model", fixture.model(), "--output", output.toString()),
        is(0));
    String name = fixture.model();
    Map<String, List<String>> want = new TreeMap<>();
    for (FixtureOutcome.Routed r : expected.routed) {
      String row =
          r.eventId()
              + " "
              + r.route()
              + (r.identity().containsKey("decision_id")
                  ? " r" + r.revision() + " " + r.identity().get("decision_id")
                  : "");
      want.computeIfAbsent(r.route(), k -> new ArrayList<>()).add(row);
    }
    Map<String, List<String>> got = new TreeMap<>();
    for (JsonNode d : rows(output.resolve(name + ".decisions.jsonl"))) {
      got.computeIfAbsent(d.get("route").asText(), k -> new ArrayList<>())
          .add(
              d.get("event_id").asText()
                  + " "
                  + d.get("route").asText()
                  + " r"
                  + d.get("revision").asInt()
                  + " "
                  + d.get("decision_id").asText());
      assertThat(
          d.toString(), d.get("file").asText(), is("orders-" + d.get("partition") + ".jsonl"));
    }
    for (String late : List.of(".late.jsonl", ".reconcile.jsonl")) {
      for (JsonNode l : rows(output.resolve(name + late))) {
        got.computeIfAbsent(l.get("route").asText(), k -> new ArrayList<>())
            .add(l.get("event_id").asText() + " " + l.get("route").asText());
      }
    }
    for (JsonNode q : rows(output.resolve(name + ".dead_letters.jsonl"))) {
      got.computeIfAbsent("dead_lettered", k -> new ArrayList<>())
          .add(q.get("partition") + "-" + q.get("offset") + " dead_lettered");
      assertThat(q.toString(), q.get("line").asLong(), is(q.get("offset").asLong() + 1));
    }
    got.values().forEach(java.util.Collections::sort);
    want.values().forEach(java.util.Collections::sort);
    assertThat(got, is(want));
    long decided = expected.routed.stream().filter(r -> r.route().equals("scored")).count();
    assertThat(out.toString(), containsString(decided + " decided ("));
  }

  /**
   * ADR 0071 on files: with {@code event_id: receipt_id} every output names the receipt by its id —
   * decisions, late rows and the clock-skew dead letter alike — with its place beside it.
   */
  @Test
  void everyOutputOfAScoringModelNamesTheEventByItsDeclaredId() throws Exception {
    Path project =
        copyAsFileProject(
            Path.of("../test-streams/fixtures/decisions/retried_receipts"), dir.resolve("rr"));
    Project loaded = Project.load(project);
    Fixture fixture = Fixture.load(loaded, fixtureFile(project, "uploads"));
    writeFiles(project, fixture);
    Path output = dir.resolve("rr-out");
    assertThat(
        err.toString(),
        run("run", project.toString(), "--model", "receipt_risk", "--output", output.toString()),
        is(0));
    List<String> named = new ArrayList<>();
    for (String file : List.of(".decisions.jsonl", ".late.jsonl", ".dead_letters.jsonl")) {
      for (JsonNode r : rows(output.resolve("receipt_risk" + file))) {
        if (r.hasNonNull("event_id")) {
          named.add(
              r.get("event_id").asText()
                  + " at "
                  + r.get("partition").asInt()
                  + "-"
                  + r.get("offset").asLong());
        }
      }
    }
    assertThat(named, hasItem("r6 at 1-2")); // dead-lettered: 6 minutes ahead of its arrival
    assertThat(named, hasItem("r7 at 0-4")); // late, revising
    assertThat(named, hasItem("r1 at 0-0")); // scored
    for (String n : named) {
      assertThat(n, startsWith("r"));
    }
  }

  @Test
  void theShippedSampleQuarantinesItsBadLinesWithFileAndLineAndCountsAddUp() throws Exception {
    Path output = dir.resolve("out");
    assertThat(
        err.toString(),
        run(
            "run",
            EXAMPLE.toString(),
            "--model",
            "customer_metrics",
            "--output",
            output.toString()),
        is(0));
    assertThat(
        out.toString(),
        containsString(
            "13 lines read: 7 events processed, 3 late, 2 quarantined, 1 watermark line\n"));
    List<JsonNode> quarantined = rows(output.resolve("customer_metrics.quarantine.jsonl"));
    assertThat(quarantined.size(), is(2));
    assertThat(quarantined.get(0).get("file").asText(), is("orders.jsonl"));
    assertThat(quarantined.get(0).get("line").asInt(), is(5));
    assertThat(quarantined.get(0).get("reason").asText(), containsString("not JSON"));
    assertThat(quarantined.get(0).get("value").asText(), is("this line is not JSON"));
    assertThat(quarantined.get(1).get("line").asInt(), is(7));
    assertThat(
        quarantined.get(1).get("reason").asText(),
        is("no value for event-time column `ordered_at`"));
    // 13 lines, every one of them somewhere: 7 changelog rows (one per processed event), 3 late
    long lines =
        Files.readAllLines(EXAMPLE.resolve("orders.jsonl")).stream()
            .filter(l -> !l.isBlank())
            .count();
    long records = rows(output.resolve("customer_metrics.jsonl")).size();
    long late = rows(output.resolve("customer_metrics.late.jsonl")).size();
    assertThat(records + late + quarantined.size() + 1, is(lines));
  }

  @Test
  void theShippedSampleGivesWhatItsFixturesExpect() throws Exception {
    // the sample's fixtures hold its good lines; streamform test passes them
    assertThat(err.toString(), run("test", EXAMPLE.toString()), is(0));
    Path output = dir.resolve("out");
    assertThat(
        err.toString(),
        run("run", EXAMPLE.toString(), "--model", "hourly_revenue", "--output", output.toString()),
        is(0));
    assertThat(
        out.toString(),
        containsString(
            "13 lines read: 9 events processed, 1 late, 2 quarantined, 1 watermark line\n"));
    Project loaded = Project.load(EXAMPLE);
    Fixture fixture = Fixture.load(loaded, EXAMPLE.resolve("fixtures/hourly_revenue.yml"));
    List<String> want = new ArrayList<>();
    for (Fixture.Row r : fixture.expect()) {
      want.add(
          r.windowStart().get()
              + " "
              + r.values().get("merchant_id")
              + " "
              + decimal(r.values().get("revenue"))
              + " "
              + r.values().get("orders")
              + " "
              + r.revision().get()
              + " "
              + r.status().get().yamlName());
    }
    List<String> got = new ArrayList<>();
    for (JsonNode r : rows(output.resolve("hourly_revenue.jsonl"))) {
      got.add(
          Instant.parse(r.get("window_start").asText())
              + " "
              + r.get("merchant_id").asLong()
              + " "
              + decimal(r.get("revenue").decimalValue())
              + " "
              + r.get("orders").asLong()
              + " "
              + r.get("revision").asInt()
              + " "
              + r.get("status").asText());
    }
    assertThat(got, is(want));
  }

  /**
   * Issue 16: the duplicates project's file holds its upsert fixture's events; the file run drops
   * the same duplicate, quarantines the same conflict and emits the same changelog as the fixture,
   * writes the duplicate with its file and line, prints the count, and the counts add up.
   */
  @Test
  void aFileWithRepeatedOrderIdsGivesTheFixturesDuplicatesAndConflicts() throws Exception {
    Path project = Path.of("../test-streams/fixtures/duplicates/orders");
    Project loaded = Project.load(project);
    Fixture fixture = Fixture.load(loaded, fixtureFile(project, "customer_duplicates"));
    FixtureOutcome expected =
        FixtureRunner.on(RunnerChoice.direct())
            .run(DeclaredModel.of(loaded, "customer_metrics"), fixture);
    Path output = dir.resolve("out");
    assertThat(
        err.toString(),
        run(
            "run",
            project.toString(),
            "--model",
            "customer_metrics",
            "--output",
            output.toString()),
        is(0));
    assertThat(
        out.toString(),
        containsString("12 lines read: 6 events processed, 3 late, 1 duplicate, 2 quarantined\n"));
    assertThat(out.toString(), containsString("customer_metrics.duplicates.jsonl (1 row)"));

    List<String> want = new ArrayList<>();
    expected.changelog.forEach(c -> want.add(c.eventId + " " + c.op + " " + text(c.values)));
    List<String> got = new ArrayList<>();
    for (JsonNode r : rows(output.resolve("customer_metrics.jsonl"))) {
      Map<String, Object> values = new LinkedHashMap<>();
      values.put("customer_id", r.get("customer_id"));
      values.put("total_spend", r.get("total_spend"));
      got.add(r.get("__event").asText() + " " + r.get("op").asText() + " " + text(values));
    }
    assertThat(got, is(want));
    List<JsonNode> duplicates = rows(output.resolve("customer_metrics.duplicates.jsonl"));
    assertThat(duplicates.size(), is(expected.duplicates.size()));
    JsonNode d = duplicates.get(0);
    assertThat(
        d.get("partition").asInt() + "-" + d.get("offset").asLong(),
        is(expected.duplicates.get(0).eventId));
    assertThat(d.get("line").asInt(), is(2));
    assertThat(d.get("record").get("order_id").asText(), is("A-1"));
    assertThat(d.get("reason").asText(), containsString("event_id `order_id` = A-1"));
    List<JsonNode> quarantined = rows(output.resolve("customer_metrics.quarantine.jsonl"));
    assertThat(quarantined.size(), is(2));
    assertThat(quarantined.get(0).get("line").asInt(), is(4));
    assertThat(quarantined.get(0).get("reason").asText(), is(expected.quarantined.get(0).reason));
    assertThat(quarantined.get(1).get("line").asInt(), is(12));
    assertThat(quarantined.get(1).get("reason").asText(), is(expected.quarantined.get(1).reason));
    assertThat(
        rows(output.resolve("customer_metrics.late.jsonl")).size(), is(expected.late.size()));
  }

  @Test
  void aPathThatMatchesNoFileIsNamedWithTheFix() throws Exception {
    Path project = copyAsFileProject(TIME.resolve("late-event"), dir.resolve("p"));
    assertThat(run("run", project.toString(), "--model", "customer_metrics"), is(1));
    // at its line of sources.yml, as check warns of it (ADR 0119)
    List<String> lines = Files.readAllLines(project.resolve("sources.yml"));
    int line = 1 + lines.indexOf(lines.stream().filter(l -> l.contains("path:")).findFirst().get());
    assertThat(
        err.toString(),
        containsString(
            "streamform run: sources.yml:"
                + line
                + ": source 'orders', key 'path': orders-*.jsonl matches no file under "
                + project
                + " — create it, or give a file of JSON lines (or a glob such as orders/*.jsonl)"
                + " relative to the project folder"));
  }

  /** The shipped sample copied to {@code to} with its source's path: set to {@code path}. */
  private static Path sampleWithPath(Path to, String path) throws Exception {
    try (Stream<Path> files = Files.walk(EXAMPLE)) {
      for (Path f : (Iterable<Path>) files.sorted(Comparator.naturalOrder())::iterator) {
        Path rel = EXAMPLE.relativize(f);
        if (rel.startsWith("target")) {
          continue;
        }
        Path target = to.resolve(rel.toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target);
        }
      }
    }
    Path sources = to.resolve("sources.yml");
    Files.writeString(
        sources, Files.readString(sources).replace("path: orders.jsonl", "path: \"" + path + "\""));
    return to;
  }

  /**
   * A glob that also matches the output folder (the default, target/<model>): a rerun reads the
   * same input as the first run, not the first run's outputs, and says what it left out (ADR 0217).
   */
  @Test
  void aGlobReadsNoOutputOfAPreviousRun() throws Exception {
    Path project = sampleWithPath(dir.resolve("p"), "**.jsonl");
    Path folder = project.resolve("target").resolve("customer_metrics");
    assertThat(
        err.toString(), run("run", project.toString(), "--model", "customer_metrics"), is(0));
    String first = Files.readString(folder.resolve("customer_metrics.quarantine.jsonl"));
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);

    assertThat(
        err.toString(), run("run", project.toString(), "--model", "customer_metrics"), is(0));

    assertThat(err.toString(), containsString(": 1 file (orders.jsonl) -> "));
    assertThat(
        err.toString(),
        containsString(
            "streamform run: left out 3 files under the output folder "
                + folder
                + " that path: **.jsonl matches: a run's outputs are not its input\n"));
    assertThat(
        out.toString(),
        containsString(
            "13 lines read: 7 events processed, 3 late, 2 quarantined, 1 watermark line\n"));
    assertThat(Files.readString(folder.resolve("customer_metrics.quarantine.jsonl")), is(first));
  }

  /** A link among a glob's matches to a file it matches too: the file is read once. */
  @Test
  void aLinkToAFileTheGlobMatchesIsReadOnce() throws Exception {
    Path project = sampleWithPath(dir.resolve("p"), "orders/*.jsonl");
    Files.createDirectories(project.resolve("orders"));
    Files.move(project.resolve("orders.jsonl"), project.resolve("orders/a.jsonl"));
    Files.createSymbolicLink(project.resolve("orders/d.jsonl"), Path.of("a.jsonl"));
    Path output = dir.resolve("out");

    assertThat(
        err.toString(),
        run(
            "run",
            project.toString(),
            "--model",
            "customer_metrics",
            "--output",
            output.toString()),
        is(0));

    assertThat(err.toString(), containsString(": 1 file (orders/a.jsonl) -> "));
    assertThat(
        err.toString(),
        containsString(
            "streamform run: left out orders/d.jsonl (the same file as orders/a.jsonl) that path:"
                + " orders/*.jsonl matches: each file is read once\n"));
    assertThat(
        out.toString(),
        containsString(
            "13 lines read: 7 events processed, 3 late, 2 quarantined, 1 watermark line\n"));
  }

  /**
   * A line is blank only when it holds nothing but spaces, tabs and a carriage return; a line of
   * other characters Java calls white space (U+001F, U+3000, a vertical tab and form feed, U+2028)
   * is not JSON and is quarantined, counted.
   */
  @Test
  void aLineOfOtherWhiteSpaceIsQuarantinedNotSkipped() throws Exception {
    Path project = sampleWithPath(dir.resolve("p"), "orders.jsonl");
    String event =
        "{\"customer_id\":42,\"merchant_id\":1,\"amount\":10.00,"
            + "\"ordered_at\":\"2026-08-30T10:00:00Z\"}";
    Files.writeString(
        project.resolve("orders.jsonl"),
        String.join(
                "\n",
                event,
                "\r",
                " \t ",
                "\u001f",
                "\u3000",
                "\u000b\u000c",
                "\u2028",
                event.replace("10:00:00Z", "10:01:00Z"))
            + "\n");
    Path output = dir.resolve("out");

    assertThat(
        err.toString(),
        run(
            "run",
            project.toString(),
            "--model",
            "customer_metrics",
            "--output",
            output.toString()),
        is(0));

    assertThat(
        out.toString(),
        containsString("6 lines read: 2 events processed, 0 late, 4 quarantined\n"));
    List<JsonNode> quarantined = rows(output.resolve("customer_metrics.quarantine.jsonl"));
    assertThat(
        quarantined.stream().map(q -> q.get("line").asInt()).collect(Collectors.toList()),
        is(List.of(4, 5, 6, 7)));
    for (JsonNode q : quarantined) {
      assertThat(q.toString(), q.get("reason").asText(), startsWith("not JSON"));
    }
  }

  /**
   * A model whose columns are named partition and offset: its changelog rows are its own, written
   * as on Kafka, with no file or line; the quarantine rows still name theirs.
   */
  @Test
  void aChangelogWithColumnsNamedPartitionAndOffsetGetsNoFileOrLine() throws Exception {
    Path project = sampleWithPath(dir.resolve("p"), "orders.jsonl");
    Files.writeString(
        project.resolve("models/customer_metrics.sql"),
        "SELECT customer_id AS \"partition\", SUM(amount) AS total_spend, COUNT(*) AS"
            + " \"offset\" FROM source('orders') GROUP BY customer_id\n");
    Path config = project.resolve("streamform.yml");
    Files.writeString(
        config,
        Files.readString(config).replaceFirst("key: \\[customer_id\\]", "key: [partition]"));
    Path output = dir.resolve("out");

    assertThat(
        err.toString(),
        run(
            "run",
            project.toString(),
            "--model",
            "customer_metrics",
            "--output",
            output.toString()),
        is(0));

    List<String> changelog = Files.readAllLines(output.resolve("customer_metrics.jsonl"));
    assertThat(
        changelog.get(0),
        is(
            "{\"op\":\"insert\",\"partition\":42,\"total_spend\":10.00,\"offset\":1,"
                + "\"__event\":\"0-0\"}"));
    for (String row : changelog) {
      assertThat(row, JSON.readTree(row).has("file") || JSON.readTree(row).has("line"), is(false));
    }
    List<JsonNode> quarantined = rows(output.resolve("customer_metrics.quarantine.jsonl"));
    assertThat(quarantined.get(0).get("file").asText(), is("orders.jsonl"));
    assertThat(quarantined.get(0).get("line").asInt(), is(5));
  }

  /** --partitions sizes the topics a run creates; a run that writes files creates none. */
  @Test
  void partitionsForARunThatWritesFilesAreRefusedNotIgnored() throws Exception {
    Path output = dir.resolve("o");
    assertThat(
        run(
            "run",
            EXAMPLE.toString(),
            "--model",
            "customer_metrics",
            "--output",
            output.toString(),
            "--partitions",
            "7"),
        is(2));
    assertThat(
        err.toString(),
        is(
            "streamform run: --partitions 7 sizes the topics a run creates, and this run writes"
                + " files: give --bootstrap-servers to write topics, or leave out --partitions —"
                + " see 'streamform run --help'\n"));
    assertThat(Files.exists(output), is(false));
  }

  /** --jdbc-user and --jdbc-password-file say who connects to --jdbc-url's database. */
  @Test
  void databaseCredentialsWithoutADatabaseAreRefusedNotIgnored() throws Exception {
    Path output = dir.resolve("o");
    assertThat(
        run(
            "run",
            EXAMPLE.toString(),
            "--model",
            "customer_metrics",
            "--output",
            output.toString(),
            "--jdbc-user",
            "postgres"),
        is(2));
    assertThat(
        err.toString(),
        is(
            "streamform run: --jdbc-user postgres says who connects to the database --jdbc-url"
                + " names, and no --jdbc-url is given: add --jdbc-url URL, or leave out"
                + " --jdbc-user — see 'streamform run --help'\n"));
    assertThat(Files.exists(output), is(false));
  }

  /**
   * An event whose value would take an int64 sum outside int64 does not stop the run (one bad
   * record never stops a job): it is quarantined with a reason naming the column, and its file and
   * line, and the key goes on without it.
   */
  @Test
  void anEventWhoseInt64SumWouldOverflowIsQuarantinedWithItsFileAndLine() throws Exception {
    Path project = dir.resolve("overflow");
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  orders:\n    connector: file\n    path: orders.jsonl\n    format: json\n"
            + "    schema:\n      customer_id: int64\n      qty: int64\n"
            + "      ordered_at: timestamp\n    event_time: ordered_at\n    watermark: 5m\n");
    Files.writeString(project.resolve("streamform.yml"), "models:\n  m:\n    key: [customer_id]\n");
    Files.writeString(
        project.resolve("models/m.sql"),
        "SELECT customer_id, SUM(qty) AS total FROM source('orders') GROUP BY customer_id\n");
    Files.writeString(
        project.resolve("orders.jsonl"),
        "{\"customer_id\":2,\"qty\":1,\"ordered_at\":\"2026-08-30T10:00:00Z\"}\n"
            + "{\"customer_id\":1,\"qty\":9223372036854775000,\"ordered_at\":\"2026-08-30T10:00:00Z\"}\n"
            + "{\"customer_id\":1,\"qty\":1000,\"ordered_at\":\"2026-08-30T10:01:00Z\"}\n"
            + "{\"customer_id\":1,\"qty\":-7,\"ordered_at\":\"2026-08-30T10:02:00Z\"}\n");
    Path output = dir.resolve("o");
    assertThat(
        err.toString(), run("run", project.toString(), "--output", output.toString()), is(0));
    String summary = err.toString() + out.toString();
    assertThat(summary, containsString("1 quarantined"));
    List<String> changes = Files.readAllLines(output.resolve("m.jsonl"));
    assertThat(changes, hasSize(3));
    assertThat(changes.get(2), containsString("\"total\":9223372036854774993"));
    String quarantined = Files.readString(output.resolve("m.quarantine.jsonl"));
    assertThat(
        quarantined,
        containsString(
            "\"reason\":\"column `qty`: the int64 sum for `total` would overflow:"
                + " 9223372036854775000 + 1000 is outside int64"));
    assertThat(quarantined, containsString("\"file\":\"orders.jsonl\",\"line\":3"));
  }

  /**
   * A string that is not storable text does not fit its column: the record is quarantined at decode
   * with its file, line and a reason naming the column — without a database as with one (PostgreSQL
   * refuses U+0000), and a lone surrogate no longer becomes '?' and merges its key with another
   * (docs/decisions/0105). The counts add up; a surrogate pair is an ordinary key.
   */
  @Test
  void aStringThatIsNotTextIsQuarantinedWithItsFileLineAndColumn() throws Exception {
    Path project = dir.resolve("text");
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  s:\n    connector: file\n    path: s.jsonl\n    format: json\n"
            + "    schema:\n      k: string\n      note: string\n      v: int64\n"
            + "      t: timestamp\n    event_time: t\n    watermark: 0s\n");
    Files.writeString(project.resolve("streamform.yml"), "models:\n  m:\n    key: [k]\n");
    Files.writeString(
        project.resolve("models/m.sql"), "SELECT k, SUM(v) AS total FROM source('s') GROUP BY k\n");
    String t = ",\"t\":\"2026-08-30T10:00:00Z\"}\n";
    Files.writeString(
        project.resolve("s.jsonl"),
        "{\"k\":\"a\",\"v\":1"
            + t
            + "{\"k\":\"n\\u0000ul\",\"v\":2"
            + t
            + "{\"k\":\"b\",\"note\":\"x\\u0000\",\"v\":4"
            + t
            + "{\"k\":\"\\ud800\",\"v\":8"
            + t
            + "{\"k\":\"\\ud801\",\"v\":16"
            + t
            + "{\"k\":\"\\ud800\",\"v\":32"
            + t
            + "{\"k\":\"\\ud83d\\ude00\",\"v\":64"
            + t);
    Path output = dir.resolve("text-out");
    assertThat(
        err.toString(), run("run", project.toString(), "--output", output.toString()), is(0));
    assertThat(
        err.toString() + out.toString(),
        containsString("7 lines read: 2 events processed, 0 late, 5 quarantined\n"));
    List<JsonNode> changes = rows(output.resolve("m.jsonl"));
    assertThat(changes, hasSize(2));
    assertThat(changes.get(0).get("k").asText(), is("a"));
    assertThat(changes.get(0).get("total").asLong(), is(1L));
    assertThat(changes.get(1).get("k").asText(), is("\ud83d\ude00"));
    assertThat(changes.get(1).get("total").asLong(), is(64L));
    List<JsonNode> quarantined = rows(output.resolve("m.quarantine.jsonl"));
    List<String> got = new ArrayList<>();
    for (JsonNode q : quarantined) {
      got.add(
          q.get("file").asText() + ":" + q.get("line").asInt() + ": " + q.get("reason").asText());
    }
    String nul = "contains U+0000 (NUL) at character %d, which no sink can store as text";
    String half =
        "contains an unpaired UTF-16 surrogate (\\%s) at character 1, which is not Unicode text";
    assertThat(
        got,
        is(
            List.of(
                "s.jsonl:2: column `k`: " + String.format(nul, 2),
                "s.jsonl:3: column `note`: " + String.format(nul, 2),
                "s.jsonl:4: column `k`: " + String.format(half, "ud800"),
                "s.jsonl:5: column `k`: " + String.format(half, "ud801"),
                "s.jsonl:6: column `k`: " + String.format(half, "ud800"))));
    // the row shows the record as written, not with '?' for the surrogate UTF-8 cannot write
    assertThat(
        quarantined.get(2).get("value").asText(),
        is("{\"k\":\"\\ud800\",\"v\":8,\"t\":\"2026-08-30T10:00:00Z\"}"));
    assertThat(quarantined.get(0).get("value").get("k").asText(), is("n\u0000ul"));
  }

  /**
   * A project of one model needs no --model: run takes that model, as fuzz does; with several, the
   * refusal lists them.
   */
  @Test
  void aProjectOfOneModelRunsWithoutModelAndOfSeveralNamesThem() throws Exception {
    Path project = copyAsFileProject(TIME.resolve("late-event"), dir.resolve("one"));
    Fixture fixture = Fixture.load(Project.load(project), fixtureFile(project, "late_event"));
    writeFiles(project, fixture);
    Path output = dir.resolve("one-out");
    assertThat(
        err.toString(), run("run", project.toString(), "--output", output.toString()), is(0));
    assertThat(err.toString(), containsString("model customer_metrics on direct"));
    assertThat(Files.exists(output.resolve("customer_metrics.jsonl")), is(true));

    Files.writeString(
        project.resolve("streamform.yml"),
        "  customer_metrics_copy:\n    materialized: upsert\n    key: [customer_id]\n",
        java.nio.file.StandardOpenOption.APPEND);
    Files.copy(
        project.resolve("models/customer_metrics.sql"),
        project.resolve("models/customer_metrics_copy.sql"));
    err.getBuffer().setLength(0);
    assertThat(run("run", project.toString(), "--output", output.toString()), is(2));
    assertThat(
        err.toString(),
        containsString(
            "--model is needed: the project has models customer_metrics, customer_metrics_copy"));
  }

  /**
   * docs/reference/output-formats.md, §Window record, describes the record the tool writes for a
   * calendar window: every field of it has a row ({@code window_local} included), and the page's
   * calendar example carries the id this run gives the same window (six elements, the zone last,
   * ADR 0021), so the formula it gives can be checked against the tool.
   */
  @Test
  void theWindowRecordReferenceDescribesTheRecordOfACalendarDay() throws Exception {
    Path project = dir.resolve("sales");
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  sales:\n    connector: file\n    path: sales.jsonl\n    format: json\n"
            + "    schema:\n      store_id: string\n      amount: decimal(12,2)\n"
            + "      sold_at: timestamp\n    event_time: sold_at\n");
    Files.writeString(
        project.resolve("sales.jsonl"),
        "{\"store_id\":\"a\",\"amount\":12.50,\"sold_at\":\"2026-12-31T10:00:00Z\"}\n");
    Files.writeString(
        project.resolve("streamform.yml"),
        "models:\n  daily:\n    key: [store_id]\n    window: 1d\n");
    Files.writeString(
        project.resolve("models/daily.sql"),
        "SELECT store_id, SUM(amount) AS revenue, COUNT(*) AS sales FROM source('sales')"
            + " GROUP BY store_id");
    Path output = dir.resolve("sales-out");
    assertThat(
        err.toString(), run("run", project.toString(), "--output", output.toString()), is(0));
    JsonNode record = rows(output.resolve("daily.jsonl")).get(0);
    assertThat(record.toString(), record.path("window_local").asText(), is("2026-12-31"));

    String page = Files.readString(Path.of("../docs/reference/output-formats.md"));
    String section =
        page.substring(
            page.indexOf("## Window record"),
            page.indexOf("\n## ", page.indexOf("## Window record") + 1));
    List<String> undocumented = new ArrayList<>();
    record
        .fieldNames()
        .forEachRemaining(
            f -> {
              if (!List.of("store_id", "revenue", "sales").contains(f)
                  && !section.contains("\n| `" + f + "` |")) {
                undocumented.add(f);
              }
            });
    assertThat(
        "fields without a row in §Window record (record " + record + ")",
        undocumented,
        is(List.of()));
    // the id of a calendar window hashes its zone too: the page's formula and example say so
    assertThat(section, containsString("window_start, window_end, time_zone])"));
    assertThat(section, containsString(record.get("logical_window_id").asText()));
  }

  /**
   * Issue 35: the 25-hour day in Europe/Berlin on files: each record carries its window's real
   * instants in UTC, the local date it stands for ({@code window_local}) and the identity of the
   * fixture run, zone included.
   */
  @Test
  void aCalendarDayOnFilesWritesItsLocalDateAndTheFixturesIdentity() throws Exception {
    Path project =
        copyAsFileProject(
            Path.of("../test-streams/fixtures/calendar/daily-revenue-berlin"),
            dir.resolve("berlin"));
    Project loaded = Project.load(project);
    Fixture fixture = Fixture.load(loaded, fixtureFile(project, "last_sunday_of_october"));
    writeFiles(project, fixture);
    DeclaredModel model = DeclaredModel.of(loaded, fixture.model());
    FixtureOutcome expected = FixtureRunner.on(RunnerChoice.direct()).run(model, fixture);
    Path output = dir.resolve("out");
    assertThat(
        err.toString(),
        run("run", project.toString(), "--model", "daily_revenue", "--output", output.toString()),
        is(0));
    List<String> want = new ArrayList<>();
    for (FixtureOutcome.Revision r : expected.revisions) {
      want.add(r.windowStart + " " + r.windowEnd + " " + r.status + " " + r.logicalWindowId);
    }
    List<String> got = new ArrayList<>();
    List<String> local = new ArrayList<>();
    for (JsonNode r : rows(output.resolve("daily_revenue.jsonl"))) {
      got.add(
          Instant.parse(r.get("window_start").asText())
              + " "
              + Instant.parse(r.get("window_end").asText())
              + " "
              + r.get("status").asText()
              + " "
              + r.get("logical_window_id").asText());
      local.add(r.get("window_start").asText() + " " + r.path("window_local").asText("(none)"));
    }
    assertThat(
        got.stream().sorted().collect(Collectors.toList()),
        is(want.stream().sorted().collect(Collectors.toList())));
    assertThat(
        local.stream().distinct().sorted().collect(Collectors.toList()),
        is(List.of("2026-10-24T22:00:00Z 2026-10-25", "2026-10-25T23:00:00Z 2026-10-26")));
  }

  private static String windowRow(
      String start,
      Map<String, Object> columns,
      int revision,
      String status,
      String logical,
      String projection,
      String digest,
      Map<String, Object> offsets) {
    return start
        + " "
        + text(columns)
        + " "
        + revision
        + " "
        + status
        + " "
        + logical
        + " "
        + projection
        + " "
        + digest
        + " "
        + offsets;
  }

  /** Rows of the same key and window keep their order; windows by start, then key text. */
  private static List<String> sortedByWindow(List<String> rows) {
    Map<String, List<String>> byWindow = new TreeMap<>();
    for (String r : rows) {
      String[] parts = r.split(" ");
      String key = parts[0] + " " + r.substring(r.indexOf('{'), r.indexOf('}') + 1);
      byWindow.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
    }
    return byWindow.values().stream().flatMap(List::stream).collect(Collectors.toList());
  }

  /** Values as text; decimals by value (10 = 10.00). */
  private static String text(Map<String, Object> values) {
    Map<String, String> t = new LinkedHashMap<>();
    values.forEach((k, v) -> t.put(k, value(v)));
    return t.toString();
  }

  private static String value(Object v) {
    if (v instanceof JsonNode) {
      JsonNode n = (JsonNode) v;
      return n.isNull() ? "null" : n.isNumber() ? decimal(n.decimalValue()) : n.asText();
    }
    if (v instanceof BigDecimal || v instanceof Long || v instanceof Double) {
      return decimal(new BigDecimal(v.toString()));
    }
    return String.valueOf(v);
  }

  private static String decimal(Object d) {
    return new BigDecimal(d.toString()).stripTrailingZeros().toPlainString();
  }

  private static List<JsonNode> rows(Path file) throws Exception {
    List<JsonNode> rows = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      rows.add(JSON.readTree(line));
    }
    return rows;
  }

  private static Path fixtureFile(Path project, String name) {
    return project.resolve("fixtures").resolve(name + ".yml");
  }

  /**
   * The project with its kafka source turned into a file source reading orders-<partition>.jsonl.
   */
  static Path copyAsFileProject(Path from, Path to) throws Exception {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files.sorted(Comparator.naturalOrder())::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target);
        }
      }
    }
    Path sources = to.resolve("sources.yml");
    String yml = Files.readString(sources);
    assertThat(yml, containsString("connector: kafka"));
    Files.writeString(
        sources,
        yml.replace("connector: kafka", "connector: file")
            .replaceAll("topic: \\S+", "path: \"orders-*.jsonl\""));
    return to;
  }

  /**
   * The fixture's items as files, one per partition: events as records, watermark items as
   * punctuations.
   */
  static void writeFiles(Path project, Fixture fixture) throws Exception {
    List<Integer> partitions =
        fixture.given().stream()
            .filter(g -> !g.allPartitions())
            .map(Fixture.Given::partition)
            .distinct()
            .sorted()
            .collect(Collectors.toList());
    assertThat(
        "partitions must be 0..n-1 to be files",
        partitions.get(partitions.size() - 1),
        is(partitions.size() - 1));
    Map<Integer, StringBuilder> files = new TreeMap<>();
    partitions.forEach(p -> files.put(p, new StringBuilder()));
    for (Fixture.Given g : fixture.given()) {
      for (int p : g.allPartitions() ? partitions : List.of(g.partition())) {
        String line =
            g.event().isPresent()
                ? JsonRecords.object(g.event().get()).toString()
                : new String(
                    JsonRecords.punctuation(g.watermark().get()),
                    java.nio.charset.StandardCharsets.UTF_8);
        files.get(p).append(line).append('\n');
      }
    }
    for (Map.Entry<Integer, StringBuilder> f : files.entrySet()) {
      Files.writeString(project.resolve("orders-" + f.getKey() + ".jsonl"), f.getValue());
    }
  }
}
