package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.oracle.ScoringOracle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ADR 0084: a scoring model never decides from a feature or a score outside the double range. The
 * receipts models with their amounts declared {@code double}: a feature whose double sum passes the
 * largest double, or a score that does from finite features, dead-letters the event (route {@code
 * dead_lettered}, reason {@code non_finite}, naming the feature or the score); a late event whose
 * revision would, is reconciled instead and revises nothing. Each fixture is written by hand and
 * passes on the DirectRunner, and the oracle gives the same outcome.
 */
class NonFiniteScoreTest {
  private static final FixtureRunner DIRECT = FixtureRunner.on(RunnerChoice.direct());

  @TempDir Path dir;

  /** The receipts project with its amounts declared double (and, when given, other weights). */
  private Path receipts(String weights) throws Exception {
    Path p = FixtureProjects.copy(FixtureProjects.under("fixtures/decisions/receipts"), dir);
    FixtureProjects.replace(p, "sources.yml", "amount: decimal(12,2)", "amount: double");
    if (weights != null) {
      FixtureProjects.write(p, "models/receipt_risk.linear.yml", weights);
    }
    return p;
  }

  @Test
  void aFeatureSumPastTheLargestDoubleDeadLettersTheEventItWouldDecide() throws Exception {
    Path p = receipts(null);
    FixtureOutcome direct =
        passesAsTheOracleSays(
            p,
            """
            model: receipt_risk
            given:
              - event: { merchant_id: 7, amount: 1.0e308, occurred_at: "2026-08-30T10:00:00Z", received_at: "2026-08-30T10:00:00Z" }
              - event: { merchant_id: 7, amount: 1.0e308, occurred_at: "2026-08-30T10:01:00Z", received_at: "2026-08-30T10:01:00Z" }
              - event: { merchant_id: 7, amount: 1.0, occurred_at: "2026-08-30T10:02:00Z", received_at: "2026-08-30T10:02:00Z" }
              - event: { merchant_id: 8, amount: 5.0, occurred_at: "2026-08-30T10:03:00Z", received_at: "2026-08-30T10:03:00Z" }
            expect:
              - { event: 1, route: scored, spend_1h: 0.0, receipts_1h: 0, score: 1.0e306 }
              - { event: 2, route: scored, spend_1h: 1.0e308, receipts_1h: 1, score: 1.1e306 }
              - { event: 3, route: dead_lettered }
              - { event: 4, route: scored, spend_1h: 0.0, receipts_1h: 0, score: 0.05 }
            """,
            "3 events processed");
    FixtureOutcome.Routed third = only(direct, "0-2");
    assertThat(
        third.identity().get("description"),
        is(
            "partition 0 offset 2: feature `spend_1h` is Infinity, outside the double range (about"
                + " ±1.8e308): the double sum of `amount` over its key's events in"
                + " (2026-08-30T09:02:00.000Z, 2026-08-30T10:02:00.000Z] overflows, so no decision"
                + " is made from it; rescale `amount` (a larger unit) so that its sums fit"));
    assertThat(third.identity().get("reason"), is("non_finite"));
  }

  @Test
  void aScorePastTheLargestDoubleFromFiniteFeaturesDeadLettersTheEvent() throws Exception {
    Path p =
        receipts(
            """
            bias: 0
            weights:
              amount: 2.0
              spend_1h: 0.001
              receipts_1h: 0.1
            """);
    FixtureOutcome direct =
        passesAsTheOracleSays(
            p,
            """
            model: receipt_risk
            given:
              - event: { merchant_id: 7, amount: 1.0e308, occurred_at: "2026-08-30T10:00:00Z", received_at: "2026-08-30T10:00:00Z" }
              - event: { merchant_id: 7, amount: 1.0, occurred_at: "2026-08-30T10:01:00Z", received_at: "2026-08-30T10:01:00Z" }
            expect:
              - { event: 1, route: dead_lettered }
              - { event: 2, route: scored, spend_1h: 1.0e308, receipts_1h: 1, score: 1.0e305 }
            """,
            "1 event processed");
    assertThat(
        only(direct, "0-0").identity().get("description"),
        is(
            "partition 0 offset 0: the score is Infinity, outside the double range (about"
                + " ±1.8e308), from finite features, so no decision is made from it; rescale the"
                + " model's weights or its inputs so that the score fits"));
  }

  @Test
  void aNanAmountIsSaidAsANanNotAsAnOverflowForItsOwnScoreAndForTheSumsItEnters() throws Exception {
    Path p = receipts(null);
    // 1's own amount is NaN: its score (0.01 * amount + ...) is NaN; 2 reads 1: spend_1h is NaN
    FixtureOutcome direct =
        passesAsTheOracleSays(
            p,
            """
            model: receipt_risk
            given:
              - event: { merchant_id: 7, amount: .nan, occurred_at: "2026-08-30T10:00:00Z", received_at: "2026-08-30T10:00:00Z" }
              - event: { merchant_id: 7, amount: 1.0, occurred_at: "2026-08-30T10:01:00Z", received_at: "2026-08-30T10:01:00Z" }
            expect:
              - { event: 1, route: dead_lettered, reason: non_finite }
              - { event: 2, route: dead_lettered, reason: "has NaN in `amount`" }
            """,
            "0 events processed");
    assertThat(
        only(direct, "0-0").identity().get("description"),
        is(
            "partition 0 offset 0: the score is NaN, not a number, from finite features: a NaN"
                + " among the event's inputs (a double column may hold NaN) gives one, so no"
                + " decision is made from it; send numbers in the event's columns the model"
                + " weighs, or rescale its weights so that the score fits"));
    assertThat(
        only(direct, "0-1").identity().get("description"),
        is(
            "partition 0 offset 1: feature `spend_1h` is NaN, not a number: an event of its key in"
                + " (2026-08-30T09:01:00.000Z, 2026-08-30T10:01:00.000Z] has NaN in `amount`, so"
                + " no decision is made from it; a NaN holds every sum of `amount` at NaN while"
                + " its event is in the range; send numbers in `amount`"));
  }

  /**
   * A Scorer class is given every input, NaN too, and decides what it makes of them: one that does
   * not read {@code amount} scores an event whose own amount is NaN (the product and the oracle
   * alike); a later event reading a NaN sum is still dead-lettered by its feature.
   */
  @Test
  void aScorerClassThatIgnoresANanInputDecidesTheEventAsTheOracleDoes() throws Exception {
    Path p = receipts(null);
    FixtureProjects.replace(
        p,
        "streamform.yml",
        "      linear: models/receipt_risk.linear.yml\n      contract: as_of_occurrence",
        "      scorer: "
            + ReceiptCountScorer.class.getName()
            + "\n      contract: as_of_occurrence");
    FixtureOutcome direct =
        passesAsTheOracleSays(
            p,
            """
            model: receipt_risk
            given:
              - event: { merchant_id: 7, amount: .nan, occurred_at: "2026-08-30T10:00:00Z", received_at: "2026-08-30T10:00:00Z" }
              - event: { merchant_id: 7, amount: 1.0, occurred_at: "2026-08-30T10:01:00Z", received_at: "2026-08-30T10:01:00Z" }
              - event: { merchant_id: 8, amount: .nan, occurred_at: "2026-08-30T10:02:00Z", received_at: "2026-08-30T10:02:00Z" }
            expect:
              - { event: 1, route: scored, receipts_1h: 0, score: 0.0 }
              - { event: 2, route: dead_lettered, reason: "has NaN in `amount`" }
              - { event: 3, route: scored, receipts_1h: 0, score: 0.0 }
            """,
            "2 events processed");
    assertThat(only(direct, "0-0").score(), is(0.0));
  }

  @Test
  void aLateEventWhoseRevisionWouldReadASumPastTheLargestDoubleIsReconciledInstead()
      throws Exception {
    Path p = receipts(null);
    // 2 is decided (reading 1) once merchant 8's receipt moves W_0 to 10:31; 4 is late (10:31 >=
    // 10:05 + 10m) and would revise 2 from 1 and 4: 2e308. It is applied to state
    // (late_updates_state), so 5, which reads 1, 2 and 4, is dead-lettered.
    FixtureOutcome direct =
        passesAsTheOracleSays(
            p,
            """
            model: receipt_risk
            given:
              - event: { merchant_id: 7, amount: 1.0e308, occurred_at: "2026-08-30T10:00:00Z", received_at: "2026-08-30T10:00:00Z" }
              - event: { merchant_id: 7, amount: 1.0, occurred_at: "2026-08-30T10:30:00Z", received_at: "2026-08-30T10:30:00Z" }
              - event: { merchant_id: 8, amount: 1.0, occurred_at: "2026-08-30T10:36:00Z", received_at: "2026-08-30T10:36:00Z" }
              - event: { merchant_id: 7, amount: 1.0e308, occurred_at: "2026-08-30T10:05:00Z", received_at: "2026-08-30T10:40:00Z" }
              - event: { merchant_id: 7, amount: 1.0, occurred_at: "2026-08-30T10:35:00Z", received_at: "2026-08-30T10:41:00Z" }
            expect:
              - { event: 1, route: scored, spend_1h: 0.0, receipts_1h: 0, score: 1.0e306 }
              - { event: 2, route: scored, spend_1h: 1.0e308, receipts_1h: 1, score: 1.0e305 }
              - { event: 3, route: scored, spend_1h: 0.0, receipts_1h: 0, score: 0.01 }
              - { event: 4, route: reconciled }
              - { event: 5, route: dead_lettered }
            """,
            "3 events processed");
    FixtureOutcome.Routed late = only(direct, "0-3");
    assertThat(
        late.identity().get("reason"),
        containsString(
            "its revision of the decision of event 0-1 cannot be made: feature `spend_1h` is"
                + " Infinity, outside the double range"));
    assertThat(late.identity().get("updated_state"), is("true"));
    assertThat(only(direct, "0-4").identity().get("description"), containsString("`spend_1h`"));
  }

  /**
   * Runs {@code fixture} (as fixtures/nonfinite.yml) in {@code p}: it passes on the DirectRunner
   * with {@code processed} ("N events processed"), no decision has a non-finite feature or score,
   * and the oracle's outcome is the DirectRunner's.
   */
  private static FixtureOutcome passesAsTheOracleSays(Path p, String fixture, String processed)
      throws Exception {
    FixtureProjects.write(p, "fixtures/nonfinite.yml", fixture);
    Project project = Project.load(p);
    Fixture f = Fixture.load(project, p.resolve("fixtures/nonfinite.yml"));
    DeclaredModel model = DeclaredModel.of(project, "receipt_risk");
    FixtureOutcome direct = DIRECT.run(model, f);
    for (FixtureOutcome.Routed r : direct.routed) {
      if (r.score() != null) {
        assertTrue(Double.isFinite(r.score()), "a decision with score " + r.score() + ": " + r);
      }
      r.features()
          .forEach(
              (name, v) ->
                  assertTrue(
                      Double.isFinite(((Number) v).doubleValue()),
                      "a decision with feature " + name + " = " + v + ": " + r));
    }
    FixtureVerdict v = FixtureVerdict.judge(f, model, direct);
    v.assertPassed();
    assertThat(v.render(), containsString(processed));
    assertEquals(direct.canonical(), ScoringOracle.of(model).run(f).canonical());
    return direct;
  }

  private static FixtureOutcome.Routed only(FixtureOutcome outcome, String eventId) {
    List<FixtureOutcome.Routed> rows = new ArrayList<>();
    outcome.routed.forEach(
        r -> {
          if (r.eventId().equals(eventId)) {
            rows.add(r);
          }
        });
    assertEquals(1, rows.size(), "rows of event " + eventId + ": " + rows);
    return rows.get(0);
  }
}
