package dev.streamform.sink.decisions;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.transforms.decisions.Decision;
import dev.streamform.transforms.decisions.DecisionCoders;
import dev.streamform.transforms.decisions.FeatureContract;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The decision ledger rides out a database restart as the revision sink does: PostgreSQL stopped
 * for 2 s while decisions are being written, every decision lands once.
 */
@Isolated // stops and starts the module's one PostgreSQL server, which the other classes use
class DecisionLedgerRestartTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  static final Schema KEY = Schema.builder().addInt64Field("merchant_id").build();
  static final Schema EVENT =
      Schema.builder().addStringField("receipt_id").addInt64Field("merchant_id").build();

  static Decision decision(int i) {
    Instant t = new Instant(1_788_084_000_000L + i * 1_000L);
    return Decision.builder()
        .setModel("receipt_risk")
        .setKey(Row.withSchema(KEY).addValue((long) (i % 7)).build())
        .setEvent(Row.withSchema(EVENT).addValues("r" + i, (long) (i % 7)).build())
        .setEventId("r" + i)
        .setPartition(0)
        .setOffset(i)
        .setOccurredAt(t)
        .setArrivedAt(t)
        .setArrivalWatermark(null)
        .setScoredAt(t)
        .setContract(FeatureContract.values()[0])
        .setStateCutoff(t)
        .setStateRevision(i)
        .setFeatures(Map.of("spend_1h", (double) i))
        .setScore(0.5)
        .setModelDigest("m")
        .setPreprocessingDigest("p")
        .setPolicyGeneration(1)
        .setRevision(1)
        .setSupersedes(null)
        .setRevisedBy(null)
        .build();
  }

  @Test
  void aRestartWhileDecisionsAreWrittenLosesAndDoublesNothing() throws Exception {
    String url = POSTGRES.newDatabase();
    List<Decision> decisions = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      decisions.add(decision(i));
    }
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    options.as(org.apache.beam.runners.direct.DirectOptions.class).setEnforceImmutability(false);
    options.as(org.apache.beam.runners.direct.DirectOptions.class).setEnforceEncodability(false);
    Pipeline p = Pipeline.create(options);
    // stopped once the first rows landed: writes are under way; started again 2 s later
    Thread restart =
        new Thread(
            () -> {
              try (HikariDataSource watch =
                  JdbcTarget.of(url).withUser("postgres").openPool("watch", 2, 1_000)) {
                while (count(watch) == 0) {
                  Thread.sleep(20);
                }
                POSTGRES.server().stop();
                Thread.sleep(2_000);
                POSTGRES.server().start();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            "restart-postgres");
    restart.start();
    p.apply(Create.of(decisions).withCoder(DecisionCoders.DecisionCoder.of(KEY, EVENT)))
        .apply(
            DecisionLedgerSink.to(JdbcTarget.of(url).withUser("postgres"))
                .withBatchSize(100)
                .withRetryTimeout(Duration.ofSeconds(30)));
    p.run().waitUntilFinish();
    restart.join(30_000);
    try (HikariDataSource pool =
            JdbcTarget.of(url).withUser("postgres").openPool("test", 2, 2_000);
        Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT count(*), count(DISTINCT event_id) FROM streamform.decision")) {
      rs.next();
      assertThat(rs.getLong(1) + " " + rs.getLong(2), equalTo("2000 2000"));
    }
  }

  private static long count(HikariDataSource pool) {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM streamform.decision")) {
      rs.next();
      return rs.getLong(1);
    } catch (java.sql.SQLException e) {
      return 0; // not migrated yet
    }
  }
}
