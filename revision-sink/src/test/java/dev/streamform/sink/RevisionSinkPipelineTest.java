package dev.streamform.sink;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.teststreams.fixture.FixtureStream;
import dev.streamform.teststreams.model.DeclaredModel;
import dev.streamform.teststreams.oracle.WindowPolicy;
import dev.streamform.teststreams.oracle.WindowedOracle;
import dev.streamform.teststreams.oracle.WindowedOutcome;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowRevision;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hourly revenue model of {@code src/test/resources/hourly-revenue} (tumbling 1h, allowed
 * lateness 24h) on the DirectRunner: its fixture's events as a TestStream, the declared clock and
 * windows, and {@link RevisionSink} into PostgreSQL. The late refund is revision 2 of merchant 7's
 * [10:00, 11:00); afterwards the ledger verifies clean and the canonical view holds the oracle's
 * final values.
 */
class RevisionSinkPipelineTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private static final Path PROJECT = Path.of("src/test/resources/hourly-revenue");
  /** Set by a test to have the database restarted when revision 2 passes on its way to the sink. */
  private static final AtomicBoolean RESTART_AT_REVISION_2 = new AtomicBoolean();
  /** When the restarted database accepted connections again (epoch millis). */
  private static final AtomicLong RESTARTED_AT = new AtomicLong();

  private String url;
  private HikariDataSource pool;

  @BeforeEach
  void freshDatabase() {
    url = POSTGRES.newDatabase();
    pool = JdbcTarget.of(url).withUser("postgres").openPool("test", 2, 1_000);
  }

  @AfterEach
  void closePool() {
    pool.close();
    RESTART_AT_REVISION_2.set(false);
    RESTARTED_AT.set(0);
  }

  @Test
  void theLateRefundIsRevisionTwoAndTheCanonicalViewHoldsTheOraclesFinalValues() throws Exception {
    run();
    assertThat(rows("SELECT window_key->>'merchant_id', to_char(window_start AT TIME ZONE 'UTC', 'HH24:MI'),"
            + " l.revision, l.predecessor, l.status, l.aggregate_values->>'revenue'"
            + " FROM streamform.correction_ledger l JOIN streamform.projection p USING (projection_id)"
            + " ORDER BY 2, 1, 3"),
        equalTo(List.of(
            "7 10:00 1 null on_time 30", "7 10:00 2 1 corrected 26", "8 10:00 1 null on_time 12",
            "7 11:00 1 null on_time 5")));
    assertCleanAndCanonicalIsTheOracles();

    // the whole job again (a restore from an old checkpoint): every record is a no-op
    String projections = "SELECT projection_id, revision, status, updated_at, finalized_at FROM streamform.projection ORDER BY 1";
    List<String> before = rows(projections);
    run();
    assertThat(rows(projections), equalTo(before));
    assertThat(rows("SELECT count(*) FROM streamform.correction_ledger"), equalTo(List.of("4")));
    assertCleanAndCanonicalIsTheOracles();
  }

  @Test
  void theDatabaseRestartedMidStreamLosesAndDoublesNothing() throws Exception {
    RESTART_AT_REVISION_2.set(true);
    run();
    assertThat("the database was restarted", RESTARTED_AT.get(), greaterThan(0L));
    // revision 2 reached the sink while the database was down: it was written once it was back
    assertThat(rows("SELECT recorded_at >= to_timestamp(" + RESTARTED_AT.get() + " / 1000.0)"
            + " FROM streamform.correction_ledger WHERE revision = 2"),
        equalTo(List.of("true")));
    assertThat(rows("SELECT count(*) FROM streamform.correction_ledger"), equalTo(List.of("4")));
    assertCleanAndCanonicalIsTheOracles();
  }

  private void assertCleanAndCanonicalIsTheOracles() throws Exception {
    assertThat(Ledger.at(pool).verify("hourly_revenue").summary(),
        equalTo("3 projections, 4 revisions, 0 gaps, 0 mismatches, 0 conflicts"));
    Map<String, String> canonical = new TreeMap<>();
    for (String row : rows("SELECT window_key->>'merchant_id', to_char(window_start AT TIME ZONE 'UTC', 'HH24:MI'),"
        + " status, revision, aggregate_values->>'revenue' FROM streamform.canonical_projection")) {
      String[] f = row.split(" ");
      canonical.put(f[0] + " " + f[1], f[2] + " r" + f[3] + " " + f[4]);
    }
    assertThat(canonical, equalTo(oracleFinals()));
    assertThat(canonical.get("7 10:00"), equalTo("final r2 26"));
  }

  /** Per merchant and window start, the oracle's final record: {@code final r2 26}. */
  private static Map<String, String> oracleFinals() throws Exception {
    Project project = Project.load(PROJECT);
    DeclaredModel model = DeclaredModel.of(project, "hourly_revenue");
    Fixture fixture = Fixture.load(project, PROJECT.resolve("fixtures/late_refund.yml"));
    WindowedOutcome outcome =
        WindowedOracle.of(model.source(), model.query(),
                WindowPolicy.tumbling("hourly_revenue", Duration.ofHours(1)).withAllowedLateness(Duration.ofHours(24)))
            .run(fixture);
    Map<String, String> finals = new TreeMap<>();
    // rows are compared per (key, window), in order within it, as fixtures are
    Map<String, List<String>> oracleRows = new TreeMap<>();
    for (WindowedOutcome.Row r : outcome.rows()) {
      String at = r.key().get("merchant_id") + " " + r.windowStart().toString().substring(11, 16);
      String revenue = ((BigDecimal) r.values().get("revenue")).stripTrailingZeros().toPlainString();
      oracleRows.computeIfAbsent(at, k -> new ArrayList<>())
          .add("r" + r.revision() + " " + r.status().yamlName() + " " + revenue);
      if (r.status() == WindowedOutcome.Status.FINAL) {
        finals.put(at, "final r" + r.revision() + " " + revenue);
      }
    }
    // the fixture's expect: rows say the same as the oracle (so `streamform test` agrees)
    Map<String, List<String>> expected = new TreeMap<>();
    for (Fixture.Row r : fixture.expect()) {
      expected.computeIfAbsent(
              r.values().get("merchant_id") + " " + r.windowStart().get().toString().substring(11, 16),
              k -> new ArrayList<>())
          .add("r" + r.revision().get() + " " + r.status().get().yamlName() + " "
              + new BigDecimal(String.valueOf(r.values().get("revenue"))).stripTrailingZeros().toPlainString());
    }
    assertThat(oracleRows, equalTo(expected));
    return finals;
  }

  private void run() throws Exception {
    Project project = Project.load(PROJECT);
    DeclaredModel model = DeclaredModel.of(project, "hourly_revenue");
    FixtureStream stream =
        FixtureStream.compile(Fixture.load(project, PROJECT.resolve("fixtures/late_refund.yml")), model);
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    PCollection<SourceRecord> records = p.apply("Payments", stream.testStream());
    PCollection<WindowRevision> revisions =
        records
            .apply("EventTime", EventTimeExtraction.from("paid_at"))
            .events()
            .apply("Clock", model.clock().withPartitions(stream.partitions()))
            .events()
            .apply("Model", model.windows())
            .revisions();
    revisions
        .apply("Restart the database at revision 2", ParDo.of(new RestartAtRevisionTwo()))
        .setCoder(revisions.getCoder())
        .apply("Ledger", RevisionSink.to(JdbcTarget.of(url).withUser("postgres")).withBatchSize(2));
    PipelineResult.State state = p.run().waitUntilFinish();
    assertThat(state, equalTo(PipelineResult.State.DONE));
  }

  /** Passes records on; the first time revision 2 passes (when asked to) restarts the database. */
  private static final class RestartAtRevisionTwo extends DoFn<WindowRevision, WindowRevision> {
    @ProcessElement
    public void process(@Element WindowRevision r, OutputReceiver<WindowRevision> out) {
      if (r.revision() == 2 && r.isRevision() && RESTART_AT_REVISION_2.compareAndSet(true, false)) {
        try {
          POSTGRES.server().stop();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        Thread restart = new Thread(() -> {
          try {
            Thread.sleep(2_000);
            POSTGRES.server().start();
            RESTARTED_AT.set(System.currentTimeMillis());
          } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
          }
        }, "restart-postgres");
        restart.start();
      }
      out.output(r);
    }
  }

  private List<String> rows(String sql) throws SQLException {
    return Tables.rows(pool, sql);
  }
}
