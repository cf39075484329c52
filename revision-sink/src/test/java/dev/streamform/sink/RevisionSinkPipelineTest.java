package dev.streamform.sink;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.core.time.WindowStatus;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowRevision;
import dev.streamform.transforms.windows.WindowedAggregate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The hourly revenue example (tumbling 1h, allowed lateness 24h, watermark 5m; the events of {@code
 * src/test/resources/hourly-revenue/fixtures/late_refund.yml}) on the DirectRunner: a TestStream
 * through event-time extraction, the clock, {@link WindowedAggregate} and {@link RevisionSink} into
 * PostgreSQL. Worked by hand: merchant 7 pays 10 @10:00 and 20 @10:30, merchant 8 pays 12 @10:40;
 * 7's 5 @11:10 moves W to 11:05, so [10:00, 11:00) gets revision 1 (7: 30, 8: 12); 7's refund
 * -4 @10:50 then arrives late, within the allowed lateness: revision 2 of 7's window, 26. The end
 * of input gives [11:00, 12:00) of 7 revision 1 (5) and finalizes every window. Afterwards the
 * ledger verifies clean and the canonical view holds each window's final record.
 */
@Isolated // stops and starts the module's one PostgreSQL server, which the other classes use
class RevisionSinkPipelineTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private static final Schema PAYMENTS =
      Schema.builder()
          .addNullableField("merchant_id", Schema.FieldType.INT64)
          .addNullableField("amount", Schema.FieldType.DECIMAL)
          .addNullableField("paid_at", Schema.FieldType.STRING)
          .build();

  /** Set by a test to have the database restarted when revision 2 passes on its way to the sink. */
  private static final AtomicBoolean RESTART_AT_REVISION_2 = new AtomicBoolean();

  /** When the restarted database accepted connections again (epoch millis). */
  private static final AtomicLong RESTARTED_AT = new AtomicLong();

  /** The final records the windows emitted, as {@code merchant hh:mm final rN revenue}. */
  private static final Set<String> FINALS = ConcurrentHashMap.newKeySet();

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
    FINALS.clear();
  }

  @Test
  void theLateRefundIsRevisionTwoAndTheCanonicalViewHoldsTheFinalValues() throws Exception {
    run();
    assertThat(
        rows(
            "SELECT window_key->>'merchant_id', to_char(window_start AT TIME ZONE 'UTC',"
                + " 'HH24:MI'), l.revision, l.predecessor, l.status, l.aggregate_values->>'revenue'"
                + " FROM streamform.correction_ledger l JOIN streamform.projection p USING"
                + " (projection_id) ORDER BY 2, 1, 3"),
        equalTo(
            List.of(
                "7 10:00 1 null on_time 30",
                "7 10:00 2 1 corrected 26",
                "8 10:00 1 null on_time 12",
                "7 11:00 1 null on_time 5")));
    assertCleanAndCanonicalIsTheFinalValue();

    // the whole job again (a restore from an old checkpoint): every record is a no-op
    String projections =
        "SELECT projection_id, revision, status, updated_at, finalized_at FROM"
            + " streamform.projection ORDER BY 1";
    List<String> before = rows(projections);
    run();
    assertThat(rows(projections), equalTo(before));
    assertThat(rows("SELECT count(*) FROM streamform.correction_ledger"), equalTo(List.of("4")));
    assertCleanAndCanonicalIsTheFinalValue();
  }

  @Test
  void theDatabaseRestartedMidStreamLosesAndDoublesNothing() throws Exception {
    RESTART_AT_REVISION_2.set(true);
    run();
    assertThat("the database was restarted", RESTARTED_AT.get(), greaterThan(0L));
    // revision 2 reached the sink while the database was down: it was written once it was back
    assertThat(
        rows(
            // the server's own start time: a write can land between the server accepting
            // connections and start() returning, so a clock read after start() could be later
            "SELECT recorded_at >= pg_postmaster_start_time()"
                + " FROM streamform.correction_ledger WHERE revision = 2"),
        equalTo(List.of("true")));
    assertThat(rows("SELECT count(*) FROM streamform.correction_ledger"), equalTo(List.of("4")));
    assertCleanAndCanonicalIsTheFinalValue();
  }

  private void assertCleanAndCanonicalIsTheFinalValue() throws Exception {
    assertThat(
        Ledger.at(pool).verify("hourly_revenue").summary(),
        equalTo("3 projections, 4 revisions, 0 gaps, 0 mismatches, 0 conflicts"));
    Set<String> canonical =
        new TreeSet<>(
            rows(
                "SELECT window_key->>'merchant_id', to_char(window_start AT TIME ZONE 'UTC',"
                    + " 'HH24:MI'), status, 'r' || revision, aggregate_values->>'revenue' FROM"
                    + " streamform.canonical_projection"));
    assertThat(
        canonical,
        equalTo(
            new TreeSet<>(
                List.of("7 10:00 final r2 26", "7 11:00 final r1 5", "8 10:00 final r1 12"))));
    assertThat(canonical, equalTo(new TreeSet<>(FINALS)));
  }

  private void run() {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    TestStream<SourceRecord> payments =
        TestStream.create(SourceRecordCoder.of(PAYMENTS))
            .addElements(payment(0, 7, "10", "10:00"))
            .addElements(payment(1, 7, "20", "10:30"))
            .addElements(payment(2, 8, "12", "10:40"))
            .addElements(payment(3, 7, "5", "11:10"))
            .addElements(payment(4, 7, "-4", "10:50"))
            .advanceWatermarkToInfinity();
    PCollection<WindowRevision> revisions =
        p.apply("Payments", payments)
            .apply("EventTime", EventTimeExtraction.from("paid_at"))
            .events()
            .apply(
                "Clock",
                SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                    .keepingLateEvents()
                    .withContiguousOffsets()
                    .withPartitions(0))
            .events()
            .apply(
                "Windows",
                WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
                    .forModel("hourly_revenue")
                    .by("merchant_id")
                    .aggregating(Aggregation.sum("amount").as("revenue"))
                    .withAllowedLateness(Duration.standardHours(24)))
            .revisions();
    revisions
        .apply("Restart the database at revision 2", ParDo.of(new RestartAtRevisionTwo()))
        .setCoder(revisions.getCoder())
        .apply("Ledger", RevisionSink.to(JdbcTarget.of(url).withUser("postgres")).withBatchSize(2));
    PipelineResult.State state = p.run().waitUntilFinish();
    assertThat(state, equalTo(PipelineResult.State.DONE));
  }

  /**
   * Payment {@code offset} of partition 0 at {@code hhmm} on 2026-08-30, stamped with its event
   * time.
   */
  private static TimestampedValue<SourceRecord> payment(
      long offset, long merchant, String amount, String hhmm) {
    String paidAt = "2026-08-30T" + hhmm + ":00Z";
    Row row = Row.withSchema(PAYMENTS).addValues(merchant, new BigDecimal(amount), paidAt).build();
    return TimestampedValue.of(
        SourceRecord.of(0, offset, new Instant(0), row), Instant.parse(paidAt));
  }

  /**
   * Passes records on, noting the final records; the first time revision 2 passes (when asked to)
   * restarts the database.
   */
  private static final class RestartAtRevisionTwo extends DoFn<WindowRevision, WindowRevision> {
    @ProcessElement
    public void process(@Element WindowRevision r, OutputReceiver<WindowRevision> out) {
      if (r.status() == WindowStatus.FINAL) {
        FINALS.add(
            r.key().getInt64("merchant_id")
                + " "
                + r.windowStart().toString().substring(11, 16)
                + " final r"
                + r.revision()
                + " "
                + ((BigDecimal) r.values().getDecimal("revenue"))
                    .stripTrailingZeros()
                    .toPlainString());
      }
      if (r.revision() == 2 && r.isRevision() && RESTART_AT_REVISION_2.compareAndSet(true, false)) {
        try {
          POSTGRES.server().stop();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        Thread restart =
            new Thread(
                () -> {
                  try {
                    Thread.sleep(2_000);
                    POSTGRES.server().start();
                    RESTARTED_AT.set(System.currentTimeMillis());
                  } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                  }
                },
                "restart-postgres");
        restart.start();
      }
      out.output(r);
    }
  }

  private List<String> rows(String sql) throws SQLException {
    return Tables.rows(pool, sql);
  }
}
