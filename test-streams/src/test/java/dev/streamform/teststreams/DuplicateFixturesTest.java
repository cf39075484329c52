package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.oracle.Oracle;
import dev.streamform.teststreams.oracle.WindowedOracle;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16, duplicates, wired: the project test-streams/fixtures/duplicates/orders ({@code
 * event_id: order_id}, {@code duplicates_within: 30m}) passes with its counts, its outcome is the
 * reference oracles' (which judge ids on their own), and a {@code duplicates:} section is exact
 * both ways, read strictly and written by {@code --accept}. Before the wiring, the repeated order
 * was processed twice ({@code total_spend} 20 where the fixture expects 10) and these failed.
 */
class DuplicateFixturesTest {
  static final Path ORDERS = locate();

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();

  private static Path locate() {
    for (Path p :
        new Path[] {
          Paths.get("fixtures/duplicates/orders"),
          Paths.get("test-streams/fixtures/duplicates/orders")
        }) {
      if (Files.isDirectory(p)) {
        return p.toAbsolutePath();
      }
    }
    throw new IllegalStateException(
        "no fixtures/duplicates/orders below " + Paths.get("").toAbsolutePath());
  }

  private FixtureSuite suite() {
    return new FixtureSuite(FixtureRunner.on(RunnerChoice.direct()), new PrintWriter(out, true));
  }

  @Test
  void theProjectPassesWithItsDuplicatesConflictsAndLateRepeatsCounted() throws Exception {
    assertThat(out.toString(), suite().run(ORDERS), is(true));
    assertThat(
        out.toString(),
        containsString(
            "customer_duplicates (model customer_metrics)\nPASS\n"
                + "6 events processed\n6 changelog records emitted\n3 late events dropped\n"
                + "1 duplicate dropped\n2 events quarantined\n"));
    assertThat(
        out.toString(),
        containsString(
            "hourly_duplicates (model hourly_spend)\n"
                + "PASS\n"
                + "3 events processed\n"
                + "2 revisions emitted\n"
                + "2 windows finalized\n"
                + "1 late event dropped\n"
                + "3 duplicates dropped\n"
                + "1 event quarantined\n"));
  }

  @Test
  void theRunnerAgreesWithTheOraclesOnEveryFixture() throws Exception {
    Project project = Project.load(ORDERS);
    for (Path file : Fixture.filesOf(project)) {
      Fixture f = Fixture.load(project, file);
      DeclaredModel model = DeclaredModel.of(project, f.model());
      FixtureOutcome run = FixtureRunner.on(RunnerChoice.direct()).run(model, f);
      FixtureOutcome oracle =
          model.windowed() ? WindowedOracle.of(model).outcome(f) : Oracle.of(model).run(f);
      assertThat(f.name(), run.canonical(), is(oracle.canonical()));
      assertThat(f.name(), run.duplicates, hasSize(f.duplicates().size()));
      // events in = processed + late + duplicates + quarantined (one late row per event here)
      assertThat(
          f.name(),
          run.processed + run.late.size() + run.duplicates.size() + run.quarantined.size(),
          is((int) f.given().stream().filter(g -> g.event().isPresent()).count()));
    }
  }

  @Test
  void anUnlistedDuplicateFailsAndSaysHowToFixIt() throws Exception {
    Path p = copy();
    rewrite(
        p,
        "customer_duplicates.yml",
        text ->
            text.substring(0, text.indexOf("duplicates:\n"))
                + text.substring(text.indexOf("quarantined:\n")));
    FixtureVerdict v = verdict(p, "customer_duplicates.yml");
    assertThat(v.passed(), is(false));
    String report = v.render();
    assertThat(report, containsString("duplicates: listed  dropped"));
    assertThat(
        report,
        containsString(
            "1  (not listed)        amount=10 customer_id=42 order_id=\"A-1\""
                + " ordered_at=\"2026-08-30T10:00:00Z\""));
    assertThat(
        report,
        containsString(
            "^ dropped as a duplicate (a repeat of event 1 (line 6, partition 0, offset 0), which"
                + " comes first in log order: the same `order_id` and payload, within"
                + " duplicates_within 30m) but not listed; list it under `duplicates:`"));
  }

  /**
   * Of two copies of an id on two partitions, the first in log order is kept (ADR 0017), not the
   * first delivered: here the copy on partition 0 arrives behind its partition's watermark (10:30),
   * the one on partition 1 before that partition has one, so the later delivery comes first in log
   * order and the earlier is the duplicate. The hint names the copy kept, and why, instead of "an
   * earlier event".
   */
  @Test
  void anUnlistedDuplicateNamesTheCopyKeptWhenItWasDeliveredLater() throws Exception {
    Path p = dir.resolve("risk");
    Files.createDirectories(p.resolve("models"));
    Files.createDirectories(p.resolve("fixtures"));
    Files.writeString(
        p.resolve("sources.yml"),
        "sources:\n  pay:\n    connector: file\n    path: \"pay-*.jsonl\"\n    format: json\n"
            + "    schema:\n      pid: string\n      acct: int64\n      amount: decimal(12,2)\n"
            + "      ts: timestamp\n    event_time: ts\n    watermark: 0s\n"
            + "    late_events: keep\n    event_id: pid\n    duplicates_within: 1h\n");
    Files.writeString(
        p.resolve("streamform.yml"),
        "models:\n  risk:\n    key: [acct]\n    decisions:\n      features_over: 1h\n"
            + "      linear: models/risk.linear.yml\n      contract: as_of_occurrence\n"
            + "      lateness: 5m\n      late_action: revise\n      late_updates_state: true\n");
    Files.writeString(
        p.resolve("models/risk.linear.yml"),
        "bias: 0\nweights: { amount: 1, spend_1h: 0.1, n_1h: 1 }\n");
    Files.writeString(
        p.resolve("models/risk.sql"),
        "SELECT acct, SUM(amount) AS spend_1h, COUNT(*) AS n_1h\nFROM source('pay')\n"
            + "GROUP BY acct\n");
    Files.writeString(
        p.resolve("fixtures/dupy.yml"),
        "model: risk\n"
            + "given:\n"
            + "  - event: { pid: p9, acct: 1, amount: 3,  ts: \"2026-08-30T10:30:00Z\" }\n"
            + "  - event: { pid: p1, acct: 1, amount: 10, ts: \"2026-08-30T10:00:00Z\" }\n"
            + "  - event: { pid: p1, acct: 1, amount: 10, ts: \"2026-08-30T10:00:00Z\" }\n"
            + "    partition: 1\n"
            + "  - event: { pid: p5, acct: 1, amount: 2,  ts: \"2026-08-30T10:40:00Z\" }\n"
            + "    partition: 1\n"
            + "expect: []\n");
    assertThat(out.toString(), suite().run(p), is(false));
    String report = out.toString();
    assertThat(
        report,
        containsString(
            "^ dropped as a duplicate (a repeat of event 3 (line 5, partition 1, offset 0), which"
                + " comes first in log order though delivered after it: the same `pid` and"
                + " payload, within duplicates_within 1h) but not listed"));
    assertThat(report, not(containsString("an earlier event")));
  }

  @Test
  void aListedDuplicateThatWasNotDroppedFails() throws Exception {
    Path p = copy();
    // E-1 was given once: it is processed, not a duplicate
    rewrite(
        p,
        "customer_duplicates.yml",
        text ->
            text.replace(
                "duplicates:\n",
                "duplicates:\n"
                    + "  - { order_id: E-1, customer_id: 7, amount: 1, ordered_at:"
                    + " \"2026-08-30T11:00:00Z\" }\n"));
    FixtureVerdict v = verdict(p, "customer_duplicates.yml");
    assertThat(v.passed(), is(false));
    assertThat(
        v.render(),
        containsString(
            "but it was not dropped as a duplicate: no earlier event with"
                + " the same `order_id` and payload within duplicates_within 30m"));
    assertThat(v.render(), containsString("remove it from `duplicates:`"));
  }

  @Test
  void anUnlistedConflictFailsNamingTheFirstEvent() throws Exception {
    Path p = copy();
    rewrite(
        p, "customer_duplicates.yml", text -> text.substring(0, text.indexOf("quarantined:\n")));
    FixtureVerdict v = verdict(p, "customer_duplicates.yml");
    assertThat(v.passed(), is(false));
    assertThat(
        v.render(),
        containsString(
            "event 4 was quarantined as a conflict (customer_duplicates.yml line 11): event_id"
                + " `order_id` = A-2 was first seen at partition 0 offset 2 with another payload"));
    assertThat(v.render(), containsString("list it under `quarantined:`"));
  }

  @Test
  void theSectionIsReadStrictly() throws Exception {
    Path p = copy();
    rewrite(p, "customer_duplicates.yml", text -> text.replace("duplicates:\n", "duplicate:\n"));
    InvalidProjectException typo =
        assertThrows(
            InvalidProjectException.class,
            () -> Fixture.load(Project.load(p), p.resolve("fixtures/customer_duplicates.yml")));
    assertThat(typo.problems().get(0).toString(), containsString("customer_duplicates.yml:38"));
    assertThat(typo.problems().get(0).toString(), containsString("did you mean 'duplicates'?"));

    Path noIds = copy();
    Files.writeString(
        noIds.resolve("sources.yml"),
        Files.readString(noIds.resolve("sources.yml"))
            .replaceAll("(?m)^    (event_id|duplicates_within):.*\n", ""));
    InvalidProjectException refused =
        assertThrows(
            InvalidProjectException.class,
            () ->
                Fixture.load(
                    Project.load(noIds), noIds.resolve("fixtures/customer_duplicates.yml")));
    String problem = refused.problems().get(0).toString();
    assertThat(problem, containsString("customer_duplicates.yml:38"));
    assertThat(problem, containsString("source 'orders' declares no event_id"));
    assertThat(problem, containsString("declare event_id: <column that identifies an event>"));
  }

  @Test
  void acceptWritesTheDuplicatesSectionAndTheFixtureThenPasses() throws Exception {
    Path p = copy();
    Path file =
        rewrite(
            p,
            "customer_duplicates.yml",
            text -> text.substring(0, text.indexOf("expect:\n")) + "expect: []\n");
    FixtureSuite accepting = suite().accepting(true);
    assertThat(out.toString(), accepting.run(p), is(true));
    assertThat(
        out.toString(),
        containsString(
            "accepted: wrote 6 expect: rows, 3 late: rows,"
                + " 1 duplicates: row, 2 quarantined: rows to fixtures/customer_duplicates.yml"));
    String rewritten = Files.readString(file);
    assertThat(
        rewritten,
        containsString(
            "duplicates:\n  - { order_id: \"A-1\", customer_id: 42, amount: 10.00,"
                + " ordered_at: \"2026-08-30T10:00:00Z\" }\n"));
    assertThat(suite().run(p), is(true));
  }

  /**
   * A scoring model (the receipts project with {@code event_id: receipt_id}) gets the same step: a
   * retried receipt is dropped before it is scored, a conflicting one is dead-lettered with reason
   * {@code event_id_conflict}, and neither changes a decision.
   */
  @Test
  void aScoringModelDropsDuplicatesBeforeScoring() throws Exception {
    Path receipts = DecisionFixturesTest.RECEIPTS.toAbsolutePath();
    Path p = dir.resolve("receipts");
    try (Stream<Path> files = Files.walk(receipts)) {
      for (Path f : files.collect(Collectors.toList())) {
        Path target = p.resolve(receipts.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else if (!receipts.relativize(f).startsWith("fixtures")) {
          Files.copy(f, target);
        }
      }
    }
    Files.writeString(
        p.resolve("sources.yml"),
        Files.readString(p.resolve("sources.yml"))
                .replace("    schema:\n", "    schema:\n      receipt_id: string\n")
            + "    event_id: receipt_id\n    duplicates_within: 1h\n");
    String at = "occurred_at: \"2026-08-30T10:00:00Z\", received_at: \"2026-08-30T10:00:00Z\"";
    String later = "occurred_at: \"2026-08-30T10:20:00Z\", received_at: \"2026-08-30T10:21:00Z\"";
    Files.writeString(
        p.resolve("fixtures/dups.yml"),
        "model: receipt_risk\ngiven:\n"
            + "  - event: { receipt_id: r1, merchant_id: 7, amount: 100.00, "
            + at
            + " }\n"
            + "  - event: { receipt_id: r1, merchant_id: 7, amount: 100.00, "
            + at
            + " }\n"
            + "  - event: { receipt_id: r2, merchant_id: 7, amount: 50.00, "
            + later
            + " }\n"
            + "  - event: { receipt_id: r2, merchant_id: 7, amount: 60.00, "
            + later
            + " }\n"
            + "expect: []\n");
    Project loaded = Project.load(p);
    Fixture f = Fixture.load(loaded, p.resolve("fixtures/dups.yml"));
    FixtureOutcome run =
        FixtureRunner.on(RunnerChoice.direct()).run(DeclaredModel.of(loaded, "receipt_risk"), f);
    assertThat(
        run.duplicates.stream().map(d -> d.eventId).collect(Collectors.toList()),
        is(List.of("0-1")));
    assertThat(
        run.routed.stream()
            .map(
                r ->
                    r.eventId()
                        + " "
                        + r.route()
                        + (r.route().equals("dead_lettered")
                            ? " " + r.identity().get("reason")
                            : ""))
            .collect(Collectors.toList()),
        is(List.of("0-0 scored", "0-2 scored", "0-3 dead_lettered event_id_conflict")));
    // a decision names its event by the declared id (docs/semantics.md §11), its place beside it
    assertThat(
        run.routed.stream()
            .filter(r -> r.route().equals("scored"))
            .map(
                r ->
                    r.identity().get("event_id")
                        + " at "
                        + r.identity().get("partition")
                        + "-"
                        + r.identity().get("offset"))
            .collect(Collectors.toList()),
        is(List.of("r1 at 0-0", "r2 at 0-2")));
  }

  /**
   * docs/semantics.md §2 by default: an id is the source's, so the same order id under another
   * customer is a conflict, quarantined, on the declared pipeline and in the oracle alike; only
   * {@code event_id_scope: key} makes it that customer's own event (ADR 0073).
   */
  @Test
  void theSameIdUnderAnotherKeyIsAConflictUnlessIdsAreScopedByKey() throws Exception {
    String fixture =
        "model: customer_metrics\ngiven:\n"
            + "  - event: { order_id: A-1, customer_id: 42, amount: 10, ordered_at:"
            + " \"2026-08-30T10:00:00Z\" }\n"
            + "  - event: { order_id: A-1, customer_id: 7, amount: 10, ordered_at:"
            + " \"2026-08-30T10:00:00Z\" }\n"
            + "expect: []\n";
    Path byDefault = copy();
    Files.writeString(byDefault.resolve("fixtures/customer_duplicates.yml"), fixture);
    Path byKey = copy();
    Files.writeString(byKey.resolve("fixtures/customer_duplicates.yml"), fixture);
    Files.writeString(
        byKey.resolve("sources.yml"),
        Files.readString(byKey.resolve("sources.yml")) + "    event_id_scope: key\n");

    List<String> asDefault = outcome(byDefault);
    assertThat(
        asDefault.get(0),
        is(
            "processed 1; quarantined [0-1: event_id `order_id` = A-1 was first seen at partition 0"
                + " offset 0 with another payload; a repeated id must repeat its event exactly]"));
    assertThat("the oracle", asDefault.get(1), is(asDefault.get(0)));

    List<String> scoped = outcome(byKey);
    assertThat(scoped.get(0), is("processed 2; quarantined []"));
    assertThat("the oracle", scoped.get(1), is(scoped.get(0)));
  }

  /** The declared pipeline's outcome of customer_duplicates.yml, then the oracle's. */
  private static List<String> outcome(Path project) throws Exception {
    Project loaded = Project.load(project);
    Fixture f = Fixture.load(loaded, project.resolve("fixtures/customer_duplicates.yml"));
    DeclaredModel model = DeclaredModel.of(loaded, f.model());
    return Stream.of(FixtureRunner.on(RunnerChoice.direct()).run(model, f), Oracle.of(model).run(f))
        .map(
            o ->
                "processed "
                    + o.processed
                    + "; quarantined "
                    + o.quarantined.stream()
                        .map(q -> q.eventId + ": " + q.reason)
                        .collect(Collectors.toList()))
        .collect(Collectors.toList());
  }

  /** The project in a temporary folder with only its upsert fixture. */
  /**
   * A windowed fixture's explanation of a differing window says of each of its events how it was
   * judged; an event dropped as a duplicate reached no window and says so, not "not judged".
   */
  @Test
  void aWindowsExplanationSaysWhichOfItsEventsWereDroppedAsDuplicates() throws Exception {
    Path p = copy();
    Files.writeString(
        p.resolve("fixtures/hourly_duplicates.yml"),
        Files.readString(ORDERS.resolve("fixtures/hourly_duplicates.yml"))
            .replaceFirst(
                "total_spend: 10, revision: 1, status: on_time",
                "total_spend: 99," + " revision: 1, status: on_time"));
    FixtureVerdict v = verdict(p, "hourly_duplicates.yml");
    assertThat(v.passed(), is(false));
    String report = v.render();
    assertThat(
        report,
        containsString(
            "(line 8, partition 0, ordered_at 10:50): dropped as a duplicate (a repeat of event 1"
                + " (line 7, partition 0, offset 0), which comes first in log order)"));
    assertThat(report, not(containsString("not judged")));
  }

  private Path copy() throws IOException {
    Path to = Files.createTempDirectory(dir, "orders");
    try (Stream<Path> files = Files.walk(ORDERS)) {
      for (Path f : files.collect(Collectors.toList())) {
        Path target = to.resolve(ORDERS.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else if (!f.getFileName().toString().equals("hourly_duplicates.yml")) {
          Files.copy(f, target);
        }
      }
    }
    return to;
  }

  private static Path rewrite(
      Path project, String fixture, java.util.function.UnaryOperator<String> edit) {
    Path file = project.resolve("fixtures").resolve(fixture);
    try {
      Files.writeString(file, edit.apply(Files.readString(file)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  private static FixtureVerdict verdict(Path project, String fixture) throws Exception {
    Project loaded = Project.load(project);
    Fixture f = Fixture.load(loaded, project.resolve("fixtures").resolve(fixture));
    DeclaredModel model = DeclaredModel.of(loaded, f.model());
    return FixtureVerdict.judge(f, model, FixtureRunner.on(RunnerChoice.direct()).run(model, f));
  }
}
