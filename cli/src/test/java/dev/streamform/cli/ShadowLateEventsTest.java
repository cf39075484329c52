package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 33 item 4 on files: the live run's too-late events stay in its late output, a shadow run
 * replays them with the rest of the source, a larger allowed lateness takes them in, and a rollback
 * deletes no revision (docs/decisions/0048).
 */
class ShadowLateEventsTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  /**
   * Merchant 7's 10:00 hour: 10 + 5 - 2 on time or corrected; the refund of 4.00 at offset 5
   * arrives after the 12:00 event moved the watermark past 10:00's end + 30m: too late for
   * generation 1, a correction under 2h of allowed lateness (the window closes at 13:00).
   */
  private static final String EVENTS =
      String.join(
          "\n",
          "{\"merchant_id\":7,\"amount\":10.00,\"paid_at\":\"2026-08-30T10:00:00Z\"}",
          "{\"merchant_id\":7,\"amount\":5.00,\"paid_at\":\"2026-08-30T10:30:00Z\"}",
          "{\"merchant_id\":7,\"amount\":20.00,\"paid_at\":\"2026-08-30T11:10:00Z\"}",
          "{\"merchant_id\":7,\"amount\":-2.00,\"paid_at\":\"2026-08-30T10:50:00Z\"}",
          "{\"merchant_id\":7,\"amount\":1.00,\"paid_at\":\"2026-08-30T12:00:00Z\"}",
          "{\"merchant_id\":7,\"amount\":4.00,\"paid_at\":\"2026-08-30T10:20:00Z\"}",
          "");

  private static final String MODEL =
      "models:\n  hourly_revenue:\n    key: [merchant_id]\n    window: 1h\n";

  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private String url;
  private HikariDataSource pool;
  private Path project;
  private Path late;

  @BeforeEach
  void runGenerationOneLive() throws Exception {
    url = POSTGRES.newDatabase();
    pool = JdbcTarget.of(url).withUser("postgres").openPool("test", 2, 2_000);
    project = dir.resolve("payments");
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  payments:\n    connector: file\n    path: payments.jsonl\n    schema:\n"
            + "      merchant_id: int64\n      amount: decimal(12,2)\n      paid_at: timestamp\n"
            + "    event_time: paid_at\n");
    Files.writeString(project.resolve("streamform.yml"), MODEL + "    allowed_lateness: 30m\n");
    Files.writeString(
        project.resolve("models/hourly_revenue.sql"),
        "SELECT merchant_id, SUM(amount) AS revenue FROM source('payments')"
            + " GROUP BY merchant_id\n");
    Files.writeString(project.resolve("payments.jsonl"), EVENTS);
    assertThat(err.toString(), run("run", project.toString(), "--model", "hourly_revenue"), is(0));
    late = project.resolve("target/hourly_revenue/hourly_revenue.late.jsonl");
    assertThat(Files.readString(late), containsString("\"offset\":5,"));
    out.getBuffer().setLength(0);
  }

  @AfterEach
  void closePool() {
    pool.close();
  }

  private int run(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--jdbc-url", url, "--jdbc-user", "postgres"));
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), all.toArray(String[]::new));
  }

  /** Ledger rows per generation. */
  private Map<Integer, Long> ledgerRows() throws Exception {
    Map<Integer, Long> rows = new TreeMap<>();
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT p.generation, count(*) FROM streamform.correction_ledger r JOIN"
                    + " streamform.projection p USING (projection_id) GROUP BY p.generation")) {
      while (rs.next()) {
        rows.put(rs.getInt(1), rs.getLong(2));
      }
    }
    return rows;
  }

  @Test
  void aLargerAllowedLatenessTakesInTheTooLateEventAndTheLiveLateOutputStays() throws Exception {
    String refused = Files.readString(late);
    Files.writeString(
        project.resolve("streamform.yml"), MODEL + "    allowed_lateness: 2h\n    generation: 2\n");
    int status = run("run", project.toString(), "--model", "hourly_revenue", "--shadow");
    System.out.println(out);
    assertThat(err.toString(), status, is(0));
    // the live run's record of what it refused is not rewritten by the shadow
    assertThat(Files.readString(late), is(refused));
    assertThat(
        out.toString(),
        containsString(
            "too-late events of the live run ("
                + late
                + ", 1 row): 1 in generation 2's revisions, 0 still outside them\n"));
    out.getBuffer().setLength(0);
    assertThat(
        run(
            "compare-generations",
            project.toString(),
            "--model",
            "hourly_revenue",
            "--from",
            "1",
            "--to",
            "2"),
        is(3));
    System.out.println(out);
    assertThat(
        out.toString(),
        containsString(
            "merchant_id=7 [2026-08-30T10:00:00Z, 2026-08-30T11:00:00Z): different —"
                + " generation 1: revenue=13"));
    assertThat(out.toString(), containsString("generation 2: revenue=17"));
    // the gates of the shadow generation: the live run's late row of the refund is not a second
    // disposition of an event generation 2 took in (docs/decisions/0053)
    out.getBuffer().setLength(0);
    int gates =
        run(
            "gates",
            project.toString(),
            "--model",
            "hourly_revenue",
            "--generation",
            "2",
            "--skip",
            "oracle");
    System.out.println(out);
    assertThat(
        out.toString(),
        containsString(
            "PASS          offsets        0/0         threshold <= 0/0    missing/duplicated of 6"
                + " source offsets (0 without output by design: blank, punctuation, filtered by"
                + " WHERE; 1 row of hourly_revenue.late.jsonl refused by another policy, accepted"
                + " by this generation's: looked for in its revisions)"));
    assertThat(out.toString(), gates, is(0));
    // promote, roll back: every revision of both generations stays
    Map<Integer, Long> before = ledgerRows();
    assertThat(before.keySet(), is(java.util.Set.of(1, 2)));
    for (String g : List.of("2", "1")) {
      assertThat(
          err.toString(),
          run("alias", "set", project.toString(), "--model", "hourly_revenue", "--generation", g),
          is(0));
    }
    assertThat(ledgerRows(), is(before));
    assertThat(
        err.toString(),
        run("ledger", "verify", project.toString(), "--model", "hourly_revenue"),
        is(0));
  }

  @Test
  void theSamePolicyInAShadowLeavesTheEventOutsideAndSaysWhich() throws Exception {
    Files.writeString(
        project.resolve("streamform.yml"),
        MODEL + "    allowed_lateness: 30m\n    generation: 2\n");
    int status = run("run", project.toString(), "--model", "hourly_revenue", "--shadow");
    System.out.println(out);
    assertThat(err.toString(), status, is(0));
    assertThat(
        out.toString(),
        containsString(
            "too-late events of the live run ("
                + late
                + ", 1 row): 0 in generation 2's revisions, 1 still outside them (first:"
                + " partition 0 offset 5 {\"merchant_id\":7} window 2026-08-30T10:00:00Z)\n"));
  }

  /**
   * A late row repeated at its position (as a rerun on Kafka publishes it again) is one too-late
   * event, counted once by its position as the gates count it (docs/decisions/0037; found by a
   * read-only audit of the gates on Kafka: compare-generations counted 2 events for one).
   */
  @Test
  void aLateRowRepeatedAtItsPositionIsOneEvent() throws Exception {
    Files.writeString(late, Files.readString(late).repeat(2));
    Files.writeString(
        project.resolve("streamform.yml"), MODEL + "    allowed_lateness: 2h\n    generation: 2\n");
    int status = run("run", project.toString(), "--model", "hourly_revenue", "--shadow");
    assertThat(err.toString(), status, is(0));
    assertThat(
        out.toString(),
        containsString(
            "too-late events of the live run ("
                + late
                + ", 2 rows, 1 a repeat of another's position, counted once): 1 in generation 2's"
                + " revisions, 0 still outside them\n"));
  }

  /**
   * A live folder a run was interrupted while replacing: its late output may be another run's, so
   * the shadow run refuses it before its job (docs/decisions/0101).
   */
  @Test
  void aLiveFolderARunWasInterruptedWhileReplacingIsRefusedBeforeTheJob() throws Exception {
    Path folder = late.getParent();
    Files.writeString(
        folder.resolve(".streamform-incomplete"), "pid 4242 started 2026-12-04T22:00:00Z\n");
    Files.writeString(
        project.resolve("streamform.yml"), MODEL + "    allowed_lateness: 2h\n    generation: 2\n");

    int status = run("run", project.toString(), "--model", "hourly_revenue", "--shadow");

    assertThat(err.toString(), status, is(1));
    assertThat(
        err.toString(),
        containsString(
            "streamform run: the outputs in "
                + folder
                + " are an incomplete set: a run (pid 4242, started 2026-12-04T22:00:00Z) was"
                + " interrupted while replacing them, or is replacing them now: run the model"
                + " again (streamform run) once no run writes there\n"));
    assertThat(ledgerRows().containsKey(2), is(false));
  }

  @Test
  void aLateOutputThatCannotBeReadIsNamedWithItsLine() throws Exception {
    Files.writeString(late, Files.readString(late) + "not a row\n");
    Files.writeString(
        project.resolve("streamform.yml"), MODEL + "    allowed_lateness: 2h\n    generation: 2\n");
    assertThat(run("run", project.toString(), "--model", "hourly_revenue", "--shadow"), is(1));
    assertThat(
        err.toString(),
        containsString(
            "streamform run: cannot check the live run's too-late events: "
                + late
                + ":2: not a late row (a JSON object with offset and window_start)\n"));
  }

  @Test
  void aShadowRunOnFilesWritesNoTopic() {
    int status =
        Streamform.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "run",
            project.toString(),
            "--model",
            "hourly_revenue",
            "--generation",
            "2",
            "--shadow",
            "--jdbc-url",
            url,
            "--jdbc-user",
            "postgres",
            "--bootstrap-servers",
            "127.0.0.1:1");
    assertThat(status, is(2));
    assertThat(
        err.toString(),
        containsString(
            "--shadow: a shadow run writes only its revisions to the database, never the model's"
                + " topics; leave out --bootstrap-servers"));
  }
}
