package dev.streamform.sink.decisions;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

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
 * A replay writes decisions the ledger already holds (docs/semantics.md §11): the ledger keeps the
 * rows it has, as they were written, and adds only what is new — here the same events decided again
 * under policy generation 2, which are other decisions with ids of their own.
 */
class DecisionLedgerReplayTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  @Test
  void aReplayKeepsTheRowsTheLedgerHoldsAndAddsAnotherGenerationsDecisions() throws Exception {
    String url = POSTGRES.newDatabase();
    List<Decision> first = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      first.add(decision(i, 0, 1));
    }
    write(url, first);
    List<String> written = rows(url);
    assertThat(written, hasSize(10));

    // the same decisions again, as a replay decides them (scored at another moment of its run),
    // and the same events under generation 2
    List<Decision> replay = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      replay.add(decision(i, 60_000L, 1));
      replay.add(decision(i, 0, 2));
    }
    write(url, replay);

    List<String> after = rows(url);
    assertThat(after, hasSize(20));
    assertThat(
        "the rows of generation 1 as first written",
        after.stream().filter(r -> r.contains("\"policy_generation\":1")).toList(),
        equalTo(written));
  }

  /**
   * {@link DecisionLedgerRestartTest#decision}, scored {@code later} ms later under {@code gen}.
   */
  private static Decision decision(int i, long later, int gen) {
    Decision d = DecisionLedgerRestartTest.decision(i);
    return Decision.builder()
        .setModel(d.model())
        .setKey(d.key())
        .setEvent(d.event())
        .setEventId(d.eventId())
        .setPartition(d.partition())
        .setOffset(d.offset())
        .setOccurredAt(d.occurredAt())
        .setArrivedAt(d.arrivedAt())
        .setArrivalWatermark(d.arrivalWatermark())
        .setScoredAt(new Instant(d.scoredAt().getMillis() + later))
        .setContract(d.contract())
        .setStateCutoff(d.stateCutoff())
        .setStateRevision(d.stateRevision())
        .setFeatures(d.features())
        .setScore(d.score())
        .setModelDigest(d.modelDigest())
        .setPreprocessingDigest(d.preprocessingDigest())
        .setPolicyGeneration(gen)
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
                .withBatchSize(4)
                .withRetryTimeout(Duration.ofSeconds(30)));
    p.run().waitUntilFinish();
  }

  /** Every row of the ledger as JSON, in decision id order. */
  private static List<String> rows(String url) throws Exception {
    List<String> rows = new ArrayList<>();
    try (HikariDataSource pool =
            JdbcTarget.of(url).withUser("postgres").openPool("test", 2, 2_000);
        Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT row_to_json(d)::text FROM streamform.decision d ORDER BY decision_id")) {
      while (rs.next()) {
        rows.add(rs.getString(1));
      }
    }
    return rows;
  }
}
