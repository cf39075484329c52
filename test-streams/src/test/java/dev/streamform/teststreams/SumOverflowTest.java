package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * An event whose value would take an int64 sum outside int64, or a double sum past the largest
 * double, never stops a job (docs/semantics.md §2) and never emits a wrong total: an upsert model
 * and a windowed one quarantine it with a reason naming the column and go on as if it had not come;
 * a scoring model's features are doubles and sum past int64 exactly. Each fixture is written by
 * hand, and the oracle gives the same outcome as the DirectRunner.
 */
class SumOverflowTest {
  private static final FixtureRunner DIRECT = FixtureRunner.on(RunnerChoice.direct());

  @TempDir Path dir;

  /** A copy of a seed project (without its fixtures) with its amounts declared int64. */
  private Path int64Project(String seed, String from, String to) throws Exception {
    Path p = FixtureProjects.copy(FixtureProjects.under(seed), dir);
    FixtureProjects.replace(p, "sources.yml", from, to);
    return p;
  }

  @Test
  void anUpsertModelQuarantinesTheEventAndItsKeyGoesOnWithoutIt() throws Exception {
    Path p = int64Project("fixtures/time/late-event", "amount: decimal(12,2)", "amount: int64");
    quarantinesOneAsTheOracleDoes(
        p,
        "customer_metrics",
        3,
        """
        model: customer_metrics
        given:
          - event: { customer_id: 42, amount: 9223372036854775806, ordered_at: "2026-08-30T10:00:00Z" }
          - event: { customer_id: 42, amount: 5, ordered_at: "2026-08-30T10:01:00Z" }
          - event: { customer_id: 42, amount: -3, ordered_at: "2026-08-30T10:02:00Z" }
          - event: { customer_id: 43, amount: 7, ordered_at: "2026-08-30T10:03:00Z" }
        expect:
          - { op: insert, customer_id: 42, total_spend: 9223372036854775806 }
          - { op: update, customer_id: 42, total_spend: 9223372036854775803 }
          - { op: insert, customer_id: 43, total_spend: 7 }
        quarantined:
          - { customer_id: 42, amount: 5, reason: "column `amount`: the int64 sum for `total_spend` would overflow: 9223372036854775806 + 5 is outside int64" }
        """);
  }

  @Test
  void aWindowedModelQuarantinesTheEventFromEveryWindowItWasIn() throws Exception {
    Path p =
        int64Project(
            "fixtures/time/hopping-revenue",
            "amount: decimal(12,2)    # a refund is an order with a negative amount",
            "amount: int64");
    // B would overflow [10:30,11:30) but not [11:00,12:00): it is in neither, and no [11:00)
    // window opens; its arrival still moves W_0 to 11:05, so C is a correction of [10:00,11:00)
    quarantinesOneAsTheOracleDoes(
        p,
        "hopping_revenue",
        2,
        """
        model: hopping_revenue
        given:
          - event: { merchant_id: 7, amount: 9223372036854775797, ordered_at: "2026-08-30T10:50:00Z" }  # A
          - event: { merchant_id: 7, amount: 20, ordered_at: "2026-08-30T11:10:00Z" }                   # B
          - event: { merchant_id: 7, amount: 5, ordered_at: "2026-08-30T10:40:00Z" }                    # C
        expect:
          - { window_start: "2026-08-30T10:00:00Z", window_end: "2026-08-30T11:00:00Z", merchant_id: 7,
              revenue: 9223372036854775797, orders: 1, revision: 1, status: on_time }
          - { window_start: "2026-08-30T10:00:00Z", window_end: "2026-08-30T11:00:00Z", merchant_id: 7,
              revenue: 9223372036854775802, orders: 2, revision: 2, status: corrected }
          - { window_start: "2026-08-30T10:00:00Z", window_end: "2026-08-30T11:00:00Z", merchant_id: 7,
              revenue: 9223372036854775802, orders: 2, revision: 2, status: final }
          - { window_start: "2026-08-30T10:30:00Z", window_end: "2026-08-30T11:30:00Z", merchant_id: 7,
              revenue: 9223372036854775802, orders: 2, revision: 1, status: on_time }
          - { window_start: "2026-08-30T10:30:00Z", window_end: "2026-08-30T11:30:00Z", merchant_id: 7,
              revenue: 9223372036854775802, orders: 2, revision: 1, status: final }
        quarantined:
          - { merchant_id: 7, amount: 20, reason: "column `amount`: the int64 sum for `revenue` would overflow: 9223372036854775797 + 20" }
        """);
  }

  @Test
  void anUpsertModelQuarantinesAnEventThatWouldTakeADoubleSumPastTheLargestDouble()
      throws Exception {
    Path p = int64Project("fixtures/time/late-event", "amount: decimal(12,2)", "amount: double");
    quarantinesOneAsTheOracleDoes(
        p,
        "customer_metrics",
        3,
        """
        model: customer_metrics
        given:
          - event: { customer_id: 42, amount: 1.0e308, ordered_at: "2026-08-30T10:00:00Z" }
          - event: { customer_id: 42, amount: 1.0e308, ordered_at: "2026-08-30T10:01:00Z" }
          - event: { customer_id: 42, amount: -1.0e308, ordered_at: "2026-08-30T10:02:00Z" }
          - event: { customer_id: 43, amount: 7.5, ordered_at: "2026-08-30T10:03:00Z" }
        expect:
          - { op: insert, customer_id: 42, total_spend: 1.0e308 }
          - { op: update, customer_id: 42, total_spend: 0.0 }
          - { op: insert, customer_id: 43, total_spend: 7.5 }
        quarantined:
          - { customer_id: 42, amount: 1.0e308, reason: "column `amount`: the double sum for `total_spend` would overflow: 1.0E308 + 1.0E308 is outside the double range" }
        """);
  }

  @Test
  void aWindowedModelQuarantinesAnEventThatWouldTakeADoubleSumPastTheLargestDouble()
      throws Exception {
    Path p =
        int64Project(
            "fixtures/time/hopping-revenue",
            "amount: decimal(12,2)    # a refund is an order with a negative amount",
            "amount: double");
    // as the int64 case above: B would overflow [10:30,11:30), so it is in no window
    quarantinesOneAsTheOracleDoes(
        p,
        "hopping_revenue",
        2,
        """
        model: hopping_revenue
        given:
          - event: { merchant_id: 7, amount: 1.5e308, ordered_at: "2026-08-30T10:50:00Z" }  # A
          - event: { merchant_id: 7, amount: 1.5e308, ordered_at: "2026-08-30T11:10:00Z" }  # B
          - event: { merchant_id: 7, amount: -1.5e308, ordered_at: "2026-08-30T10:40:00Z" } # C
        expect:
          - { window_start: "2026-08-30T10:00:00Z", window_end: "2026-08-30T11:00:00Z", merchant_id: 7,
              revenue: 1.5e308, orders: 1, revision: 1, status: on_time }
          - { window_start: "2026-08-30T10:00:00Z", window_end: "2026-08-30T11:00:00Z", merchant_id: 7,
              revenue: 0.0, orders: 2, revision: 2, status: corrected }
          - { window_start: "2026-08-30T10:00:00Z", window_end: "2026-08-30T11:00:00Z", merchant_id: 7,
              revenue: 0.0, orders: 2, revision: 2, status: final }
          - { window_start: "2026-08-30T10:30:00Z", window_end: "2026-08-30T11:30:00Z", merchant_id: 7,
              revenue: 0.0, orders: 2, revision: 1, status: on_time }
          - { window_start: "2026-08-30T10:30:00Z", window_end: "2026-08-30T11:30:00Z", merchant_id: 7,
              revenue: 0.0, orders: 2, revision: 1, status: final }
        quarantined:
          - { merchant_id: 7, amount: 1.5e308, reason: "column `amount`: the double sum for `revenue` would overflow: 1.5E308 + 1.5E308 is outside the double range" }
        """);
  }

  @Test
  void anUpsertModelQuarantinesAnEventThatWouldTakeADecimalSumPast38Digits() throws Exception {
    Path p =
        int64Project("fixtures/time/late-event", "amount: decimal(12,2)", "amount: decimal(38,0)");
    // SUM(decimal(38,0)) is decimal(38,0): the second sum would have 39 digits
    quarantinesOneAsTheOracleDoes(
        p,
        "customer_metrics",
        3,
        """
        model: customer_metrics
        given:
          - event: { customer_id: 42, amount: 99999999999999999999999999999999999999, ordered_at: "2026-08-30T10:00:00Z" }
          - event: { customer_id: 42, amount: 99999999999999999999999999999999999999, ordered_at: "2026-08-30T10:01:00Z" }
          - event: { customer_id: 42, amount: -99999999999999999999999999999999999999, ordered_at: "2026-08-30T10:02:00Z" }
          - event: { customer_id: 43, amount: 7, ordered_at: "2026-08-30T10:03:00Z" }
        expect:
          - { op: insert, customer_id: 42, total_spend: 99999999999999999999999999999999999999 }
          - { op: update, customer_id: 42, total_spend: 0 }
          - { op: insert, customer_id: 43, total_spend: 7 }
        quarantined:
          - { customer_id: 42, amount: 99999999999999999999999999999999999999, reason: "column `amount`: the decimal sum for `total_spend` would overflow: 99999999999999999999999999999999999999 + 99999999999999999999999999999999999999 is outside decimal(38,0) (at most 38 digits before the decimal point)" }
        """);
  }

  @Test
  void aWindowedModelQuarantinesAnEventThatWouldTakeADecimalSumPastItsDigits() throws Exception {
    Path p =
        int64Project(
            "fixtures/time/hopping-revenue",
            "amount: decimal(12,2)    # a refund is an order with a negative amount",
            "amount: decimal(38,2)");
    // decimal(38,2) holds 36 digits before the point: B would take [10:30,11:30) to 37
    quarantinesOneAsTheOracleDoes(
        p,
        "hopping_revenue",
        2,
        """
        model: hopping_revenue
        given:
          - event: { merchant_id: 7, amount: 600000000000000000000000000000000000.00, ordered_at: "2026-08-30T10:50:00Z" }  # A
          - event: { merchant_id: 7, amount: 600000000000000000000000000000000000.00, ordered_at: "2026-08-30T11:10:00Z" }  # B
          - event: { merchant_id: 7, amount: -600000000000000000000000000000000000.00, ordered_at: "2026-08-30T10:40:00Z" } # C
        expect:
          - { window_start: "2026-08-30T10:00:00Z", window_end: "2026-08-30T11:00:00Z", merchant_id: 7,
              revenue: 600000000000000000000000000000000000.00, orders: 1, revision: 1, status: on_time }
          - { window_start: "2026-08-30T10:00:00Z", window_end: "2026-08-30T11:00:00Z", merchant_id: 7,
              revenue: 0.00, orders: 2, revision: 2, status: corrected }
          - { window_start: "2026-08-30T10:00:00Z", window_end: "2026-08-30T11:00:00Z", merchant_id: 7,
              revenue: 0.00, orders: 2, revision: 2, status: final }
          - { window_start: "2026-08-30T10:30:00Z", window_end: "2026-08-30T11:30:00Z", merchant_id: 7,
              revenue: 0.00, orders: 2, revision: 1, status: on_time }
          - { window_start: "2026-08-30T10:30:00Z", window_end: "2026-08-30T11:30:00Z", merchant_id: 7,
              revenue: 0.00, orders: 2, revision: 1, status: final }
        quarantined:
          - { merchant_id: 7, amount: 600000000000000000000000000000000000.00, reason: "column `amount`: the decimal sum for `revenue` would overflow: 600000000000000000000000000000000000.00 + 600000000000000000000000000000000000.00 is outside decimal(38,2) (at most 36 digits before the decimal point)" }
        """);
  }

  @Test
  void anUpsertModelQuarantinesAnEventThatWouldTakeADecimalAverageOutsideItsType()
      throws Exception {
    Path p =
        int64Project("fixtures/time/late-event", "amount: decimal(12,2)", "amount: decimal(38,0)");
    FixtureProjects.write(
        p,
        "models/customer_metrics.sql",
        "SELECT customer_id, AVG(amount) AS mean_spend FROM source('orders') GROUP BY customer_id");
    // AVG(decimal(38,0)) is decimal(38,6), 32 digits before the point: the second average has 33
    quarantinesOneAsTheOracleDoes(
        p,
        "customer_metrics",
        2,
        """
        model: customer_metrics
        given:
          - event: { customer_id: 42, amount: 5, ordered_at: "2026-08-30T10:00:00Z" }
          - event: { customer_id: 42, amount: 200000000000000000000000000000000, ordered_at: "2026-08-30T10:01:00Z" }
          - event: { customer_id: 42, amount: 10, ordered_at: "2026-08-30T10:02:00Z" }
        expect:
          - { op: insert, customer_id: 42, mean_spend: 5.000000 }
          - { op: update, customer_id: 42, mean_spend: 7.500000 }
        quarantined:
          - { customer_id: 42, amount: 200000000000000000000000000000000, reason: "column `amount`: the decimal average for `mean_spend` would overflow: 100000000000000000000000000000002.500000 is outside decimal(38,6) (at most 32 digits before the decimal point)" }
        """);
  }

  @Test
  void aScoringModelsFeatureSumsPastInt64AsTheDoubleItIs() throws Exception {
    Path p = int64Project("fixtures/decisions/receipts", "amount: decimal(12,2)", "amount: int64");
    FixtureProjects.write(
        p,
        "fixtures/overflow.yml",
        """
        model: receipt_risk
        given:
          - event: { merchant_id: 7, amount: 9223372036854775807, occurred_at: "2026-08-30T10:00:00Z", received_at: "2026-08-30T10:00:00Z" }
          - event: { merchant_id: 7, amount: 9223372036854775807, occurred_at: "2026-08-30T10:01:00Z", received_at: "2026-08-30T10:01:00Z" }
          - event: { merchant_id: 7, amount: 1, occurred_at: "2026-08-30T10:02:00Z", received_at: "2026-08-30T10:02:00Z" }
        """);
    Project project = Project.load(p);
    Fixture fixture = Fixture.load(project, p.resolve("fixtures/overflow.yml"));
    DeclaredModel model = DeclaredModel.of(project, "receipt_risk");
    FixtureOutcome direct = DIRECT.run(model, fixture);
    assertThat(direct.quarantined, hasSize(0));
    // the third receipt reads both: 2 * (2^63 - 1), past int64, as a double
    assertThat(direct.canonical(), containsString("spend_1h=1.8446744073709552E19"));
    assertEquals(ScoringOracle.of(model).run(fixture).canonical(), direct.canonical());
  }

  /**
   * Runs {@code fixture} (written as fixtures/overflow.yml) in {@code p}: it passes, with {@code
   * processed} events processed, and the oracle gives the DirectRunner's outcome with one event
   * quarantined.
   */
  private static void quarantinesOneAsTheOracleDoes(
      Path p, String model, int processed, String fixture) throws Exception {
    FixtureVerdict v = FixtureProjects.passes(p, "fixtures/overflow.yml", fixture);
    assertThat(v.render(), containsString(processed + " events processed"));
    FixtureProjects.assertOracleAgrees(p, "fixtures/overflow.yml", model, 1);
  }
}
