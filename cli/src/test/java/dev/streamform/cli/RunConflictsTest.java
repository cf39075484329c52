package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code streamform run --jdbc-url} into a generation that already holds other values: the revision
 * sink refuses and records each conflicting revision (docs/semantics.md §8), and the run reports
 * them and exits 1 (docs/decisions/0040); a replay of the same input is no conflict.
 */
class RunConflictsTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  @TempDir Path project;
  private StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();
  private String url;

  @BeforeEach
  void aWindowedModelOnAFile() throws Exception {
    url = POSTGRES.newDatabase();
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
            + " GROUP BY merchant_id\n");
    payments("3.00");
  }

  /** Merchant 7's 10:00 hour, and merchant 8's with {@code amount}. */
  private void payments(String amount) throws Exception {
    Files.writeString(
        project.resolve("payments.jsonl"),
        "{\"merchant_id\":7,\"amount\":10.00,\"paid_at\":\"2026-08-30T10:00:00Z\"}\n"
            + "{\"merchant_id\":7,\"amount\":5.00,\"paid_at\":\"2026-08-30T10:30:00Z\"}\n"
            + "{\"merchant_id\":8,\"amount\":"
            + amount
            + ",\"paid_at\":\"2026-08-30T10:10:00Z\"}\n");
  }

  private int run(String command) {
    out = new StringWriter();
    err = new StringWriter();
    List<String> args = new ArrayList<>(List.of(command.split(" ")));
    args.addAll(
        List.of(
            project.toString(),
            "--model",
            "hourly_revenue",
            "--jdbc-url",
            url,
            "--jdbc-user",
            "postgres"));
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
  }

  @Test
  void aReplayIsNoConflictAChangedValueIsReportedAndFailsTheRun() throws Exception {
    assertThat(err.toString(), run("run"), is(0));
    assertThat(out.toString(), not(containsString("conflict")));
    // the same input again: every revision is a replay, a no-op
    assertThat(err.toString(), run("run"), is(0));
    assertThat(out.toString(), not(containsString("conflict")));

    // the same generation with another value for merchant 8: refused, recorded and reported
    payments("4.00");
    int status = run("run");
    String printed = out.toString();
    assertThat(
        err.toString(),
        printed,
        containsString(
            "hourly_revenue: 2 revision conflicts refused and recorded: generation 1 already"
                + " holds other values for those revisions in "
                + url
                + " as postgres (streamform ledger verify "
                + project
                + " --model hourly_revenue lists them)\n"));
    assertThat(printed + err, status, is(1));
    assertThat(
        err.toString(),
        endsWith(
            "streamform run: the revision ledger refused 2 revisions of generation 1 that differ"
                + " from what it holds: a re-run of a generation with other input or another"
                + " policy; a new policy is a new generation (--generation N, --shadow)\n"));

    // ledger verify shows the same refusals
    assertThat(out.toString() + err, run("ledger verify"), is(1));
    assertThat(out.toString(), endsWith(" 2 conflicts\n"));

    // the same changed input again: refused again, so reported and failing again (a script that
    // re-runs must not take its values for the ledger's), and still recorded once
    status = run("run");
    assertThat(
        err.toString(),
        out.toString(),
        containsString(
            "hourly_revenue: 2 revision conflicts refused and recorded: generation 1 already"
                + " holds other values for those revisions in "));
    assertThat(out.toString() + err, status, is(1));
    assertThat(
        err.toString(),
        endsWith(
            "streamform run: the revision ledger refused 2 revisions of generation 1 that differ"
                + " from what it holds: a re-run of a generation with other input or another"
                + " policy; a new policy is a new generation (--generation N, --shadow)\n"));
    assertThat(out.toString() + err, run("ledger verify"), is(1));
    assertThat(out.toString(), endsWith(" 2 conflicts\n"));

    // the original input again: a replay of what the ledger holds, no conflict
    payments("3.00");
    assertThat(out.toString() + err, run("run"), is(0));
    assertThat(out.toString(), not(containsString("conflict")));
  }

  @Test
  void aReRunIntoALedgerWithDeletedRowsSaysTheLedgerIsDamagedNotTheInput() throws Exception {
    assertThat(err.toString(), run("run"), is(0));
    // rows deleted behind the append-only trigger's back, as a superuser can
    try (HikariDataSource pool =
            JdbcTarget.of(url).withUser("postgres").openPool("test", 2, 2_000);
        Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("SET session_replication_role = replica");
      s.execute("DELETE FROM streamform.correction_ledger");
      c.commit();
    }

    // the same input again: each revision is refused for the missing row, not for other values
    int status = run("run");
    assertThat(out.toString() + err, status, is(1));
    assertThat(
        err.toString(),
        out.toString(),
        containsString(
            "hourly_revenue: 2 revisions refused and recorded: the ledger in "
                + url
                + " as postgres lacks rows of revisions its projections have passed (streamform"
                + " ledger verify "
                + project
                + " --model hourly_revenue lists them)\n"));
    assertThat(out.toString(), not(containsString("already holds other values")));
    assertThat(
        err.toString(),
        endsWith(
            "streamform run: the revision ledger is damaged: rows of 2 revisions of generation 1"
                + " are missing from it (deleted outside Streamform), so it refused them again;"
                + " streamform ledger verify checks it\n"));
  }
}
