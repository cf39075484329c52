package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.policies.project.Fixture;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.fuzz.Fuzzer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code streamform gates}: a windowed model run on a file into a real PostgreSQL ledger passes
 * every measured gate; each gate fails on its planted defect (docs/semantics.md §10).
 */
class GatesCommandTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  /**
   * Merchant 7's 10:00 hour gets a correction (offset 4) and a too-late event (offset 6); a blank
   * line, a punctuation, a line that is not JSON (and one that is not UTF-8, added when it is
   * written) complete the accounting.
   */
  private static final String EVENTS =
      String.join(
          "\n",
          "{\"merchant_id\":7,\"amount\":10.00,\"paid_at\":\"2026-08-30T10:00:00Z\"}",
          "{\"merchant_id\":7,\"amount\":5.00,\"paid_at\":\"2026-08-30T10:30:00Z\"}",
          "{\"merchant_id\":8,\"amount\":3.00,\"paid_at\":\"2026-08-30T10:10:00Z\"}",
          "{\"merchant_id\":7,\"amount\":20.00,\"paid_at\":\"2026-08-30T11:10:00Z\"}",
          "{\"merchant_id\":7,\"amount\":-2.00,\"paid_at\":\"2026-08-30T10:50:00Z\"}",
          "{\"merchant_id\":7,\"amount\":1.00,\"paid_at\":\"2026-08-30T12:00:00Z\"}",
          "{\"merchant_id\":7,\"amount\":4.00,\"paid_at\":\"2026-08-30T10:20:00Z\"}",
          "",
          "{\"__watermark\":\"2026-08-30T12:05:00Z\"}",
          "this line is not JSON",
          "{\"merchant_id\":9,\"amount\":0.00,\"paid_at\":\"2026-08-30T10:40:00Z\"}",
          "");

  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private String url;
  private HikariDataSource pool;
  private Path project;
  private Path outputs;

  @BeforeEach
  void runTheModelOnItsFile() throws Exception {
    url = POSTGRES.newDatabase();
    pool = JdbcTarget.of(url).withUser("postgres").openPool("test", 2, 2_000);
    project = dir.resolve("payments");
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  payments:\n    connector: file\n    path: payments.jsonl\n    schema:\n"
            + "      merchant_id: int64\n      amount: decimal(12,2)\n      paid_at: timestamp\n"
            + "    event_time: paid_at\n");
    Files.writeString(
        project.resolve("streamform.yml"),
        "models:\n  hourly_revenue:\n    key: [merchant_id]\n    window: 1h\n"
            + "    allowed_lateness: 30m\n");
    Files.writeString(
        project.resolve("models/hourly_revenue.sql"),
        "SELECT merchant_id, SUM(amount) AS revenue FROM source('payments')"
            + " WHERE amount <> 0 GROUP BY merchant_id\n");
    // and last a line saved as Latin-1, which is not UTF-8: quarantined by the run, and an
    // offset the gates account for, not a file they cannot read
    Files.write(
        project.resolve("payments.jsonl"),
        (EVENTS + "{\"merchant_id\":7,\"amount\":1.00,\"note\":\"M\u00fcller\"}\n")
            .getBytes(StandardCharsets.ISO_8859_1));
    outputs = dir.resolve("out");
    runTheModel(outputs);
    out.getBuffer().setLength(0);
  }

  @AfterEach
  void closePool() {
    pool.close();
  }

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  /**
   * The arguments every run and gates of model hourly_revenue takes: {@code <project> --model
   * hourly_revenue --jdbc-url <url> --jdbc-user postgres --output <output>}, then {@code more}.
   */
  private String[] onTheModel(Path output, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                project.toString(),
                "--model",
                "hourly_revenue",
                "--jdbc-url",
                url,
                "--jdbc-user",
                "postgres",
                "--output",
                output.toString()));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  /** {@code streamform <command>} on the model, its exit status. */
  private int streamform(String command, String[] onTheModel) {
    List<String> args = new ArrayList<>(List.of(command));
    args.addAll(List.of(onTheModel));
    return run(args.toArray(String[]::new));
  }

  /** {@code streamform run} of the model into {@code output}, which must succeed. */
  private void runTheModel(Path output, String... more) {
    int status = streamform("run", onTheModel(output, more));
    assertThat(err.toString(), status, is(0));
  }

  private int gates(String... more) {
    return streamform("gates", onTheModel(outputs, more));
  }

  /** {@code streamform alias set} of the model with {@code more}, its exit status. */
  private int aliasSet(String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "alias",
                "set",
                project.toString(),
                "--model",
                "hourly_revenue",
                "--jdbc-url",
                url,
                "--jdbc-user",
                "postgres"));
    args.addAll(List.of(more));
    return run(args.toArray(String[]::new));
  }

  /** The printed line of {@code gate}, spaces squeezed. */
  private String line(String gate) {
    return out.toString()
        .lines()
        .filter(l -> l.matches("\\s+(PASS|FAIL|NOT MEASURED)\\s+" + gate + "\\s.*"))
        .map(l -> l.trim().replaceAll("\\s+", " "))
        .collect(Collectors.joining("\n"));
  }

  private void sql(String... statements) throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      for (String statement : statements) {
        s.execute(statement);
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
  }

  /**
   * A folder a run was interrupted while replacing holds outputs of two runs, whose counts add up
   * to neither: refused, not measured (docs/decisions/0101).
   */
  @Test
  void outputsARunWasInterruptedWhileReplacingAreRefused() throws Exception {
    Files.writeString(
        outputs.resolve(".streamform-incomplete"), "pid 4242 started 2026-12-04T22:00:00Z\n");

    int status = gates("--skip", "oracle");

    assertThat(err.toString(), status, is(1));
    assertThat(
        err.toString(),
        containsString(
            "streamform gates: the outputs in "
                + outputs
                + " are an incomplete set: a run (pid 4242, started 2026-12-04T22:00:00Z) was"
                + " interrupted while replacing them, or is replacing them now: run the model"
                + " again (streamform run) once no run writes there\n"));
    assertThat(out.toString(), not(containsString("PASS")));
  }

  @Test
  void aCleanRunPassesEveryMeasuredGateAndSaysWhatItCouldNotMeasure() {
    assertThat(err.toString(), gates("--traces", "3"), is(0));
    assertThat(
        line("oracle"),
        is("PASS oracle 100.0% threshold >= 100.0% 3 of 3 traces agree," + " seed 1"));
    assertThat(
        line("offsets"),
        is(
            "PASS offsets 0/0 threshold <= 0/0 missing/duplicated of 12 source offsets (3 without"
                + " output by design: blank, punctuation, filtered by WHERE)"));
    assertThat(line("recomputation"), containsString("PASS recomputation 0 threshold <= 0"));
    assertThat(
        line("latency"),
        is(
            "NOT MEASURED latency - threshold < 60s a file source has no append time: measured on"
                + " a Kafka run only"));
    assertThat(
        line("disposition"),
        is(
            "PASS disposition 100.0% threshold >= 100.0% 1 of 1 too-late events (per refusing"
                + " window) in hourly_revenue.late.jsonl"));
    assertThat(line("effects"), is("PASS effects 0 threshold <= 1 the model declares no effects"));
    assertThat(out.toString(), containsString("gates: 5 passed, 0 failed, 1 not measured\n"));
    assertThat(
        out.toString(),
        matchesPattern(
            "(?s)gates of hourly_revenue: ledger jdbc:.* generation 1 \\(canonical\\);"
                + " run outputs .*out; provider none\n.*"));
  }

  @Test
  void anEngineThatLosesEachTracesLastEventFailsTheOracleGate() {
    // the planted defect, through the test-only seam: the real model on the DirectRunner, given
    // each generated trace without its last event (a source that loses a record)
    GatesCommand gates = new GatesCommand();
    gates.engine =
        model ->
            Fuzzer.Target.of(
                "direct, last event lost",
                fixture -> {
                  List<Fixture.Given> given = fixture.given();
                  int last = given.size() - 1;
                  while (last >= 0 && given.get(last).event().isEmpty()) {
                    last--;
                  }
                  Fixture.Builder b = Fixture.builder(fixture.name(), fixture.model());
                  for (int i = 0; i < given.size(); i++) {
                    Fixture.Given item = given.get(i);
                    if (item.event().isPresent() && i != last) {
                      b.event(item.partition(), item.event().get());
                    } else if (item.watermark().isPresent()) {
                      b.watermark(
                          item.allPartitions() ? Optional.empty() : Optional.of(item.partition()),
                          item.watermark().get());
                    }
                  }
                  return FixtureRunner.on(RunnerChoice.direct()).run(model, b.build());
                });
    int status =
        new CommandLine(gates)
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true))
            .execute(onTheModel(outputs, "--traces", "3"));
    System.out.println(line("oracle"));
    assertThat(err.toString(), status, is(1));
    assertThat(
        line("oracle"),
        matchesPattern(
            "FAIL oracle [0-9.]+% threshold >= 100.0% [0-2] of 3"
                + " traces agree, seed 1; shrunk disagreement: .*"));
  }

  /** A generation is a whole number from 1, for gates and ledger show as for alias set. */
  @Test
  void aGenerationBelowOneIsABadCommandLine() {
    assertThat(gates("--skip", "oracle", "--generation", "0"), is(2));
    assertThat(err.toString(), containsString("--generation: a whole number from 1, got 0"));
    assertThat(out.toString(), not(containsString("PASS")));
    assertThat(
        run(
            "ledger",
            "show",
            project.toString(),
            "--jdbc-url",
            url,
            "--jdbc-user",
            "postgres",
            "--generation",
            "-1"),
        is(2));
    assertThat(err.toString(), containsString("--generation: a whole number from 1, got -1"));
  }

  /**
   * A generation with no projection has nothing to measure: refused as alias set and
   * compare-generations refuse it, with the generations that have projections. (Measured, it
   * passed: the gates that do not read its revisions pass.)
   */
  @Test
  void aGenerationWithNoProjectionIsRefused() {
    err.getBuffer().setLength(0);
    assertThat(out.toString(), gates("--skip", "oracle,offsets", "--generation", "9"), is(1));
    assertThat(
        out.toString(),
        err.toString(),
        matchesPattern(
            "streamform gates: generation 9 of hourly_revenue has no projection in this ledger"
                + " \\(generations with projections: 1 \\([0-9]+\\)\\)\n"));
    assertThat(out.toString(), not(containsString("gates:")));
    assertThat(out.toString(), not(containsString("PASS")));
  }

  /**
   * A canary in force: the gates of the canonical generation say which generation the share's keys
   * read and how to gate it (found by an audit: they said nothing of it).
   */
  @Test
  void theGatesSayWhenACanaryIsInForce() throws Exception {
    assertThat(
        err.toString(), aliasSet("--generation", "2", "--share", "50%", "--allow-empty"), is(0));
    out.getBuffer().setLength(0);
    assertThat(gates("--skip", "oracle"), is(0));
    assertThat(out.toString(), containsString(" generation 1 (canonical); run outputs "));
    assertThat(
        out.toString(),
        matchesPattern(
            "(?s)gates of hourly_revenue: [^\n]*\ncanary: 50% of keys \\(bucket < 5000 of"
                + " 10000\\) read generation 2 \\([0-2] of 2 keys\\); these gates measure"
                + " generation 1 only: gate the canary with --generation 2\n.*"));
  }

  /**
   * The gates replay the source under the policy the project declares, so a generation that ran
   * with another one (a project edited since, or another generation's project) is refused, naming
   * what differs, rather than measured as if it had run with this one (found by a read-only audit
   * of rollout: the offsets gate failed 90/0 and the disposition gate passed "0 of 0" with a
   * too-late row removed).
   */
  @Test
  void aGenerationThatRanWithAnotherPolicyIsRefusedNamingWhatDiffers() throws Exception {
    Files.writeString(
        project.resolve("streamform.yml"),
        Files.readString(project.resolve("streamform.yml")).replace("30m", "2h"));
    assertThat(out.toString(), gates("--skip", "oracle"), is(1));
    assertThat(out.toString(), not(containsString("PASS")));
    assertThat(
        err.toString(),
        containsString(
            "streamform gates: generation 1 of hourly_revenue ran with another time policy than "
                + project.resolve("streamform.yml")
                + " declares (allowed_lateness: 30m there, 2h here): the gates replay the source"
                + " under the declared policy"));
  }

  /**
   * A canary of a generation that ran with another policy than this project's: the line says to
   * gate it from the project that declares its policy, not just with --generation here (which the
   * gates would refuse).
   */
  @Test
  void aCanaryOfAnotherPolicyIsToBeGatedFromItsOwnProject() throws Exception {
    String declared = Files.readString(project.resolve("streamform.yml"));
    Files.writeString(
        project.resolve("streamform.yml"), declared.replace("30m", "2h") + "    generation: 2\n");
    runTheModel(dir.resolve("out-2"), "--shadow");
    Files.writeString(project.resolve("streamform.yml"), declared);
    assertThat(err.toString(), aliasSet("--generation", "2", "--share", "50%"), is(0));
    out.getBuffer().setLength(0);
    gates("--skip", "oracle");
    assertThat(
        out.toString(),
        containsString(
            "these gates measure generation 1 only: gate the canary with --generation 2 from a"
                + " project that declares the time policy it ran with (allowed_lateness: 2h)"));
  }

  @Test
  void strictFailsAGateThatCouldNotBeMeasured() {
    assertThat(gates("--skip", "oracle", "--strict"), is(1));
    assertThat(
        out.toString(),
        containsString("gates: 4 passed, 0 failed, 2 not measured (--strict: not measured fails)"));
  }

  /**
   * A gate left out with --skip is the operator's choice, not a measurement that failed: --strict
   * passes with it (found by a read-only audit: on a file source, whose latency gate is never
   * measured, --strict could never pass, --skip latency or not).
   */
  @Test
  void strictDoesNotFailAGateLeftOutWithSkip() {
    assertThat(gates("--skip", "oracle,latency", "--strict"), is(0));
    assertThat(out.toString(), containsString("gates: 4 passed, 0 failed, 2 not measured\n"));
    assertThat(line("latency"), containsString("NOT MEASURED latency"));
    assertThat(line("latency"), containsString("skipped (--skip)"));
  }

  @Test
  void aLedgerRowDeletedLeavesAnOffsetMissing() throws Exception {
    // the correction at offset 4 (merchant 7's revision 2) vanishes from the append-only ledger
    sql(
        "ALTER TABLE streamform.correction_ledger DISABLE TRIGGER correction_ledger_append_only",
        "DELETE FROM streamform.correction_ledger WHERE revision = 2",
        "ALTER TABLE streamform.correction_ledger ENABLE TRIGGER correction_ledger_append_only");
    assertThat(gates("--skip", "oracle"), is(1));
    assertThat(line("offsets"), containsString("FAIL offsets 1/0 threshold <= 0/0"));
    assertThat(line("offsets"), containsString("; first missing: partition 0 offset 4"));
  }

  @Test
  void aRowRepeatedInTheLateOutputIsADuplicatedOffset() throws Exception {
    Path late = outputs.resolve("hourly_revenue.late.jsonl");
    Files.writeString(late, Files.readString(late) + Files.readString(late));
    assertThat(gates("--skip", "oracle"), is(1));
    assertThat(line("offsets"), containsString("FAIL offsets 0/1 threshold <= 0/0"));
    assertThat(
        line("offsets"),
        containsString(
            "; first duplicated: partition 0 offset 6, claimed by hourly_revenue.late.jsonl"
                + " twice)"));
  }

  /**
   * A too-late event whose late row is gone but whose offset lies inside its window's revision (as
   * when a generation with a shorter allowed lateness is gated on another's outputs) is a missing
   * offset, and the line names it (found by an audit: it printed 1/0 without one).
   */
  @Test
  void aTooLateEventWithoutItsLateRowInsideARevisionsRangeIsNamedMissing() throws Exception {
    sql(
        "ALTER TABLE streamform.correction_ledger DISABLE TRIGGER correction_ledger_append_only",
        "UPDATE streamform.correction_ledger SET offsets = '{\"0\":{\"min\":0,\"max\":6,"
            + "\"count\":3}}' WHERE revision = 2",
        "ALTER TABLE streamform.correction_ledger ENABLE TRIGGER correction_ledger_append_only");
    Files.writeString(outputs.resolve("hourly_revenue.late.jsonl"), "");
    assertThat(gates("--skip", "oracle"), is(1));
    assertThat(line("offsets"), containsString("FAIL offsets 1/0 threshold <= 0/0"));
    assertThat(
        line("offsets"),
        containsString(
            "; first missing: partition 0 offset 6 (too late for this generation's policy, not in"
                + " hourly_revenue.late.jsonl)"));
  }

  /**
   * A revision that counts fewer events than the replay puts in its window, none of them outside
   * its range: the line names the window and the range the missing offset is in.
   */
  @Test
  void aRevisionCountingFewerEventsNamesTheRangeOfTheMissingOffset() throws Exception {
    sql(
        "ALTER TABLE streamform.correction_ledger DISABLE TRIGGER correction_ledger_append_only",
        "UPDATE streamform.correction_ledger SET offsets = '{\"0\":{\"min\":0,\"max\":4,"
            + "\"count\":2}}' WHERE revision = 2",
        "ALTER TABLE streamform.correction_ledger ENABLE TRIGGER correction_ledger_append_only");
    assertThat(gates("--skip", "oracle"), is(1));
    assertThat(line("offsets"), containsString("FAIL offsets 1/0 threshold <= 0/0"));
    assertThat(
        line("offsets"),
        containsString(
            "; first missing: one of partition 0 offsets 0 to 4 (revision 2 of window"
                + " {\"merchant_id\": 7} 2026-08-30T10:00:00Z counts 2 of the 3 events the"
                + " replay puts there)"));
  }

  /**
   * An offset in the quarantine output that a revision also counts is duplicated, and the line
   * names who claims it (found by an audit: it printed 0/1 without a position).
   */
  @Test
  void anOffsetQuarantinedAndInARevisionIsNamedDuplicatedWithItsClaimants() throws Exception {
    Path quarantine = outputs.resolve("hourly_revenue.quarantine.jsonl");
    Files.writeString(
        quarantine,
        Files.readString(quarantine)
            + "{\"reason\":\"x\",\"partition\":0,\"offset\":3,\"line\":\"x\"}\n");
    assertThat(gates("--skip", "oracle"), is(1));
    assertThat(line("offsets"), containsString("FAIL offsets 0/1 threshold <= 0/0"));
    assertThat(
        line("offsets"),
        containsString(
            "; first duplicated: partition 0 offset 3, claimed by"
                + " hourly_revenue.quarantine.jsonl and revision 1 of window"
                + " {\"merchant_id\": 7} 2026-08-30T11:00:00Z)"));
  }

  /** A run output damaged after the run: file:line, what is wrong and the fix, exit 1. */
  @Test
  void aDamagedLateOutputNamesItsFileAndLine() throws Exception {
    Path late = outputs.resolve("hourly_revenue.late.jsonl");
    int lines = Files.readString(late).split("\n", -1).length;
    Files.writeString(late, Files.readString(late) + "[1,2]\n");
    assertThat(gates("--skip", "oracle"), is(1));
    assertThat(
        err.toString(),
        containsString("streamform gates: " + late + ":" + lines + ": not a JSON object"));
    assertThat(err.toString(), not(containsString("Exception")));
    assertThat(err.toString(), not(containsString("internal error")));
  }

  @Test
  void aRevisionsValueAlteredIsARecomputationMismatch() throws Exception {
    sql(
        "UPDATE streamform.projection SET aggregate_values = '{\"revenue\":99.00}'"
            + " WHERE window_key = '{\"merchant_id\":8}'");
    assertThat(gates("--skip", "oracle"), is(1));
    assertThat(line("recomputation"), containsString("FAIL recomputation 1 threshold <= 0"));
  }

  /**
   * The recomputation gate measures the gated generation, the one the first line names: a shadow
   * generation beside it adds no projection to its figure, and a defect in that generation fails
   * that generation's gates, not the canonical one's (found by an audit: the line counted both).
   */
  @Test
  void theRecomputationGateCoversTheGatedGenerationOnly() throws Exception {
    Files.writeString(
        project.resolve("streamform.yml"),
        Files.readString(project.resolve("streamform.yml")) + "    generation: 2\n");
    runTheModel(dir.resolve("out-2"), "--shadow");
    out.getBuffer().setLength(0);
    assertThat(out.toString() + err, gates("--skip", "oracle"), is(0));
    assertThat(out.toString(), containsString(" generation 1 (canonical); run outputs "));
    assertThat(
        line("recomputation"),
        is(
            "PASS recomputation 0 threshold <= 0 projections of generation 1 that differ from a"
                + " recomputation from their ledger rows (4 projections, 5 revisions, 0 gaps, 0"
                + " mismatches, 0 conflicts)"));
    // generation 2's merchant 8 altered: generation 2 fails, generation 1 still passes
    sql(
        "UPDATE streamform.projection SET aggregate_values = '{\"revenue\":99.00}'"
            + " WHERE window_key = '{\"merchant_id\":8}' AND generation = 2");
    out.getBuffer().setLength(0);
    assertThat(out.toString() + err, gates("--skip", "oracle"), is(0));
    assertThat(line("recomputation"), containsString("PASS recomputation 0 threshold <= 0"));
    out.getBuffer().setLength(0);
    assertThat(gates("--skip", "oracle,offsets,disposition", "--generation", "2"), is(1));
    assertThat(out.toString(), containsString(" generation 2; run outputs "));
    assertThat(
        line("recomputation"),
        containsString(
            "FAIL recomputation 1 threshold <= 0 projections of generation 2 that differ from a"
                + " recomputation from their ledger rows (4 projections, 5 revisions, 0 gaps, "));
  }

  @Test
  void aTooLateEventMissingFromTheLateOutputHasNoDisposition() throws Exception {
    Files.writeString(outputs.resolve("hourly_revenue.late.jsonl"), "");
    assertThat(gates("--skip", "oracle"), is(1));
    assertThat(
        line("disposition"),
        is(
            "FAIL disposition 0.0% threshold >= 100.0% 0 of 1 too-late events (per refusing"
                + " window) in hourly_revenue.late.jsonl; without one: partition 0 offset 6"
                + " window 2026-08-30T10:00:00Z"));
  }

  /** The model declares a reward for a merchant whose hour reaches 10. */
  private void declareAnEffect() throws Exception {
    Files.writeString(
        project.resolve("streamform.yml"),
        Files.readString(project.resolve("streamform.yml"))
            + "    effects:\n      - type: reward\n        subject: merchant_id\n"
            + "        when: \"revenue >= 10\"\n        provider: {kind: webhook, url:"
            + " \"http://127.0.0.1:9/effects\", idempotency: key, receipts: true}\n");
  }

  /** Delivers effect key {@code key} to {@code provider}, as the dispatcher does; its status. */
  private static int deliver(LocalProviderServer provider, String key) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(provider.url()))
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"effect_key\":\"" + key + "\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .statusCode();
  }

  /**
   * Records an effect of {@code model} in the effect ledger, PREPARED as a run writes it; its key
   * (64 hex digits, from {@code name}).
   */
  private String ledgerEffect(String model, String name) throws Exception {
    sql(
        "INSERT INTO streamform.effect (effect_key, effect_type, model, logical_window_id, subject,"
            + " generation, made_true_by, revision, provider, payload, payload_digest, state)"
            + " VALUES ('"
            + hex(name)
            + "', 'reward', '"
            + model
            + "', '"
            + hex("window " + name)
            + "', '{\"merchant_id\": 7}', 1, 1, 1, 'webhook', '{}', '"
            + hex("payload " + name)
            + "', 'PREPARED')");
    return hex(name);
  }

  private static String hex(String name) throws Exception {
    return java.util.HexFormat.of()
        .formatHex(
            java.security.MessageDigest.getInstance("SHA-256")
                .digest(name.getBytes(StandardCharsets.UTF_8)));
  }

  private static final String EFFECTS_DETAIL =
      "most deliveries of one of this model's effect keys the provider received (applied, or"
          + " answered with its earlier receipt); ";

  /**
   * The effects gate of a model counts the provider's deliveries of that model's own effect keys
   * (the effect ledger's): another model's double send fails that model's gate, not this one's, and
   * this model's gate does not show deliveries it never made (found by an audit).
   */
  @Test
  void theEffectsGateCountsOnlyTheDeliveriesOfTheModelsOwnEffectKeys() throws Exception {
    declareAnEffect();
    String own = ledgerEffect("hourly_revenue", "own 1");
    ledgerEffect("hourly_revenue", "own 2");
    ledgerEffect("hourly_revenue", "own 3");
    String theirs = ledgerEffect("merchant_daily", "theirs 1");
    String theirs2 = ledgerEffect("merchant_daily", "theirs 2");
    try (LocalProviderServer provider = LocalProviderServer.start(0)) {
      provider.dedupe(false);
      // this model's effects are paused, none sent; the other model delivered two keys
      deliver(provider, theirs);
      deliver(provider, theirs2);
      assertThat(
          err.toString(), gates("--skip", "oracle", "--provider-url", provider.url()), is(0));
      assertThat(
          line("effects"),
          is(
              "PASS effects 0 threshold <= 1 "
                  + EFFECTS_DETAIL
                  + "0 of its 3 keys delivered, 0 over the threshold; not counted, not this"
                  + " model's: 2 keys of merchant_daily"));
      // the other model sends a key twice, and a key no model of this ledger has is sent twice:
      // neither is this model's effect
      deliver(provider, theirs);
      deliver(provider, "stray");
      deliver(provider, "stray");
      deliver(provider, own);
      out.getBuffer().setLength(0);
      assertThat(gates("--skip", "oracle", "--provider-url", provider.url()), is(0));
      assertThat(
          line("effects"),
          is(
              "PASS effects 1 threshold <= 1 "
                  + EFFECTS_DETAIL
                  + "1 of its 3 keys delivered, 0 over the threshold; not counted, not this"
                  + " model's: 2 keys of merchant_daily, 1 key in no model's effect ledger"));
      // its own key sent twice fails its gate
      deliver(provider, own);
      out.getBuffer().setLength(0);
      assertThat(gates("--skip", "oracle", "--provider-url", provider.url()), is(1));
      assertThat(
          line("effects"),
          is(
              "FAIL effects 2 threshold <= 1 "
                  + EFFECTS_DETAIL
                  + "1 of its 3 keys delivered, 1 over the threshold; first: "
                  + own
                  + " delivered 2 times, applied 2; not counted, not this model's: 2 keys of"
                  + " merchant_daily, 1 key in no model's effect ledger"));
    }
  }

  /**
   * A gate pointed at a ledger that knows none of the provider's delivered keys (--jdbc-url names
   * another database) judged nothing: it fails and names the likely cause, rather than passing with
   * {@code 0 of its 0 keys delivered} (ADR 0032, amendment of 2026-12-05). A model with effects
   * that delivered nothing, at a provider that has no deliveries at all, still passes.
   */
  @Test
  void aLedgerThatKnowsNoneOfTheProvidersDeliveredKeysFailsTheEffectsGate() throws Exception {
    declareAnEffect();
    try (LocalProviderServer provider = LocalProviderServer.start(0)) {
      assertThat(
          err.toString(), gates("--skip", "oracle", "--provider-url", provider.url()), is(0));
      assertThat(
          line("effects"),
          is(
              "PASS effects 0 threshold <= 1 "
                  + EFFECTS_DETAIL
                  + "0 of its 0 keys delivered, 0 over the threshold"));
      // the run wrote its effects to another database: this ledger holds none of the keys
      deliver(provider, hex("elsewhere 1"));
      deliver(provider, hex("elsewhere 2"));
      out.getBuffer().setLength(0);
      int status = gates("--skip", "oracle", "--provider-url", provider.url());
      assertThat(
          line("effects"),
          is(
              "FAIL effects - threshold <= 1 the ledger at "
                  + url
                  + " holds none of the provider's 2 delivered keys: is --jdbc-url the database"
                  + " the run wrote to?"));
      assertThat(status, is(1));
      assertThat(out.toString(), containsString("gates: 3 passed, 1 failed, 2 not measured"));
    }
  }

  @Test
  void anEffectKeyAppliedTwiceByTheProviderFailsTheEffectsGate() throws Exception {
    declareAnEffect();
    try (LocalProviderServer provider = LocalProviderServer.start(0)) {
      assertThat(gates("--skip", "oracle"), is(0));
      assertThat(
          line("effects"),
          is(
              "NOT MEASURED effects - threshold <= 1 no --provider-url: the provider's counts per"
                  + " effect key are unknown"));
      // a provider that does not dedupe, given the same effect key twice: two effects
      String k1 = ledgerEffect("hourly_revenue", "k1");
      provider.dedupe(false);
      deliver(provider, k1);
      deliver(provider, k1);
      out.getBuffer().setLength(0);
      assertThat(gates("--skip", "oracle", "--provider-url", provider.url()), is(1));
      assertThat(
          line("effects"),
          is(
              "FAIL effects 2 threshold <= 1 "
                  + EFFECTS_DETAIL
                  + "1 of its 1 key delivered, 1 over the threshold; first: "
                  + k1
                  + " delivered 2 times, applied 2"));
    }
  }

  @Test
  void aDoubleSendThatTheProviderDeduplicatesStillFailsTheEffectsGate() throws Exception {
    declareAnEffect();
    try (LocalProviderServer provider = LocalProviderServer.start(0)) {
      // Stripe's rule: the second delivery of k1 applies nothing and answers the first receipt;
      // one effect at the provider, but the key was sent twice (docs/decisions/0047)
      String k1 = ledgerEffect("hourly_revenue", "k1");
      String k2 = ledgerEffect("hourly_revenue", "k2");
      deliver(provider, k1);
      deliver(provider, k1);
      deliver(provider, k2);
      assertThat(provider.applied(k1), is(1));
      int status = gates("--skip", "oracle", "--provider-url", provider.url());
      System.out.println(line("effects"));
      assertThat(status, is(1));
      assertThat(
          line("effects"),
          is(
              "FAIL effects 2 threshold <= 1 "
                  + EFFECTS_DETAIL
                  + "2 of its 2 keys delivered, 1 over the threshold; first: "
                  + k1
                  + " delivered 2 times, applied 1"));
    }
  }

  @Test
  void aDeliveryTheProviderRefusedAndTheReceiptQueryResentIsOneDelivery() throws Exception {
    declareAnEffect();
    try (LocalProviderServer provider = LocalProviderServer.start(0)) {
      // the dispatcher's own path (docs/semantics.md §10): a 500 is UNKNOWN, the receipt query
      // finds nothing applied, and the key is delivered again: two requests, one delivery
      String k1 = ledgerEffect("hourly_revenue", "k1");
      provider.mode(LocalProviderServer.Mode.FAIL_500);
      assertThat(deliver(provider, k1), is(500));
      provider.mode(LocalProviderServer.Mode.OK);
      assertThat(deliver(provider, k1), is(200));
      assertThat(provider.requests(k1), is(2));
      assertThat(gates("--skip", "oracle", "--provider-url", provider.url()), is(0));
      System.out.println(line("effects"));
      assertThat(
          line("effects"),
          is(
              "PASS effects 1 threshold <= 1 "
                  + EFFECTS_DETAIL
                  + "1 of its 1 key delivered, 0 over the threshold"));
    }
  }

  /** A port nothing listens on (bound, then closed). */
  private static int closedPort() throws Exception {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** A provider stand-in answering every GET with {@code status} and {@code body}. */
  private static com.sun.net.httpserver.HttpServer answering(int status, String body)
      throws Exception {
    com.sun.net.httpserver.HttpServer server =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
          if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
          }
          exchange.close();
        });
    server.start();
    return server;
  }

  private static String urlOf(com.sun.net.httpserver.HttpServer server) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/effects";
  }

  /**
   * A provider that cannot be read leaves only the effects gate unmeasured (ADR 0032): the other
   * gates are measured and printed, and the exit status is the measured gates' unless --strict.
   */
  @Test
  void aProviderNotListeningLeavesTheEffectsGateNotMeasuredAndMeasuresTheOthers() throws Exception {
    declareAnEffect();
    String provider = "http://127.0.0.1:" + closedPort() + "/effects";
    assertThat(err.toString(), gates("--skip", "oracle", "--provider-url", provider), is(0));
    assertThat(
        line("effects"),
        is(
            "NOT MEASURED effects - threshold <= 1 cannot reach "
                + provider
                + ": connection refused (is the provider running there?)"));
    assertThat(line("offsets"), containsString("PASS offsets 0/0"));
    assertThat(line("recomputation"), containsString("PASS recomputation 0"));
    assertThat(line("disposition"), containsString("PASS disposition 100.0%"));
    assertThat(out.toString(), containsString("gates: 3 passed, 0 failed, 3 not measured\n"));
    assertThat(err.toString(), not(containsString("streamform gates")));
    out.getBuffer().setLength(0);
    assertThat(gates("--skip", "oracle", "--provider-url", provider, "--strict"), is(1));
    assertThat(line("effects"), containsString("NOT MEASURED effects"));
  }

  @Test
  void anAnswerThatIsNotJsonLeavesTheEffectsGateNotMeasuredNamingWhereAndWhat() throws Exception {
    declareAnEffect();
    com.sun.net.httpserver.HttpServer server = answering(200, "not json");
    try {
      assertThat(err.toString(), gates("--skip", "oracle", "--provider-url", urlOf(server)), is(0));
      assertThat(
          line("effects"),
          is(
              "NOT MEASURED effects - threshold <= 1 "
                  + urlOf(server)
                  + ": the answer is not JSON (line 1, column 4); it begins: not json"));
      assertThat(line("offsets"), containsString("PASS offsets 0/0"));
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aProviderThatAnswers404LeavesTheEffectsGateNotMeasured() throws Exception {
    declareAnEffect();
    com.sun.net.httpserver.HttpServer server = answering(404, "");
    try {
      assertThat(err.toString(), gates("--skip", "oracle", "--provider-url", urlOf(server)), is(0));
      assertThat(
          line("effects"),
          is(
              "NOT MEASURED effects - threshold <= 1 "
                  + urlOf(server)
                  + ": the provider answered 404"));
      assertThat(line("offsets"), containsString("PASS offsets 0/0"));
    } finally {
      server.stop(0);
    }
  }

  /** A count the gate cannot read is never taken for 0: the gate is not measured, never PASS. */
  @Test
  void aDeliveryCountThatIsNotAWholeNumberLeavesTheEffectsGateNotMeasured() throws Exception {
    declareAnEffect();
    for (String value : List.of("\"two\"", "-1", "1.5", "null", "true", "[2]")) {
      com.sun.net.httpserver.HttpServer server =
          answering(200, "{\"deliveries_per_key\": {\"k1\": 1, \"x\": " + value + "}}");
      try {
        out.getBuffer().setLength(0);
        assertThat(
            value + ": " + err, gates("--skip", "oracle", "--provider-url", urlOf(server)), is(0));
        assertThat(
            value,
            line("effects"),
            is(
                "NOT MEASURED effects - threshold <= 1 "
                    + urlOf(server)
                    + ": deliveries_per_key of key x is "
                    + value
                    + ", not a count (a whole number from 0)"));
      } finally {
        server.stop(0);
      }
    }
    // a whole number written with a fraction of zero is a count
    String x = ledgerEffect("hourly_revenue", "x");
    com.sun.net.httpserver.HttpServer server =
        answering(200, "{\"deliveries_per_key\": {\"" + x + "\": 2.0}}");
    try {
      out.getBuffer().setLength(0);
      assertThat(gates("--skip", "oracle", "--provider-url", urlOf(server)), is(1));
      assertThat(line("effects"), containsString("FAIL effects 2 threshold <= 1"));
    } finally {
      server.stop(0);
    }
  }

  /**
   * The run quarantines an event without a value for its key before its WHERE sees it (ADR 0088):
   * the gates read the source as the run does, so that offset is the quarantine's to account for,
   * not one the WHERE filters out.
   */
  @Test
  void anEventWithoutItsKeyMustBeInTheQuarantineEvenWhereTheWhereWouldFilterIt() throws Exception {
    // offset 11: no merchant, and an amount the WHERE (amount <> 0) would filter out
    Files.writeString(
        project.resolve("payments.jsonl"),
        EVENTS + "{\"merchant_id\":null,\"amount\":0.00,\"paid_at\":\"2026-08-30T10:40:00Z\"}\n");
    url = POSTGRES.newDatabase();
    outputs = dir.resolve("out-without-key");
    runTheModel(outputs);
    Path quarantine = outputs.resolve("hourly_revenue.quarantine.jsonl");
    List<String> rows = Files.readAllLines(quarantine);
    assertThat(
        rows.stream().filter(r -> r.contains("\"offset\":11")).collect(Collectors.joining()),
        containsString("key column `merchant_id` has no value"));
    out.getBuffer().setLength(0);
    assertThat(out.toString() + err, gates("--skip", "oracle"), is(0));
    // 12 offsets: the blank line, the punctuation and merchant 9's 0.00 have no output by design
    assertThat(
        line("offsets"),
        is(
            "PASS offsets 0/0 threshold <= 0/0 missing/duplicated of 12 source offsets (3 without"
                + " output by design: blank, punctuation, filtered by WHERE)"));
    // the planted defect: a run that lost that quarantine row lost the event
    Files.write(quarantine, rows.stream().filter(r -> !r.contains("\"offset\":11")).toList());
    out.getBuffer().setLength(0);
    assertThat(gates("--skip", "oracle"), is(1));
    assertThat(line("offsets"), containsString("FAIL offsets 1/0 threshold <= 0/0"));
    assertThat(line("offsets"), containsString("; first missing: partition 0 offset 11)"));
  }

  /**
   * With {@code event_id} the run writes the events it drops as duplicates to {@code
   * <model>.duplicates} (OutputTopics' name): the gates read that output, so a repeated payment's
   * offset is accounted for, not missing.
   */
  @Test
  void theGatesReadTheDuplicatesOutputTheRunWrote() throws Exception {
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  payments:\n    connector: file\n    path: payments.jsonl\n    schema:\n"
            + "      payment_id: int64\n      merchant_id: int64\n      amount: decimal(12,2)\n"
            + "      paid_at: timestamp\n    event_time: paid_at\n    event_id: payment_id\n");
    // offset 2 repeats offset 0's payment
    String first =
        "{\"payment_id\":1,\"merchant_id\":7,\"amount\":10.00,\"paid_at\":\"2026-08-30T10:00:00Z\"}";
    Files.writeString(
        project.resolve("payments.jsonl"),
        String.join(
            "\n",
            first,
            "{\"payment_id\":2,\"merchant_id\":8,\"amount\":3.00,\"paid_at\":\"2026-08-30T10:10:00Z\"}",
            first,
            "{\"payment_id\":3,\"merchant_id\":7,\"amount\":5.00,\"paid_at\":\"2026-08-30T10:30:00Z\"}",
            ""));
    url = POSTGRES.newDatabase();
    outputs = dir.resolve("out-duplicates");
    runTheModel(outputs);
    assertThat(
        Files.readString(outputs.resolve("hourly_revenue.duplicates.jsonl")),
        containsString("\"offset\":2"));
    out.getBuffer().setLength(0);
    assertThat(out.toString() + err, gates("--skip", "oracle"), is(0));
    assertThat(
        line("offsets"),
        containsString("PASS offsets 0/0 threshold <= 0/0 missing/duplicated of 4 source offsets"));
  }

  /**
   * A model whose source declares no {@code event_id} has no duplicates output: no run writes
   * {@code <model>.duplicates}, so a stray file of that name (an older run's, copied in) is not
   * read by the offsets gate.
   */
  @Test
  void aModelWithoutEventIdReadsNoDuplicatesOutput() throws Exception {
    // the too-late event's late row, planted as a duplicates row: counted, it is a second account
    Files.copy(
        outputs.resolve("hourly_revenue.late.jsonl"),
        outputs.resolve("hourly_revenue.duplicates.jsonl"));
    int status = gates("--skip", "oracle");
    assertThat(
        line("offsets"),
        is(
            "PASS offsets 0/0 threshold <= 0/0 missing/duplicated of 12 source offsets (3 without"
                + " output by design: blank, punctuation, filtered by WHERE)"));
    assertThat(out.toString() + err, status, is(0));
  }

  @Test
  void aMissingRunOutputFolderIsNotMeasuredAndSaysWhere() throws Exception {
    Files.move(outputs, dir.resolve("elsewhere"));
    assertThat(gates("--skip", "oracle"), is(0));
    assertThat(
        line("offsets"),
        containsString("NOT MEASURED offsets - threshold <= 0/0 no run outputs in "));
  }

  /**
   * A figure is printed with as many decimals as it takes to compare with its threshold as it does,
   * and a threshold as declared (found by a read-only audit of the contract's boundaries: 2 of 3 at
   * 66.7% printed {@code FAIL disposition 66.7% threshold >= 66.7%}; a P99 of 357 ms against 357 ms
   * printed {@code FAIL latency 0.4s threshold < 0s}).
   */
  @Test
  void aFigureNextToItsThresholdIsPrintedSoThatItComparesAsItDoes() {
    assertThat(GatesCommand.against(200.0 / 3, 66.7), is("66.67"));
    assertThat(GatesCommand.exactPercent(66.7), is("66.7%"));
    assertThat(GatesCommand.against(66.66, 66.66), is("66.66"));
    assertThat(GatesCommand.exactPercent(66.66), is("66.66%"));
    assertThat(GatesCommand.against(0.357, 0.357), is("0.357"));
    assertThat(GatesCommand.exactDuration(357), is("357ms"));
    assertThat(GatesCommand.against(59.95, 60.0), is("59.95"));
    assertThat(GatesCommand.exactDuration(60_000), is("60s"));
    // as before where one decimal tells them apart
    assertThat(GatesCommand.against(100.0, 100.0), is("100.0"));
    assertThat(GatesCommand.exactPercent(100), is("100.0%"));
    assertThat(GatesCommand.against(50.0 / 3, 100.0), is("16.7"));
    assertThat(GatesCommand.against(1.0, 60.0), is("1.0"));
    // a correction in no revision is never published (the review of this session's diff: the
    // first version printed 9223372036854776.0s)
    assertThat(GatesCommand.latencyAgainst(Long.MAX_VALUE, 60_000), is("never"));
    assertThat(GatesCommand.latencyAgainst(357, 357), is("0.357s"));
  }
}
