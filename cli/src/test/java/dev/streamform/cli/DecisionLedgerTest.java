package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.runners.postgres.LocalPostgres;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The decision ledger (issue 32, docs/semantics.md §11): {@code streamform run --jdbc-url} of the
 * receipts scoring model on files writes one row per decision, the same ids as its decisions file;
 * a replay writes nothing new; {@code decisions show --jdbc-url} reads it; {@code decisions verify}
 * recomputes each identity and names a tampered row; the ledger refuses updates; late receipts of
 * the reconcile model land in the reconcile queue.
 */
class DecisionLedgerTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private static final Path RECEIPTS = Path.of("../test-streams/fixtures/decisions/receipts");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private String url;
  private StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();

  @BeforeEach
  void database() {
    url = POSTGRES.newDatabase();
  }

  private int run(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  /** Runs the command and asserts its exit status, showing what it printed when it differs. */
  private void runExpecting(int status, String... args) {
    int got = run(args);
    assertThat(out + "\n" + err, got, is(status));
  }

  private Path project(String fixtureName) throws Exception {
    Path project = RunOnFilesTest.copyAsFileProject(RECEIPTS, dir.resolve("receipts"));
    Fixture fixture =
        Fixture.load(
            Project.load(project), project.resolve("fixtures").resolve(fixtureName + ".yml"));
    RunOnFilesTest.writeFiles(project, fixture);
    return project;
  }

  private String[] db(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--jdbc-url", url, "--jdbc-user", LocalPostgres.USER));
    return all.toArray(String[]::new);
  }

  @Test
  void decisionsLandOnceAndVerifyAndATamperedRowIsNamed() throws Exception {
    Path project = project("offline_uploads");
    Path output = dir.resolve("out");
    String[] runArgs =
        db("run", project.toString(), "--model", "receipt_risk", "--output", output.toString());
    runExpecting(0, runArgs);
    assertThat(err.toString(), containsString("decisions -> "));
    TreeSet<String> fromFile = new TreeSet<>();
    for (String line : Files.readAllLines(output.resolve("receipt_risk.decisions.jsonl"))) {
      fromFile.add(JSON.readTree(line).get("decision_id").asText());
    }
    assertThat(fromFile.size(), is(10));
    assertThat(ids(), is(fromFile));
    assertThat("one row per decision", count("streamform.decision"), is(10L));

    // a replay of the same files: the same ids, nothing new
    runExpecting(0, runArgs);
    assertThat("a replay writes nothing new", count("streamform.decision"), is(10L));

    runExpecting(0, db("decisions", "show", project.toString(), "--model", "receipt_risk"));
    String shown = out.toString();
    assertThat(shown, containsString("model receipt_risk: 10 decisions, 0 in the reconcile queue"));
    for (String id : fromFile) {
      assertThat(shown, containsString("decision " + id + "\n"));
    }
    assertThat(
        shown, containsString("  revised, revision 2, of event 1-0 (partition 1, offset 0)"));
    assertThat(shown, containsString("  revised_by: 0-4\n"));

    runExpecting(0, db("decisions", "verify", project.toString(), "--model", "receipt_risk"));
    assertThat(
        out.toString(),
        containsString(
            "10 decisions of receipt_risk in "
                + url
                + " as postgres: every decision_id recomputes from its stored inputs; every"
                + " score from its stored features and event; every supersedes chain whole"));

    try (Connection c = connect();
        Statement s = c.createStatement()) {
      SQLException refused =
          assertThrows(
              SQLException.class,
              () -> s.executeUpdate("UPDATE streamform.decision SET score = 0"));
      assertThat(refused.getMessage(), containsString("the decision ledger is append-only"));
      assertThrows(SQLException.class, () -> s.executeUpdate("DELETE FROM streamform.decision"));
      // tampering around the trigger (an owner can): verify names the row whose inputs changed
      s.execute("ALTER TABLE streamform.decision DISABLE TRIGGER decision_append_only");
      s.executeUpdate(
          "UPDATE streamform.decision SET state_revision = state_revision + 1"
              + " WHERE event_id = '0-1' AND revision = 1");
    }
    runExpecting(1, db("decisions", "verify", project.toString(), "--model", "receipt_risk"));
    assertThat(out.toString(), containsString("MISMATCH decision "));
    assertThat(
        out.toString(), containsString(" (event 0-1, revision 1): its stored inputs hash to "));
    assertThat(out.toString(), containsString(": 1 mismatch\n"));
  }

  /**
   * A log that changed between runs (a repeat written at the start of a file, so the events after
   * it have other offsets) gives its events second decisions beside the first ones: verify notes
   * each event decided at more than one position, still exit 0 (found by a read-only audit of
   * decisions: it printed "every supersedes chain whole" and nothing else).
   */
  /**
   * {@code decisions show} and {@code decisions verify} read: in a database without a ledger they
   * say so and leave it as it was, as the other reading commands do (ADR 0136). They created schema
   * streamform and passed ("0 decisions"; found by a read-only audit of the command line).
   */
  @Test
  void theReadingCommandsCreateNoLedger() throws Exception {
    for (String command : List.of("show", "verify")) {
      runExpecting(1, db("decisions", command, RECEIPTS.toString(), "--model", "receipt_risk"));
      assertThat(
          err.toString(),
          containsString("streamform decisions " + command + ": no Streamform ledger in "));
      try (Connection c = DriverManager.getConnection(url, LocalPostgres.USER, null);
          ResultSet rs =
              c.createStatement()
                  .executeQuery(
                      "SELECT count(*) FROM information_schema.schemata"
                          + " WHERE schema_name = 'streamform'")) {
        rs.next();
        assertThat("no schema streamform after decisions " + command, rs.getLong(1), is(0L));
      }
    }
  }

  @Test
  void verifyNotesAnEventDecidedAtSeveralPositions() throws Exception {
    Path retried = Path.of("../test-streams/fixtures/decisions/retried_receipts");
    Path project = RunOnFilesTest.copyAsFileProject(retried, dir.resolve("retried"));
    RunOnFilesTest.writeFiles(
        project, Fixture.load(Project.load(project), project.resolve("fixtures/uploads.yml")));
    String[] runArgs =
        db("run", project.toString(), "--model", "receipt_risk", "--output", dir + "/out");
    runExpecting(0, runArgs);
    runExpecting(0, db("decisions", "verify", project.toString(), "--model", "receipt_risk"));
    assertThat(out.toString(), not(containsString("NOTE")));
    Path p0 = project.resolve("orders-0.jsonl");
    String lines = Files.readString(p0);
    Files.writeString(p0, lines.lines().findFirst().orElseThrow() + "\n" + lines);
    runExpecting(0, runArgs);
    runExpecting(0, db("decisions", "verify", project.toString(), "--model", "receipt_risk"));
    assertThat(
        out.toString(),
        containsString(
            "NOTE generation 1, event r2 was decided at 2 source positions (0-1, 0-2): a repeat of"
                + " its id beyond duplicates_within, decided as a new event, or a log that changed"
                + " between runs (a file edited, a topic recreated), which leaves two chains of"
                + " decisions for one event\n"));
  }

  /**
   * An event_id longer than a btree entry holds (2,704 bytes) is decided, shown and verified: the
   * ledger indexes its md5 (V180, ADR 0207). Before, the run failed with "index row size … exceeds
   * btree version 4 maximum 2704 for index decision_by_event" and wrote no decision.
   */
  @Test
  void anEventIdOf3000CharactersIsDecidedShownAndVerified() throws Exception {
    Path retried = Path.of("../test-streams/fixtures/decisions/retried_receipts");
    Path project = RunOnFilesTest.copyAsFileProject(retried, dir.resolve("retried"));
    RunOnFilesTest.writeFiles(
        project, Fixture.load(Project.load(project), project.resolve("fixtures/uploads.yml")));
    java.util.Random random = new java.util.Random(7);
    StringBuilder id = new StringBuilder("r2-");
    String letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    while (id.length() < 3_000) {
      id.append(letters.charAt(random.nextInt(letters.length())));
    }
    String longId = id.toString();
    Path p0 = project.resolve("orders-0.jsonl");
    String lines = Files.readString(p0);
    assertThat(lines, containsString("\"r2\""));
    Files.writeString(p0, lines.replace("\"r2\"", "\"" + longId + "\""));
    runExpecting(
        0, db("run", project.toString(), "--model", "receipt_risk", "--output", dir + "/out"));
    runExpecting(
        0,
        db("decisions", "show", project.toString(), "--model", "receipt_risk", "--event", longId));
    assertThat(out.toString(), containsString(longId));
    runExpecting(0, db("decisions", "verify", project.toString(), "--model", "receipt_risk"));
    assertThat(
        out.toString(), containsString(": every decision_id recomputes from its stored inputs"));
  }

  @Test
  void aScoreAndFeaturesChangedBehindTheTriggerAreNamedAndTheChangeSaid() throws Exception {
    Path project = project("offline_uploads");
    runExpecting(
        0,
        db(
            "run",
            project.toString(),
            "--model",
            "receipt_risk",
            "--output",
            dir.resolve("out").toString()));
    String id;
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      try (ResultSet r =
          s.executeQuery(
              "SELECT decision_id FROM streamform.decision WHERE model = 'receipt_risk'"
                  + " AND event_id = '0-1' AND revision = 1")) {
        r.next();
        id = r.getString(1);
      }
      // the auditor's change: around the append-only trigger, score and features rewritten; the
      // decision_id recipe (§11) leaves both out, so only a recomputed score can name the row
      s.execute("BEGIN");
      s.execute("SET LOCAL session_replication_role = replica");
      s.executeUpdate(
          "UPDATE streamform.decision SET score = 99.0, features ="
              + " '{\"spend_1h\": 9999.0, \"receipts_1h\": 4.0}' WHERE model = 'receipt_risk'"
              + " AND event_id = '0-1' AND revision = 1");
      s.execute("COMMIT");
    }
    runExpecting(1, db("decisions", "verify", project.toString(), "--model", "receipt_risk"));
    // 0.01 * amount + 0.001 * 9999 + 0.1 * 4: not 99 for any amount of this fixture (< 1000)
    assertThat(
        out.toString(),
        containsString(
            "MISMATCH decision "
                + id
                + " (event 0-1, revision 1): its stored score 99.0 is not the score of its stored"
                + " features {receipts_1h=4.0, spend_1h=9999.0} and event under model digest "));
    assertThat(out.toString(), containsString(": 1 mismatch\n"));
  }

  @Test
  void lateReceiptsOfTheReconcileModelLandInTheReconcileQueue() throws Exception {
    Path project = project("reconciled");
    Path output = dir.resolve("out");
    runExpecting(
        0,
        db(
            "run",
            project.toString(),
            "--model",
            "receipt_risk_reconciled",
            "--output",
            output.toString()));
    List<String> reconcileFile = new ArrayList<>();
    for (String line :
        Files.readAllLines(output.resolve("receipt_risk_reconciled.reconcile.jsonl"))) {
      JsonNode r = JSON.readTree(line);
      reconcileFile.add(r.get("event_id").asText());
    }
    assertThat(reconcileFile.size(), is(2));
    assertThat(count("streamform.decision_reconcile"), is(2L));
    runExpecting(
        0, db("decisions", "show", project.toString(), "--model", "receipt_risk_reconciled"));
    for (String id : reconcileFile) {
      assertThat(out.toString(), containsString("reconciled: event " + id + " "));
    }
    assertThat(out.toString(), containsString("  resolved_at: - (open)\n"));
  }

  private TreeSet<String> ids() throws SQLException {
    TreeSet<String> ids = new TreeSet<>();
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT decision_id FROM streamform.decision")) {
      while (r.next()) {
        ids.add(r.getString(1));
      }
    }
    return ids;
  }

  private long count(String table) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT count(*) FROM " + table)) {
      r.next();
      return r.getLong(1);
    }
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(url, LocalPostgres.USER, null);
  }
}
