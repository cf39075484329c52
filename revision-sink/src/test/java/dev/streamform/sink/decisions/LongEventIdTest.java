package dev.streamform.sink.decisions;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.transforms.decisions.Decision;
import dev.streamform.transforms.decisions.DecisionCoders;
import dev.streamform.transforms.decisions.FeatureContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An event_id is the source's own text, of any length: a decision (and a reconcile row) of an event
 * whose id is 3,000 characters is written and read back. PostgreSQL's btree holds at most 2,704
 * bytes an entry, so the ledger indexes an md5 of event_id, never the text (ADR 0207).
 */
class LongEventIdTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  /** 3,000 characters that do not compress (PostgreSQL compresses an index entry first). */
  private static final String LONG_ID = longId();

  private static String longId() {
    java.util.Random random = new java.util.Random(7);
    StringBuilder id = new StringBuilder("r");
    while (id.length() < 3_000) {
      id.append((char) ('!' + random.nextInt(94)));
    }
    return id.toString();
  }

  private static Decision decision(int i, String eventId) {
    Instant t = new Instant(1_788_084_000_000L + i * 1_000L);
    return Decision.builder()
        .setModel("receipt_risk")
        .setKey(Row.withSchema(DecisionLedgerRestartTest.KEY).addValue(7L).build())
        .setEvent(Row.withSchema(DecisionLedgerRestartTest.EVENT).addValues(eventId, 7L).build())
        .setEventId(eventId)
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
  void aDecisionOfAnEventWhoseIdIs3000CharactersIsWrittenAndReadBack() throws Exception {
    JdbcTarget target = JdbcTarget.of(POSTGRES.newDatabase()).withUser("postgres");
    List<Decision> decisions = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      decisions.add(decision(i, i == 1 ? LONG_ID : "r" + i));
    }
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    options.as(DirectOptions.class).setEnforceImmutability(false);
    options.as(DirectOptions.class).setEnforceEncodability(false);
    Pipeline p = Pipeline.create(options);
    p.apply(
            Create.of(decisions)
                .withCoder(
                    DecisionCoders.DecisionCoder.of(
                        DecisionLedgerRestartTest.KEY, DecisionLedgerRestartTest.EVENT)))
        .apply(DecisionLedgerSink.to(target).withRetryTimeout(Duration.ofSeconds(5)));
    p.run().waitUntilFinish();

    try (HikariDataSource pool = target.openPool("test", 2, 2_000)) {
      DecisionLedger ledger = DecisionLedger.at(pool);
      // what decisions show and verify read: every decision of the model
      List<String> ids = new ArrayList<>();
      for (DecisionLedger.StoredDecision d : ledger.decisions("receipt_risk", null)) {
        ids.add(d.eventId());
      }
      assertThat(ids, equalTo(List.of("r0", LONG_ID, "r2")));
      // one event's decisions, looked up by its id
      List<DecisionLedger.StoredDecision> one = ledger.decisions("receipt_risk", LONG_ID);
      assertThat(one.size(), is(1));
      assertThat(one.get(0).eventId(), equalTo(LONG_ID));
      // the same md5 is not enough: the text is compared too (here: a prefix, another md5)
      assertThat(ledger.decisions("receipt_risk", LONG_ID.substring(0, 2_999)).size(), is(0));

      // the reconcile queue takes a late event of that id too
      try (Connection c = pool.getConnection();
          PreparedStatement s = c.prepareStatement(DecisionLedgerSink.INSERT_RECONCILE)) {
        Timestamp t = Timestamp.valueOf("2026-08-30 10:00:00");
        s.setString(1, "receipt_risk");
        s.setString(2, LONG_ID);
        s.setInt(3, 0);
        s.setLong(4, 9);
        s.setTimestamp(5, t);
        s.setTimestamp(6, t);
        s.setBoolean(7, false);
        s.setString(8, "[]");
        s.setString(9, "{\"merchant_id\": 7}");
        s.setString(10, "{}");
        s.setString(11, null);
        s.executeUpdate();
        c.commit();
      }
      assertThat(
          ledger.reconcileQueue("receipt_risk").get(0).columns().get("event_id"), equalTo(LONG_ID));
      // and the lookups by event_id use the hashed indexes
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement();
          ResultSet r =
              s.executeQuery(
                  "SELECT indexname || ': ' || indexdef FROM pg_indexes WHERE schemaname ="
                      + " 'streamform' AND indexdef LIKE '%event_id%' ORDER BY indexname")) {
        List<String> indexes = new ArrayList<>();
        while (r.next()) {
          indexes.add(r.getString(1).replaceAll(": .* USING btree ", ": "));
        }
        c.commit();
        assertThat(
            indexes,
            equalTo(
                List.of(
                    "decision_by_event: (model, md5(event_id), revision)",
                    "decision_reconcile_by_event: (model, md5(event_id))")));
      }
      // and the ledger's lookup by event id is answered from that index
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement()) {
        s.execute("SET enable_seqscan = off"); // a small table would be scanned anyway
        StringBuilder plan = new StringBuilder();
        try (ResultSet r =
            s.executeQuery(
                "EXPLAIN SELECT decision_id FROM streamform.decision WHERE model = 'receipt_risk'"
                    + DecisionLedger.BY_EVENT_ID.replace("?", "'r1'"))) {
          while (r.next()) {
            plan.append(r.getString(1)).append('\n');
          }
        }
        c.rollback();
        // by the md5, not by the model alone with event_id filtered row by row
        assertThat(
            plan.toString(),
            plan.toString().matches("(?s).*decision_by_event.*Index Cond: .*md5\\(event_id\\) =.*"),
            is(true));
      }
    }
  }
}
