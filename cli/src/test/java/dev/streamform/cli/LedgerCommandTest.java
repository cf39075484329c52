package dev.streamform.cli;

import static dev.streamform.sink.Revisions.finalOf;
import static dev.streamform.sink.Revisions.revision;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.is;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.core.digest.RevisionIdentity;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.Ledger;
import dev.streamform.sink.LedgerWriter;
import dev.streamform.transforms.windows.WindowRevision;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code streamform ledger verify|show} and {@code streamform alias set} as a user meets them. */
class LedgerCommandTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  /** The hourly revenue project (tumbling 1h, allowed lateness 24h), from this module's folder. */
  private static final String HOURLY =
      Path.of("../revision-sink/src/test/resources/hourly-revenue").toString();

  private static final String LATE_EVENT =
      Path.of("../test-streams/fixtures/time/late-event").toString();

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private String url;
  private HikariDataSource pool;

  @BeforeEach
  void freshDatabase() {
    url = POSTGRES.newDatabase();
    pool = JdbcTarget.of(url).withUser("postgres").openPool("test", 2, 2_000);
  }

  @AfterEach
  void closePool() {
    pool.close();
  }

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  private int ledger(String command, String... more) {
    List<String> args = new java.util.ArrayList<>(List.of(command.split(" ")));
    args.addAll(
        List.of(HOURLY, "--model", "hourly_revenue", "--jdbc-url", url, "--jdbc-user", "postgres"));
    args.addAll(List.of(more));
    return run(args.toArray(String[]::new));
  }

  private void write(WindowRevision... records) throws Exception {
    new LedgerWriter(pool, Duration.ofSeconds(10)).write(List.of(records));
  }

  @Test
  void verifyPrintsTheFiguresAndExitsZeroWhenClean() throws Exception {
    write(
        revision(7, 10, 1, "30"),
        revision(7, 10, 2, "26"),
        finalOf(revision(7, 10, 2, "26")),
        revision(8, 10, 1, "12"));
    assertThat(ledger("ledger verify"), is(0));
    assertThat(
        out.toString(), is("2 projections, 3 revisions, 0 gaps, 0 mismatches, 0 conflicts\n"));
    assertThat(err.toString(), is(""));
  }

  @Test
  void verifyPrintsEachDefectAndExitsOne() throws Exception {
    write(revision(7, 10, 1, "30"), revision(8, 10, 3, "12"));
    write(revision(7, 10, 1, "31"));
    assertThat(ledger("ledger verify"), is(1));
    String id7 = Ledger.shortId(revision(7, 10, 1, "30").projectionId());
    String id8 = Ledger.shortId(revision(8, 10, 3, "12").projectionId());
    assertThat(
        out.toString(),
        is(
            "gap: merchant_id=8 [2026-08-30T10:00:00Z, 2026-08-30T11:00:00Z) generation 1"
                + " (projection "
                + id8
                + "): revision 1 is missing (held: [3])\n"
                + "gap: merchant_id=8 [2026-08-30T10:00:00Z, 2026-08-30T11:00:00Z) generation 1"
                + " (projection "
                + id8
                + "): revision 2 is missing (held: [3])\n"
                + "conflict: merchant_id=7 [2026-08-30T10:00:00Z, 2026-08-30T11:00:00Z) generation"
                + " 1 (projection "
                + id7
                + "): revision 1 offered with digest "
                + Ledger.shortId(revision(7, 10, 1, "31").aggregateDigest())
                + " refused: revision 1 is recorded with another digest\n"
                + "1 record is held, waiting for a predecessor\n"
                + "1 projection, 1 revision, 2 gaps, 0 mismatches, 1 conflict\n"));
  }

  /**
   * Sets merchant 7's projection to {@code revenue} with the digest of that value: a projection
   * that agrees with itself, so only its comparison with the ledger's last row can find it.
   */
  private void setProjectionValues(String revenue) throws Exception {
    Map<String, Object> values = Map.of("revenue", new BigDecimal(revenue));
    try (Connection c = pool.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "UPDATE streamform.projection SET aggregate_values = ?::jsonb,"
                    + " aggregate_digest = ? WHERE projection_id = ?")) {
      s.setString(1, RevisionIdentity.canonical(values));
      s.setString(2, RevisionIdentity.aggregateDigest(values));
      s.setString(3, revision(7, 10, 1, "30").projectionId());
      assertThat(s.executeUpdate(), is(1));
      c.commit(); // the pool does not auto-commit
    }
  }

  private static String window7() {
    return "merchant_id=7 [2026-08-30T10:00:00Z, 2026-08-30T11:00:00Z) generation 1 (projection "
        + Ledger.shortId(revision(7, 10, 1, "30").projectionId())
        + ")";
  }

  @Test
  void verifyNamesAProjectionWhoseValuesAndDigestAgreeButAreNotItsLedgersLastRow()
      throws Exception {
    write(revision(7, 10, 1, "30"), revision(7, 10, 2, "26"));
    setProjectionValues("99");
    // canonical text: a decimal is a JSON string (RevisionIdentity's class comment)
    assertThat(ledger("ledger verify"), is(1));
    assertThat(
        out.toString(),
        is(
            "mismatch: "
                + window7()
                + ": the projection's values {\"revenue\":\"99\"} are not ledger revision 2's"
                + " {\"revenue\":\"26\"}\n"
                + "1 projection, 2 revisions, 0 gaps, 1 mismatch, 0 conflicts\n"));
    assertThat(err.toString(), is(""));
  }

  @Test
  void verifyNamesAProjectionWhoseStatusIsNotItsLedgersLastRows() throws Exception {
    write(revision(7, 10, 1, "30"));
    try (Connection c = pool.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "UPDATE streamform.projection SET status = 'corrected' WHERE projection_id = ?")) {
      s.setString(1, revision(7, 10, 1, "30").projectionId());
      assertThat(s.executeUpdate(), is(1));
      c.commit();
    }
    assertThat(ledger("ledger verify"), is(1));
    assertThat(
        out.toString(),
        is(
            "mismatch: "
                + window7()
                + ": the projection's status corrected is not ledger revision 1's on_time\n"
                + "1 projection, 1 revision, 0 gaps, 1 mismatch, 0 conflicts\n"));
  }

  @Test
  void showPrintsAWindowsRevisionsAsATable() throws Exception {
    write(
        revision(7, 10, 1, "30"),
        revision(7, 10, 2, "26"),
        finalOf(revision(7, 10, 2, "26")),
        revision(8, 10, 1, "12"));
    assertThat(ledger("ledger show", "--window-key", "merchant_id=7"), is(0));
    WindowRevision r1 = revision(7, 10, 1, "30");
    String shown =
        out.toString().replaceAll("(?m)\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$", "<recorded>");
    assertThat(
        shown,
        is(
            "window [2026-08-30T10:00:00Z, 2026-08-30T11:00:00Z) merchant_id=7, generation 1"
                + " (canonical): final at revision 2\n"
                + "  projection "
                + r1.projectionId()
                + ", logical window "
                + r1.logicalWindowId()
                + "\n"
                + "  revision  predecessor  status     revenue  events       digest        recorded"
                + " at\n"
                + "  1         -            on_time    30       p0 0..1 (2)  "
                + Ledger.shortId(r1.aggregateDigest())
                + "  <recorded>\n"
                + "  2         1            corrected  26       p0 0..2 (3)  "
                + Ledger.shortId(revision(7, 10, 2, "26").aggregateDigest())
                + "  <recorded>\n"));
    // a value as the heading prints one that would print unlike itself, a JSON string, is read
    // as that string (found by an audit: only the raw form matched)
    String table = out.toString();
    out.getBuffer().setLength(0);
    assertThat(err.toString(), ledger("ledger show", "--window-key", "merchant_id=\"7\""), is(0));
    assertThat(out.toString(), is(table));
    assertThat(ledger("ledger show", "--window-key", "merchant_id=\"7"), is(2));
    assertThat(
        err.toString(),
        containsString(
            "--window-key: merchant_id=\"7: a value that begins with a quote is read as a JSON"
                + " string, as ledger show prints a value that would print unlike itself (e.g."
                + " shop=\"a\\nb\")"));
    err.getBuffer().setLength(0);
    assertThat(ledger("ledger show", "--window-key", "merchant_id=9"), is(1));
    assertThat(
        err.toString(), is("streamform ledger show: no window of model hourly_revenue matches\n"));
    err.getBuffer().setLength(0);
    assertThat(ledger("ledger show", "--generation", "9"), is(1));
    assertThat(
        err.toString(),
        is(
            "streamform ledger show: generation 9 of hourly_revenue has no projection in this"
                + " ledger (generations with projections: 1 (2))\n"));
  }

  @Test
  void aliasSetPromotesAGenerationAndRollsBackWithoutDeletingAnything() throws Exception {
    write(revision(7, 10, 1, "30", 1), revision(7, 10, 1, "31", 2));
    assertThat(ledger("alias set", "--generation", "2"), is(0));
    assertThat(
        out.toString(),
        is(
            "hourly_revenue: canonical generation 1 -> 2 (1 projection of generation 2;"
                + " generation 1 keeps its 1 projection)\n"));
    assertThat(
        err.toString(),
        is(
            "streamform alias set: note: "
                + HOURLY
                + " declares generation 1 for hourly_revenue\n"));
    assertThat(ledger("ledger show"), is(0));
    assertThat(out.toString(), containsString("generation 2 (canonical): at revision 1 (on_time)"));

    assertThat(ledger("alias set", "--generation", "1"), is(0));
    assertThat(
        out.toString(),
        endsWith(
            "hourly_revenue: canonical generation 2 -> 1 (1 projection of generation 1;"
                + " generation 2 keeps its 1 projection)\n"));
    assertThat(ledger("ledger verify"), is(0));
    assertThat(
        out.toString(),
        endsWith("2 projections, 2 revisions, 0 gaps, 0 mismatches, 0 conflicts\n"));
  }

  @Test
  void withoutModelTheProjectsOnlyWindowedModelIsVerified() throws Exception {
    write(revision(7, 10, 1, "30"), revision(7, 10, 2, "26"));
    assertThat(
        err.toString(),
        run("ledger", "verify", HOURLY, "--jdbc-url", url, "--jdbc-user", "postgres"),
        is(0));
    assertThat(out.toString(), containsString(" 2 revisions, 0 gaps, 0 mismatches, 0 conflicts\n"));
  }

  @Test
  void withoutModelAProjectWithNoWindowedModelIsSaidSo() {
    String receipts = Path.of("../test-streams/fixtures/decisions/receipts").toString();
    assertThat(
        run("ledger", "verify", receipts, "--jdbc-url", url, "--jdbc-user", "postgres"), is(2));
    assertThat(
        err.toString(),
        containsString(
            "the project has no windowed model (a model with window:); its models: receipt_risk,"));
  }

  @Test
  void aPasswordInTheUrlIsRefused() {
    url = url + "?password=secret";
    assertThat(ledger("ledger verify"), is(2));
    assertThat(
        err.toString(),
        containsString(
            "--jdbc-url: the JDBC URL names a password: give it in the"
                + " environment (STREAMFORM_JDBC_PASSWORD) or a password file instead"));
  }

  @Test
  void aDatabaseWithoutALedgerIsSaidSo() {
    assertThat(ledger("ledger verify"), is(1));
    assertThat(
        err.toString(),
        is(
            "streamform ledger verify: no Streamform ledger in "
                + url
                + " as postgres (streamform run --jdbc-url creates it)\n"));
  }

  @Test
  void runSendsOnlyAWindowedModelsRevisionsToADatabase() {
    assertThat(
        run(
            "run",
            LATE_EVENT,
            "--model",
            "customer_metrics",
            "--bootstrap-servers",
            "127.0.0.1:9",
            "--jdbc-url",
            url),
        is(2));
    assertThat(
        err.toString(),
        is(
            "streamform run: --jdbc-url: model 'customer_metrics' is an upsert model; only a"
                + " windowed model's revisions and a scoring model's decisions go to a database —"
                + " see 'streamform run --help'\n"));
  }
}
