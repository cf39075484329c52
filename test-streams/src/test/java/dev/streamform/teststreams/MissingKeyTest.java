package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.oracle.ScoringOracle;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An event whose key column is missing or null is quarantined with the reason {@code key column
 * `<c>` has no value} by a fixture as by a run on a file or Kafka (docs/semantics.md §4, §7; ADR
 * 0018, 0088): the check is a step of the composite every path runs, before the event time, the
 * clock and the WHERE. Each fixture is written by hand, and the oracle gives the DirectRunner's
 * outcome.
 */
class MissingKeyTest {
  private static final FixtureRunner DIRECT = FixtureRunner.on(RunnerChoice.direct());

  private static final String REASON = "key column `customer_id` has no value";

  /** The audit's three events, then one that moves the watermark past them. */
  private static final String GIVEN =
      """
      given:
        - event: { amount: 1, ordered_at: "2026-08-30T10:00:00Z" }
        - event: { customer_id: null, amount: 1, ordered_at: "2026-08-30T10:00:00Z" }
        - event: { customer_id: 1, amount: 2, ordered_at: "2026-08-30T10:00:00Z" }
      """;

  @TempDir Path dir;

  @Test
  void anUpsertModelQuarantinesAnEventWithoutItsKeyAsARunOnAFileDoes() throws Exception {
    Path p = FixtureProjects.copy("late-event", dir);
    quarantinesAsTheOracleDoes(
        p,
        "customer_metrics",
        1,
        2,
        "model: customer_metrics\n"
            + GIVEN
            + """
            expect:
              - { op: insert, customer_id: 1, total_spend: 2 }
            quarantined:
              - { amount: 1, reason: "key column `customer_id` has no value" }
              - { amount: 1, reason: "key column `customer_id` has no value" }
            """);
  }

  @Test
  void aFixtureThatDoesNotListThemFailsNamingTheReason() throws Exception {
    Path p = FixtureProjects.copy("late-event", dir);
    FixtureProjects.write(
        p,
        "fixtures/missing_key.yml",
        "model: customer_metrics\n"
            + GIVEN
            + """
            expect:
              - { op: insert, customer_id: 1, total_spend: 2 }
            """);
    FixtureVerdict v = StreamformFixtures.inProject(p).run("fixtures/missing_key.yml");
    assertThat(v.render(), containsString("FAIL"));
    assertThat(v.render(), containsString(REASON));
    assertThat(v.render(), not(containsString("customer_id=null")));
  }

  @Test
  void theKeyIsCheckedBeforeTheWhereAndUnderAnAlias() throws Exception {
    Path p = FixtureProjects.copy("late-event", dir);
    FixtureProjects.write(
        p,
        "models/customer_metrics.sql",
        """
        SELECT customer_id AS customer, SUM(amount) AS total_spend
        FROM source('orders')
        WHERE amount > 1
        GROUP BY customer_id
        """);
    FixtureProjects.write(
        p,
        "streamform.yml",
        """
        models:
          customer_metrics:
            materialized: upsert
            key: [customer]
        """);
    // the WHERE would filter both out; the missing key quarantines them first, as on a file
    quarantinesAsTheOracleDoes(
        p,
        "customer_metrics",
        1,
        2,
        "model: customer_metrics\n"
            + GIVEN
            + """
            expect:
              - { op: insert, customer: 1, total_spend: 2 }
            quarantined:
              - { amount: 1, reason: "key column `customer_id` has no value" }
              - { amount: 1, reason: "key column `customer_id` has no value" }
            """);
  }

  @Test
  void aWindowedModelQuarantinesAnEventWithoutItsKey() throws Exception {
    Path p = FixtureProjects.copy(FixtureProjects.under("fixtures/time/hopping-revenue"), dir);
    quarantinesAsTheOracleDoes(
        p,
        "hopping_revenue",
        1,
        1,
        """
        model: hopping_revenue
        given:
          - event: { merchant_id: null, amount: 5, ordered_at: "2026-08-30T10:10:00Z" }
          - event: { merchant_id: 7, amount: 20, ordered_at: "2026-08-30T10:10:00Z" }
          - watermark: "2026-08-30T12:00:00Z"
        expect:
          - { window_start: "2026-08-30T09:30:00Z", window_end: "2026-08-30T10:30:00Z", merchant_id: 7,
              revenue: 20, orders: 1, revision: 1, status: on_time }
          - { window_start: "2026-08-30T09:30:00Z", window_end: "2026-08-30T10:30:00Z", merchant_id: 7,
              revenue: 20, orders: 1, revision: 1, status: final }
          - { window_start: "2026-08-30T10:00:00Z", window_end: "2026-08-30T11:00:00Z", merchant_id: 7,
              revenue: 20, orders: 1, revision: 1, status: on_time }
          - { window_start: "2026-08-30T10:00:00Z", window_end: "2026-08-30T11:00:00Z", merchant_id: 7,
              revenue: 20, orders: 1, revision: 1, status: final }
        quarantined:
          - { amount: 5, reason: "key column `merchant_id` has no value" }
        """);
  }

  @Test
  void aScoringModelQuarantinesAnEventWithoutItsKey() throws Exception {
    Path p = FixtureProjects.copy(FixtureProjects.under("fixtures/decisions/receipts"), dir);
    FixtureProjects.write(
        p,
        "fixtures/missing_key.yml",
        """
        model: receipt_risk
        given:
          - event: { amount: 5, occurred_at: "2026-08-30T10:00:00Z", received_at: "2026-08-30T10:00:00Z" }
          - event: { merchant_id: 7, amount: 1, occurred_at: "2026-08-30T10:01:00Z", received_at: "2026-08-30T10:01:00Z" }
          - watermark: "2026-08-30T11:00:00Z"
        """);
    Project project = Project.load(p);
    Fixture fixture = Fixture.load(project, p.resolve("fixtures/missing_key.yml"));
    DeclaredModel model = DeclaredModel.of(project, "receipt_risk");
    FixtureOutcome direct = DIRECT.run(model, fixture);
    assertThat(direct.quarantined, hasSize(1));
    assertThat(direct.canonical(), containsString("key column `merchant_id` has no value"));
    assertThat(ScoringOracle.of(model).run(fixture).canonical(), is(direct.canonical()));
  }

  /**
   * Runs {@code fixture} (written as fixtures/missing_key.yml) in {@code p}: it passes with {@code
   * processed} events processed and {@code quarantined} quarantined, and the oracle gives the
   * DirectRunner's outcome.
   */
  private static void quarantinesAsTheOracleDoes(
      Path p, String modelName, int processed, int quarantined, String text) throws Exception {
    FixtureVerdict v = FixtureProjects.passes(p, "fixtures/missing_key.yml", text);
    assertThat(
        v.render(),
        containsString(processed + " event" + (processed == 1 ? "" : "s") + " processed"));
    FixtureProjects.assertOracleAgrees(p, "fixtures/missing_key.yml", modelName, quarantined);
  }
}
