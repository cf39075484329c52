package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
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
 * {@code streamform run --jdbc-url} holds a generation to the time policy it ran with
 * (docs/decisions/0141): a change of the watermark topology that {@code plan} says needs a new
 * generation is refused before the job, naming the declaration's file and line, the generation and
 * the fix; an unchanged policy runs as before.
 */
class GenerationPolicyTest {
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
            + "    event_time: paid_at\n    watermark: 5m\n");
    Files.writeString(
        project.resolve("streamform.yml"),
        "models:\n  hourly_revenue:\n    key: [merchant_id]\n    window: 1h\n"
            + "    allowed_lateness: 30m\n");
    Files.writeString(
        project.resolve("models/hourly_revenue.sql"),
        "SELECT merchant_id, SUM(amount) AS revenue FROM source('payments')"
            + " GROUP BY merchant_id\n");
    // merchant 7's refund of 10:20 arrives after 12:00: too late under 30m, on time under 2h
    Files.writeString(
        project.resolve("payments.jsonl"),
        "{\"merchant_id\":7,\"amount\":10.00,\"paid_at\":\"2026-08-30T10:00:00Z\"}\n"
            + "{\"merchant_id\":7,\"amount\":3.00,\"paid_at\":\"2026-08-30T10:30:00Z\"}\n"
            + "{\"merchant_id\":8,\"amount\":1.00,\"paid_at\":\"2026-08-30T12:00:00Z\"}\n"
            + "{\"merchant_id\":7,\"amount\":4.00,\"paid_at\":\"2026-08-30T10:20:00Z\"}\n");
  }

  private int run(String... extra) {
    out = new StringWriter();
    err = new StringWriter();
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                project.toString(),
                "--model",
                "hourly_revenue",
                "--jdbc-url",
                url,
                "--jdbc-user",
                "postgres"));
    args.addAll(List.of(extra));
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
  }

  private void edit(String file, String from, String to) throws Exception {
    Path p = project.resolve(file);
    String text = Files.readString(p);
    assertThat(text, containsString(from));
    Files.writeString(p, text.replace(from, to));
  }

  /** Every file of the default output folder with its bytes (not the run's lock). */
  private Map<String, String> outputs() throws Exception {
    Map<String, String> files = new TreeMap<>();
    Path folder = project.resolve("target/hourly_revenue");
    try (Stream<Path> all = Files.list(folder)) {
      for (Path f : (Iterable<Path>) all::iterator) {
        if (f.getFileName().toString().startsWith(".")) {
          continue;
        }
        files.put(f.getFileName().toString(), Files.readString(f));
      }
    }
    return files;
  }

  private void sql(String statement) throws Exception {
    try (HikariDataSource pool =
            JdbcTarget.of(url).withUser("postgres").openPool("test", 2, 2_000);
        Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute(statement);
      c.commit();
    }
  }

  private long count(String query) throws Exception {
    try (HikariDataSource pool =
            JdbcTarget.of(url).withUser("postgres").openPool("test", 2, 2_000);
        Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void aWatermarkChangedUnderTheSameGenerationIsRefusedBeforeTheJob() throws Exception {
    assertThat(err.toString(), run(), is(0));
    Map<String, String> written = outputs();
    long revisions = count("SELECT count(*) FROM streamform.correction_ledger");
    // unchanged: a replay, nothing new, exit 0
    assertThat(err.toString(), run(), is(0));
    assertThat(out.toString(), not(containsString("conflict")));

    edit("sources.yml", "watermark: 5m", "watermark: 6m");
    int status = run();
    assertThat(out.toString() + err, status, is(1));
    assertThat(
        err.toString(),
        containsString(
            "streamform run: "
                + project.resolve("sources.yml")
                + ":10: watermark: 5m -> 6m, but generation 1 of hourly_revenue ran with watermark:"
                + " 5m"));
    assertThat(
        err.toString(),
        containsString(
            "set generation: 2 on model hourly_revenue in "
                + project.resolve("streamform.yml")
                + " and roll it out as a new generation"));
    assertThat(err.toString().lines().count(), is(1L));
    assertThat(out.toString(), not(containsString("revisions")));
    assertThat(count("SELECT count(*) FROM streamform.correction_ledger"), is(revisions));
    assertThat(outputs(), is(written));

    // declared as plan says, generation 2 runs beside generation 1
    edit("streamform.yml", "allowed_lateness: 30m\n", "allowed_lateness: 30m\n    generation: 2\n");
    assertThat(out.toString() + err, run("--shadow"), is(0));
  }

  @Test
  void anAllowedLatenessChangedUnderTheSameGenerationLeavesTheOutputsAsTheyWere() throws Exception {
    assertThat(err.toString(), run(), is(0));
    Map<String, String> written = outputs();

    edit("streamform.yml", "allowed_lateness: 30m", "allowed_lateness: 2h");
    int status = run();
    assertThat(out.toString() + err, status, is(1));
    assertThat(
        err.toString(),
        containsString(
            "streamform run: "
                + project.resolve("streamform.yml")
                + ":5: allowed_lateness: 30m -> 2h, but generation 1 of hourly_revenue ran with"
                + " allowed_lateness: 30m"));
    assertThat(err.toString(), containsString("set generation: 2 on model hourly_revenue"));
    assertThat(out.toString(), not(containsString("conflict")));
    assertThat(outputs(), is(written));
  }

  /**
   * A ledger an older build wrote holds no policy: the first run records it (and is not refused),
   * and from then on the generation is held to it.
   */
  @Test
  void aLedgerWithoutARecordedPolicyRecordsItOnTheFirstRun() throws Exception {
    assertThat(err.toString(), run(), is(0));
    sql("DELETE FROM streamform.generation_policy");
    assertThat(err.toString(), run(), is(0));
    assertThat(count("SELECT count(*) FROM streamform.generation_policy"), is(1L));

    edit("sources.yml", "watermark: 5m", "watermark: 6m");
    assertThat(out.toString() + err, run(), is(1));
    assertThat(err.toString(), containsString(":10: watermark: 5m -> 6m, but generation 1"));
  }
}
