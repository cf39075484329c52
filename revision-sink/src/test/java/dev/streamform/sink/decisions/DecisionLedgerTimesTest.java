package dev.streamform.sink.decisions;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.transforms.decisions.Decision;
import dev.streamform.transforms.decisions.DecisionCoders;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The decision ledger's time columns hold the instants decided on, on the calendar PostgreSQL
 * counts in (the proleptic Gregorian one) also before 1582, where {@code java.sql.Timestamp} would
 * shift them by days to the Julian calendar; {@link DecisionLedger} reads back what was decided.
 */
class DecisionLedgerTimesTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  private static final List<String> TIMES =
      List.of("0001-01-01T00:00:00Z", "1500-06-01T12:00:00Z", "2026-08-30T10:00:00Z");

  @Test
  void timesBeforeTheGregorianReformAreStoredAndReadAsDecided() throws Exception {
    String url = POSTGRES.newDatabase();
    List<Decision> decisions = new ArrayList<>();
    for (int i = 0; i < TIMES.size(); i++) {
      decisions.add(at(i, Instant.parse(TIMES.get(i))));
    }
    write(url, decisions);

    List<String> stored = new ArrayList<>();
    List<String> read = new ArrayList<>();
    try (HikariDataSource pool =
            JdbcTarget.of(url).withUser("postgres").openPool("test", 2, 2_000);
        Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),"
                    + " to_char(state_cutoff AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
                    + " FROM streamform.decision ORDER BY event_offset")) {
      while (rs.next()) {
        stored.add(rs.getString(1) + " " + rs.getString(2));
      }
      for (DecisionLedger.StoredDecision d :
          DecisionLedger.at(pool).decisions(decisions.get(0).model(), null)) {
        read.add(String.valueOf(d.columns().get("occurred_at")));
      }
    }
    List<String> expected = new ArrayList<>();
    TIMES.forEach(t -> expected.add(t + " " + t));
    assertThat("the columns as PostgreSQL reads them", stored, equalTo(expected));
    assertThat("as the ledger reads them back", read.stream().sorted().toList(), equalTo(TIMES));
  }

  private static Decision at(int i, Instant t) {
    Decision d = DecisionLedgerRestartTest.decision(i);
    return Decision.builder()
        .setModel(d.model())
        .setKey(d.key())
        .setEvent(d.event())
        .setEventId(d.eventId())
        .setPartition(d.partition())
        .setOffset(d.offset())
        .setOccurredAt(t)
        .setArrivedAt(t)
        .setArrivalWatermark(t)
        .setScoredAt(t)
        .setContract(d.contract())
        .setStateCutoff(t)
        .setStateRevision(d.stateRevision())
        .setFeatures(d.features())
        .setScore(d.score())
        .setModelDigest(d.modelDigest())
        .setPreprocessingDigest(d.preprocessingDigest())
        .setPolicyGeneration(d.policyGeneration())
        .setRevision(d.revision())
        .setSupersedes(d.supersedes())
        .setRevisedBy(d.revisedBy())
        .build();
  }

  private static void write(String url, List<Decision> decisions) {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    p.apply(
            Create.of(decisions)
                .withCoder(
                    DecisionCoders.DecisionCoder.of(
                        DecisionLedgerRestartTest.KEY, DecisionLedgerRestartTest.EVENT)))
        .apply(
            DecisionLedgerSink.to(JdbcTarget.of(url).withUser("postgres"))
                .withRetryTimeout(Duration.ofSeconds(30)));
    p.run().waitUntilFinish();
  }
}
