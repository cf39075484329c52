package dev.streamform.sink;

import static dev.streamform.sink.Revisions.revision;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.runners.postgres.LocalPostgresExtension;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.EffectRuleErrors;
import dev.streamform.sink.effects.ProviderSpec;
import dev.streamform.transforms.windows.WindowCoders;
import dev.streamform.transforms.windows.WindowRevision;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sink left alone (issue 28): a held revision released by a later batch is typed by the model's
 * output schema, a rule that cannot be evaluated is recorded instead of stalling the sink, a held
 * record refused later reaches the conflict output, and a generation demoted while its batch is in
 * flight prepares and cancels nothing.
 */
class UnattendedSinkTest {
  @RegisterExtension static final LocalPostgresExtension POSTGRES = new LocalPostgresExtension();

  /** A key that looks like a number but is a string, a decimal and a timestamp aggregate. */
  private static final Schema KEY = Schema.builder().addStringField("merchant_id").build();

  private static final Schema VALUES =
      Schema.builder()
          .addNullableField("revenue", Schema.FieldType.DECIMAL)
          .addNullableField("last_paid_at", Schema.FieldType.DATETIME)
          .build();

  private String url;
  private HikariDataSource pool;

  @BeforeEach
  void fresh() {
    url = POSTGRES.newDatabase();
    pool = JdbcTarget.of(url).withUser("postgres").openPool("test", 4, 2_000);
  }

  @AfterEach
  void close() {
    pool.close();
  }

  private static WindowRevision typed(String merchant, int n, String revenue, String lastPaidAt) {
    return revision(
        Row.withSchema(KEY).addValue(merchant).build(),
        Row.withSchema(VALUES)
            .addValues(new BigDecimal(revenue), Instant.parse(lastPaidAt))
            .build(),
        10,
        n);
  }

  private static EffectRule rule(String type, String when) throws Exception {
    return EffectRule.of(
        Revisions.MODEL,
        type,
        "merchant_id",
        when,
        ProviderSpec.webhook("http://127.0.0.1:9/effects", true, true));
  }

  private List<String> rows(String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        List<String> cells = new ArrayList<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          cells.add(String.valueOf(rs.getObject(i)));
        }
        out.add(String.join(" ", cells));
      }
    }
    return out;
  }

  @Test
  void aHeldRevisionReleasedLaterIsTypedByTheModelsSchema() throws Exception {
    EffectRule reward =
        rule(
            "reward",
            "revenue >= 1000 AND last_paid_at >= TIMESTAMP '2026-08-30 10:30:00' AND merchant_id ="
                + " '0123'");
    LedgerWriter w = new LedgerWriter(pool, Duration.ofSeconds(5), List.of(reward));
    // revision 2 first: held; revision 1 releases it, and the rule reads revision 2 from the ledger
    LedgerWriter.Outcome held =
        w.write(List.of(typed("0123", 2, "1500.50", "2026-08-30T10:45:00Z")));
    assertThat(held.held(), equalTo(1));
    LedgerWriter.Outcome released =
        w.write(List.of(typed("0123", 1, "200", "2026-08-30T10:05:00Z")));
    System.out.println(
        "held revision released: "
            + released.released()
            + ", effects prepared: "
            + released.effects().prepared()
            + ", rule errors: "
            + released.effects().ruleErrors());
    assertThat(released.released(), equalTo(1));
    assertThat(released.effects().prepared(), equalTo(1));
    assertThat(released.effects().ruleErrors(), equalTo(0));
    assertThat(
        rows("SELECT state, revision, subject::text FROM streamform.effect"),
        equalTo(List.of("PREPARED 2 \"0123\"")));
    assertThat(
        Ledger.at(pool).verify(Revisions.MODEL).summary(),
        equalTo("1 projection, 2 revisions, 0 gaps, 0 mismatches, 0 conflicts"));
  }

  @Test
  void aRuleThatCannotBeEvaluatedIsRecordedAndTheBatchGoesOn() throws Exception {
    // `streamform check` refuses this comparison (a decimal with a string); a rule made by hand is
    // not
    EffectRule broken = rule("broken", "revenue >= '1000'");
    EffectRule reward = rule("reward", "revenue >= 1000");
    LedgerWriter w = new LedgerWriter(pool, Duration.ofSeconds(5), List.of(broken, reward));
    w.write(List.of(typed("7", 2, "1500", "2026-08-30T10:45:00Z")));
    LedgerWriter.Outcome released = w.write(List.of(typed("7", 1, "200", "2026-08-30T10:05:00Z")));
    System.out.println(
        "rule errors recorded: "
            + released.effects().ruleErrors()
            + ", effects prepared: "
            + released.effects().prepared()
            + ", retries: "
            + released.retries());
    assertThat(released.released(), equalTo(1));
    // r1 and the r2 it released are each evaluated, as if each had its own transaction (ADR
    // 0109): the broken rule fails on both, the reward is made true by r2
    assertThat(released.effects().ruleErrors(), equalTo(2));
    assertThat(released.effects().prepared(), equalTo(1));
    List<EffectRuleErrors.RuleError> errors = new EffectRuleErrors(pool).list(Revisions.MODEL);
    assertThat(
        errors.stream().map(e -> e.effectType() + " r" + e.revision()).sorted().toList(),
        equalTo(List.of("broken r1", "broken r2")));
    assertThat(errors.get(0).error(), containsString("cannot compare"));
    // the same batch again (a retried bundle): recorded once
    w.write(
        List.of(
            typed("7", 1, "200", "2026-08-30T10:05:00Z"),
            typed("7", 2, "1500", "2026-08-30T10:45:00Z")));
    assertThat(new EffectRuleErrors(pool).list(Revisions.MODEL).size(), equalTo(2));
  }

  @Test
  void aWindowColumnIsASubject() throws Exception {
    EffectRule perWindow =
        EffectRule.of(
            Revisions.MODEL,
            "window_bonus",
            "window_start",
            "revenue >= 1000",
            ProviderSpec.webhook("http://127.0.0.1:9/effects", true, true));
    LedgerWriter w = new LedgerWriter(pool, Duration.ofSeconds(5), List.of(perWindow));
    assertThat(w.write(List.of(revision(7, 10, 1, "1500"))).effects().prepared(), equalTo(1));
    // a correction keeps the subject, so it follows the same effect
    assertThat(w.write(List.of(revision(7, 10, 2, "1600"))).effects().updated(), equalTo(1));
    assertThat(
        rows("SELECT subject::text, revision, state FROM streamform.effect"),
        equalTo(List.of("\"2026-08-30T10:00:00.000Z\" 2 PREPARED")));
  }

  @Test
  void aHeldRecordRefusedByALaterBatchReachesTheConflictOutput() throws Exception {
    // a final record of revision 2 is held; revision 2 arrives with other values: the held record
    // is
    // refused by a batch that does not carry it
    new LedgerWriter(pool, Duration.ofSeconds(5))
        .write(List.of(Revisions.finalOf(revision(7, 10, 2, "25"))));
    Pipeline p =
        Pipeline.create(
            PipelineOptionsFactory.fromArgs("--runner=" + DirectRunner.class.getName()).create());
    PCollection<String> conflicts =
        p.apply(
                Create.of(revision(7, 10, 1, "10"), revision(7, 10, 2, "20"))
                    .withCoder(
                        WindowCoders.WindowRevisionCoder.of(Revisions.KEY, Revisions.VALUES)))
            .apply(RevisionSink.to(JdbcTarget.of(url).withUser("postgres")))
            .conflicts()
            .apply(
                MapElements.into(TypeDescriptors.strings())
                    .via(
                        c ->
                            "revision "
                                + c.revision()
                                + " final="
                                + c.isFinal()
                                + ": "
                                + c.reason()));
    PAssert.that(conflicts)
        .containsInAnyOrder(
            "revision 2 final=true: the final record's values differ from revision 2");
    PipelineResult.State state = p.run().waitUntilFinish();
    assertThat(state, equalTo(PipelineResult.State.DONE));
    assertThat(
        rows("SELECT revision, reason FROM streamform.revision_conflict"),
        equalTo(List.of("2 the final record's values differ from revision 2")));
    assertThat(rows("SELECT count(*) FROM streamform.held_revision"), equalTo(List.of("0")));
  }

  @Test
  void aGenerationDemotedWhileItsBatchIsInFlightPreparesAndCancelsNothing() throws Exception {
    LedgerWriter generationOne =
        new LedgerWriter(pool, Duration.ofSeconds(30), List.of(rule("reward", "revenue >= 1000")));
    // generation 1 is canonical (first write) and prepared merchant 2's effect, not merchant 1's
    generationOne.write(List.of(revision(1, 10, 1, "500"), revision(2, 10, 1, "1500")));
    assertThat(
        rows("SELECT generation, state FROM streamform.effect"), equalTo(List.of("1 PREPARED")));

    try (Connection alias = pool.getConnection()) {
      // `alias set` to generation 2, caught between its lock and its commit
      alias.setAutoCommit(false);
      try (Statement s = alias.createStatement()) {
        s.execute(
            "SELECT generation FROM streamform.canonical_alias WHERE model = '"
                + Revisions.MODEL
                + "' FOR UPDATE");
        s.executeUpdate(
            "UPDATE streamform.canonical_alias SET generation = 2, set_by = 'alias set'");
      }
      // generation 1's batch would prepare merchant 1's effect and cancel merchant 2's
      CompletableFuture<LedgerWriter.Outcome> batch =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return generationOne.write(
                      List.of(revision(1, 10, 2, "1500"), revision(2, 10, 2, "900")));
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      await().atMost(20, TimeUnit.SECONDS).until(() -> batch.isDone() || waitingOnALock());
      System.out.println(
          "generation 1's batch "
              + (batch.isDone() ? "did not wait for" : "waited for")
              + " the alias change");
      alias.commit();
      LedgerWriter.Outcome outcome = batch.get(20, TimeUnit.SECONDS);
      System.out.println(
          "demoted generation's batch: applied "
              + outcome.applied()
              + ", prepared "
              + outcome.effects().prepared()
              + ", cancelled "
              + outcome.effects().cancelled());
      assertThat(outcome.applied(), equalTo(2));
      assertThat(outcome.effects().prepared() + outcome.effects().cancelled(), equalTo(0));
    }
    assertThat(
        rows("SELECT subject::text, generation, revision, state FROM streamform.effect"),
        equalTo(List.of("2 1 1 PREPARED")));
    assertThat(
        Ledger.at(pool).verify(Revisions.MODEL).summary(),
        equalTo("2 projections, 4 revisions, 0 gaps, 0 mismatches, 0 conflicts"));
  }

  /** True while some other session of this database waits for a lock. */
  private boolean waitingOnALock() throws Exception {
    return !rows("SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            + " AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()")
        .isEmpty();
  }
}
