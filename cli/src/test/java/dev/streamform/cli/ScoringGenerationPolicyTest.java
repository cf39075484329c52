package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

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
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code streamform run --jdbc-url} holds a scoring model's generation to the time policy it ran
 * with, as a windowed model's (docs/decisions/0145): a decision names its {@code
 * policy_generation}, so a watermark changed under a generation that has written decisions is
 * refused before the job, naming the declaration's file and line, the generation and the fix; a
 * generation without decisions takes the new policy.
 */
class ScoringGenerationPolicyTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private static final Path RECEIPTS = Path.of("../test-streams/fixtures/decisions/receipts");

  @TempDir Path dir;

  private Path project;
  private String url;
  private StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();

  @BeforeEach
  void theReceiptsOnFiles() throws Exception {
    url = POSTGRES.newDatabase();
    project = RunOnFilesTest.copyAsFileProject(RECEIPTS, dir.resolve("receipts"));
    Fixture fixture =
        Fixture.load(
            Project.load(project), project.resolve("fixtures").resolve("offline_uploads.yml"));
    RunOnFilesTest.writeFiles(project, fixture);
  }

  private int run() {
    out = new StringWriter();
    err = new StringWriter();
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                project.toString(),
                "--model",
                "receipt_risk",
                "--output",
                dir.resolve("out").toString(),
                "--jdbc-url",
                url,
                "--jdbc-user",
                LocalPostgres.USER));
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
  }

  private void edit(String file, String from, String to) throws Exception {
    Path p = project.resolve(file);
    String text = Files.readString(p);
    assertThat(text, containsString(from));
    Files.writeString(p, text.replace(from, to));
  }

  private Map<String, String> outputs() throws Exception {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> all = Files.list(dir.resolve("out"))) {
      for (Path f : (Iterable<Path>) all::iterator) {
        if (!f.getFileName().toString().startsWith(".")) {
          files.put(f.getFileName().toString(), Files.readString(f));
        }
      }
    }
    return files;
  }

  private Connection connect() throws Exception {
    return DriverManager.getConnection(url, LocalPostgres.USER, null);
  }

  private long count(String query) throws Exception {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private void sql(String... statements) throws Exception {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      for (String statement : statements) {
        s.execute(statement);
      }
    }
  }

  private String recordedPolicy() throws Exception {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT policy FROM streamform.generation_policy WHERE model = 'receipt_risk'"
                    + " AND generation = 1")) {
      assertThat("a recorded policy of generation 1", rs.next(), is(true));
      return rs.getString(1);
    }
  }

  @Test
  void aWatermarkChangedUnderAGenerationWithDecisionsIsRefusedBeforeTheJob() throws Exception {
    assertThat(out.toString() + err, run(), is(0));
    assertThat(count("SELECT count(*) FROM streamform.decision"), is(10L));
    Map<String, String> written = outputs();
    // unchanged: a replay, nothing new, exit 0
    assertThat(out.toString() + err, run(), is(0));

    edit("sources.yml", "watermark: 5m", "watermark: 6m");
    int status = run();
    assertThat(out.toString() + err, status, is(1));
    assertThat(
        err.toString(),
        containsString(
            "streamform run: "
                + project.resolve("sources.yml")
                + ":12: watermark: 5m -> 6m, but generation 1 of receipt_risk ran with watermark:"
                + " 5m (recorded "));
    assertThat(err.toString(), containsString("; 10 decisions written)"));
    assertThat(
        err.toString(),
        containsString(
            "set generation: 2 on model receipt_risk in "
                + project.resolve("streamform.yml")
                + " and deploy it as a new job started from the log, without --from-savepoint, in"
                + " place of the running one (streamform run "));
    assertThat(err.toString(), not(containsString("--shadow")));
    assertThat(err.toString(), containsString(", or declare watermark: 5m again"));
    assertThat(err.toString().lines().count(), is(1L));
    assertThat(count("SELECT count(*) FROM streamform.decision"), is(10L));
    assertThat(outputs(), is(written));

    // as the message says: generation 2, its own decisions beside generation 1's
    edit("streamform.yml", "  receipt_risk:", "  receipt_risk:\n    generation: 2");
    assertThat(out.toString() + err, run(), is(0));
    assertThat(
        count("SELECT count(*) FROM streamform.decision WHERE policy_generation = 2"), is(10L));
    assertThat(
        count("SELECT count(*) FROM streamform.generation_policy WHERE model = 'receipt_risk'"),
        is(2L));
  }

  /**
   * {@code features_over} is not in a decision's identity nor in the held policy (ADR 0145): a run
   * after it changed decides the same ids with other features. The ledger keeps what it holds and
   * the run says it refused them, exit 1, where it said "wrote 0 new decisions" and exited 0 (ADR
   * 0209); a replay of the first declaration is still no conflict.
   */
  @Test
  void decisionsTheLedgerHoldsWithOtherFeaturesAreRefusedAndSaid() throws Exception {
    assertThat(out.toString() + err, run(), is(0));
    assertThat(out.toString() + err, run(), is(0));
    assertThat(count("SELECT count(*) FROM streamform.decision_conflict"), is(0L));

    edit("streamform.yml", "features_over: 1h          #", "features_over: 1m          #");
    int status = run();
    assertThat(out.toString() + err, status, is(1));
    long refused = count("SELECT count(*) FROM streamform.decision_conflict");
    assertThat("some decisions read other features over 1m", refused > 0, is(true));
    assertThat(
        err.toString(),
        containsString(
            "streamform run: the decision ledger refused "
                + dev.streamform.core.text.Counts.grouped(refused, "decision")
                + " of this run: it holds"));
    assertThat(count("SELECT count(*) FROM streamform.decision"), is(10L));

    out = new StringWriter();
    err = new StringWriter();
    int verified =
        Streamform.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "decisions",
            "verify",
            project.toString(),
            "--model",
            "receipt_risk",
            "--jdbc-url",
            url,
            "--jdbc-user",
            LocalPostgres.USER);
    assertThat(out.toString() + err, verified, not(is(0)));
    assertThat(
        out.toString() + err,
        containsString("the ledger kept its own: a declaration outside the decision's identity"));
  }

  /**
   * A generation that read files, run again on a Kafka topic: the refusal says the generation ran
   * with no topic, and never advises declaring "topic: (absent)".
   */
  @Test
  void aTopicWhereTheGenerationReadFilesIsSaidToBeNoTopic() throws Exception {
    assertThat(out.toString() + err, run(), is(0));
    Files.copy(
        RECEIPTS.resolve("sources.yml"),
        project.resolve("sources.yml"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    out = new StringWriter();
    err = new StringWriter();
    int status =
        Streamform.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "run",
            project.toString(),
            "--model",
            "receipt_risk",
            "--bootstrap-servers",
            "127.0.0.1:9",
            "--jdbc-url",
            url,
            "--jdbc-user",
            LocalPostgres.USER);
    assertThat(out.toString() + err, status, is(1));
    assertThat(err.toString(), containsString("ran with no topic:"));
    assertThat(err.toString(), not(containsString("(absent) again")));
    assertThat(
        err.toString(), containsString(", or go back to what generation 1 ran with (no topic:)"));
  }

  /**
   * A scoring model's allowed lateness is its decisions' {@code lateness:} (the manifest's {@code
   * allowed_lateness}): the refusal names that line and that key.
   */
  @Test
  void aLatenessChangedUnderAGenerationWithDecisionsNamesItsDeclaration() throws Exception {
    assertThat(out.toString() + err, run(), is(0));
    Map<String, String> written = outputs();

    edit("streamform.yml", "lateness: 10m              # once", "lateness: 1h # once");
    int status = run();
    assertThat(out.toString() + err, status, is(1));
    assertThat(
        err.toString(),
        containsString(
            "streamform run: "
                + project.resolve("streamform.yml")
                + ":8: allowed_lateness: 10m -> 1h, but generation 1 of receipt_risk ran with"
                + " allowed_lateness: 10m"));
    assertThat(
        err.toString(), containsString(", or declare lateness: 10m (under decisions:) again"));
    assertThat(outputs(), is(written));
  }

  /**
   * A scorer changed under a generation that has written decisions (a weight of its linear file) is
   * not refused: its decisions have other ids, so they are written beside the first run's and none
   * is overwritten (docs/semantics.md §11). The run says so, in one line: how many decisions of the
   * generation another model digest scored, that the new ones go beside them, that {@code decisions
   * show} and {@code verify} list both, and that a new generation keeps them apart. A run under the
   * digests already there says nothing of it.
   */
  @Test
  void aScorerChangedUnderAGenerationWithDecisionsSaysItsDecisionsGoBesideTheOthers()
      throws Exception {
    assertThat(out.toString() + err, run(), is(0));
    assertThat(out.toString(), not(containsString("another model digest")));
    assertThat(out.toString() + err, run(), is(0)); // a replay: the same digests
    assertThat(out.toString(), not(containsString("another model digest")));

    edit("models/receipt_risk.linear.yml", "amount: 0.01", "amount: 0.02");
    assertThat(out.toString() + err, run(), is(0));
    assertThat(count("SELECT count(*) FROM streamform.decision"), is(20L));
    String said = out.toString();
    assertThat(said, containsString("wrote 10 new decisions to "));
    assertThat(
        said,
        containsString(
            "generation 1 of receipt_risk already holds 10 decisions scored by another model"
                + " digest; this run's decisions are written beside them, not over them"));
    assertThat(said, containsString("streamform decisions show and decisions verify list both"));
    assertThat(said, containsString("set generation: 2 on model receipt_risk"));
    assertThat(said, containsString("streamform plan"));
    long lines = said.lines().filter(l -> l.contains("another model digest")).count();
    assertThat(said, lines, is(1L));
  }

  /** A generation that has written no decision takes the declared policy in place of the record. */
  @Test
  void aGenerationWithoutDecisionsTakesTheNewPolicy() throws Exception {
    assertThat(out.toString() + err, run(), is(0));
    assertThat(recordedPolicy(), containsString("5m"));
    // its decisions gone (around the append-only trigger, as only a test would)
    sql(
        "SET session_replication_role = replica",
        "DELETE FROM streamform.decision",
        "SET session_replication_role = origin");

    edit("sources.yml", "watermark: 5m", "watermark: 6m");
    assertThat(out.toString() + err, run(), is(0));
    assertThat(recordedPolicy(), containsString("6m"));
    assertThat(recordedPolicy(), not(containsString("5m")));
  }

  /**
   * A decision ledger an older build wrote holds no policy: the first run records the declared one
   * (and is not refused), and from then on the generation is held to it.
   */
  @Test
  void aLedgerWithoutARecordedPolicyRecordsItOnTheFirstRun() throws Exception {
    assertThat(out.toString() + err, run(), is(0));
    sql("DELETE FROM streamform.generation_policy");
    edit("sources.yml", "watermark: 5m", "watermark: 6m");
    assertThat(out.toString() + err, run(), is(0));
    assertThat(recordedPolicy(), containsString("6m"));

    edit("sources.yml", "watermark: 6m", "watermark: 5m");
    assertThat(out.toString() + err, run(), is(1));
    assertThat(err.toString(), containsString(":12: watermark: 6m -> 5m, but generation 1"));
  }
}
