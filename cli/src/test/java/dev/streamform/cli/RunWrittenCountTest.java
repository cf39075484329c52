package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.runners.postgres.LocalPostgres;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code streamform run --jdbc-url}'s "wrote N new revisions" is the rows the run appended to the
 * correction ledger, every time: an hourly window with early results and an effect rule run into
 * fresh databases, and a run of another generation into the same one; and "wrote N new decisions"
 * is the decisions a scoring model's run inserted. Both are read from the job's Beam counters after
 * it ended (docs/decisions/0147).
 */
class RunWrittenCountTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private static final Pattern WROTE = Pattern.compile("wrote ([0-9,]+) new revisions? to ");
  private static final Pattern DECIDED = Pattern.compile("wrote ([0-9,]+) new decisions? to ");
  private static final Path RECEIPTS = Path.of("../test-streams/fixtures/decisions/receipts");

  @TempDir Path project;
  private StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();

  @BeforeEach
  void rewardsOnAnHourlyWindow() throws Exception {
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  payments:\n    connector: file\n    path: payments.jsonl\n    schema:\n"
            + "      payment_id: string\n      merchant_id: int64\n      amount: decimal(12,2)\n"
            + "      paid_at: timestamp\n    event_time: paid_at\n    watermark: 2m\n"
            + "    late_events: keep\n");
    Files.writeString(
        project.resolve("streamform.yml"),
        "models:\n  rewards:\n    key: [merchant_id]\n    window: 1h\n    allowed_lateness: 1h\n"
            + "    early_results: every 2 events\n"
            + "    effects:\n      - type: reward\n        subject: merchant_id\n"
            + "        when: \"revenue >= 100\"\n"
            + "        provider: {kind: webhook, url: \"http://127.0.0.1:8099/effects\","
            + " idempotency: key, receipts: true}\n");
    Files.writeString(
        project.resolve("models/rewards.sql"),
        "SELECT merchant_id, SUM(amount) AS revenue FROM source('payments') WHERE amount > 0"
            + " GROUP BY merchant_id\n");
    StringBuilder lines = new StringBuilder();
    String[][] payments = {
      {"q1", "1", "60.0", "2026-03-28T22:30:00Z"},
      {"q2", "1", "50.0", "2026-03-28T22:50:00Z"},
      {"q3", "2", "40.0", "2026-03-28T23:10:00Z"},
      {"q4", "1", "-20.0", "2026-03-28T22:55:00Z"},
      {"q5", "1", "30.0", "2026-03-29T00:30:00Z"},
      {"q6", "2", "100.0", "2026-03-29T00:40:00Z"},
      {"q7", "1", "5.0", "2026-03-28T23:40:00Z"},
      {"q8", "1", "200.0", "2026-03-29T21:00:00Z"},
      {"q9", "2", "10.0", "2026-03-29T21:30:00Z"},
      {"q10", "2", "7.0", "2026-03-29T21:40:00Z"},
    };
    for (String[] p : payments) {
      lines.append(
          String.format(
              "{\"payment_id\":\"%s\",\"merchant_id\":%s,\"amount\":%s,\"paid_at\":\"%s\"}%n",
              p[0], p[1], p[2], p[3]));
    }
    Files.writeString(project.resolve("payments.jsonl"), lines.toString());
  }

  private int run(String url, String... extra) {
    out = new StringWriter();
    err = new StringWriter();
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                project.toString(),
                "--model",
                "rewards",
                "--jdbc-url",
                url,
                "--jdbc-user",
                "postgres"));
    args.addAll(List.of(extra));
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
  }

  private long printed() {
    return printed(WROTE);
  }

  private long printed(Pattern line) {
    Matcher m = line.matcher(out.toString());
    assertThat(out.toString(), m.find(), is(true));
    return Long.parseLong(m.group(1).replace(",", ""));
  }

  private static long ledgerRows(String url, String where) throws Exception {
    try (HikariDataSource pool =
            JdbcTarget.of(url).withUser("postgres").openPool("count", 2, 2_000);
        Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM streamform.correction_ledger l JOIN streamform.projection p"
                    + " USING (projection_id) "
                    + where)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void eachRunIntoAFreshDatabasePrintsTheRowsItAppended() throws Exception {
    List<String> seen = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      String url = POSTGRES.newDatabase();
      assertThat(err.toString(), run(url), is(0));
      long rows = ledgerRows(url, "");
      seen.add(printed() + " printed, " + rows + " in the ledger");
      assertThat(seen.toString(), rows > 0, is(true));
      assertThat(seen.toString(), printed(), is(rows));
    }
  }

  @Test
  void onFlinkEachRunIntoAFreshDatabasePrintsTheRowsItAppended() throws Exception {
    List<String> seen = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      String url = POSTGRES.newDatabase();
      assertThat(err.toString(), run(url, "--runner", "flink", "--parallelism", "2"), is(0));
      long rows = ledgerRows(url, "");
      seen.add(printed() + " printed, " + rows + " in the ledger");
      assertThat(seen.toString(), rows > 0, is(true));
      assertThat(seen.toString(), printed(), is(rows));
    }
  }

  @Test
  void aRunOfAnotherGenerationPrintsItsOwnRowsAndAReplayNone() throws Exception {
    String url = POSTGRES.newDatabase();
    assertThat(err.toString(), run(url), is(0));
    assertThat(out.toString(), printed(), is(ledgerRows(url, "WHERE p.generation = 1")));
    assertThat(err.toString(), run(url, "--generation", "2", "--shadow"), is(0));
    long second = ledgerRows(url, "WHERE p.generation = 2");
    assertThat(out.toString(), second > 0, is(true));
    assertThat(out.toString(), printed(), is(second));
    // the same generation again: a replay, nothing new
    assertThat(err.toString(), run(url, "--generation", "2", "--shadow"), is(0));
    assertThat(out.toString(), printed(), is(0L));
  }

  @Test
  void eachScoringRunIntoAFreshDatabasePrintsTheDecisionsItInserted() throws Exception {
    Path receipts = RunOnFilesTest.copyAsFileProject(RECEIPTS, project.resolve("receipts"));
    Fixture fixture =
        Fixture.load(
            Project.load(receipts), receipts.resolve("fixtures").resolve("offline_uploads.yml"));
    RunOnFilesTest.writeFiles(receipts, fixture);
    List<String> seen = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      String url = POSTGRES.newDatabase();
      out = new StringWriter();
      err = new StringWriter();
      int status =
          Streamform.run(
              new PrintWriter(out),
              new PrintWriter(err),
              "run",
              receipts.toString(),
              "--model",
              "receipt_risk",
              "--output",
              project.resolve("out" + i).toString(),
              "--jdbc-url",
              url,
              "--jdbc-user",
              LocalPostgres.USER);
      assertThat(err.toString(), status, is(0));
      long rows;
      try (Connection c = DriverManager.getConnection(url, LocalPostgres.USER, null);
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM streamform.decision")) {
        rs.next();
        rows = rs.getLong(1);
      }
      seen.add(printed(DECIDED) + " printed, " + rows + " in the ledger");
      assertThat(seen.toString(), rows > 0, is(true));
      assertThat(seen.toString(), printed(DECIDED), is(rows));
    }
  }
}
