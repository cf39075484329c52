package dev.streamform.transforms.decisions;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A linear score is {@code bias + sum(weight * input)} in decimal arithmetic, as the weights and
 * the inputs are written, so a score exactly half-way between two 6-place values rounds as the
 * reference oracle rounds it (half even), not as the doubles' binary error pushes it.
 */
class LinearScorerTest {
  /** As {@code ScoreEvents} keeps a score: 6 places, half even. */
  private static BigDecimal kept(double score) {
    return BigDecimal.valueOf(score).setScale(6, RoundingMode.HALF_EVEN);
  }

  @Test
  void aScoreHalfWayBetweenTwoSixPlaceValuesRoundsHalfEvenAsTheOracleDoes() {
    // found by streamform fuzz (a receipts model with six inputs): exactly 13.4443125, which the
    // doubles summed to 13.444312500000001 and so kept as 13.444313; the oracle kept 13.444312
    LinearScorer scorer =
        LinearScorer.of(
            Map.of(
                "amount", 0.01,
                "spend_1h", 0.001,
                "receipts_1h", 0.1,
                "max_tip", 0.2,
                "avg_amount", -0.003,
                "tip", 1.5),
            0.5,
            "digest");
    double score =
        scorer.score(
            Map.of(
                "amount", 732.71,
                "spend_1h", 1268.85,
                "receipts_1h", 4.0,
                "max_tip", 19.25,
                "avg_amount", 317.2125,
                "tip", 0.7));
    assertThat(kept(score), is(new BigDecimal("13.444312")));
  }

  @Test
  void aNonFiniteInputGivesANonFiniteScore() {
    LinearScorer scorer = LinearScorer.of(Map.of("x", 2.0), 0, "digest");
    assertThat(Double.isNaN(scorer.score(Map.of("x", Double.NaN))), is(true));
    assertThat(scorer.score(Map.of("x", Double.POSITIVE_INFINITY)), is(Double.POSITIVE_INFINITY));
    assertThat(scorer.score(Map.of("y", 3.0)), is(0.0));
  }

  /**
   * What a declared model's linear file refuses is refused in Java too: a weight that is not a
   * finite number, a bias that is not (found by a read-only audit of the Java API: accepted).
   */
  @Test
  void aWeightOrBiasThatIsNotFiniteIsRefused() {
    IllegalArgumentException nan =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> LinearScorer.of(Map.of("a", Double.NaN), 0, "digest"));
    assertThat(
        nan.getMessage(), is("LinearScorer.of: the weight of `a` is NaN, not a finite number"));
    IllegalArgumentException bias =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> LinearScorer.of(Map.of("a", 1.0), Double.POSITIVE_INFINITY, "digest"));
    assertThat(bias.getMessage(), is("LinearScorer.of: the bias Infinity is not a finite number"));
  }

  /**
   * A weight that names no feature and no numeric field would score every event without it: refused
   * when ScoreEvents is applied, as check refuses it in a linear file (found by a read-only audit
   * of the Java API: "spend_lh" for "spend_1h" scored every event 0.0, silently).
   */
  @Test
  void aWeightThatWeighsNothingIsRefusedWhenScoreEventsIsApplied() {
    org.apache.beam.sdk.options.PipelineOptions options =
        org.apache.beam.sdk.options.PipelineOptionsFactory.create();
    options.setRunner(org.apache.beam.runners.direct.DirectRunner.class);
    org.apache.beam.sdk.Pipeline p = org.apache.beam.sdk.Pipeline.create(options);
    ScoreEvents typo =
        DecisionScoringTest.receiptRisk()
            .scoredBy(LinearScorer.of(Map.of("spend_lh", 1.0), 0, "digest"));
    IllegalArgumentException refused =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () ->
                p.apply(
                        org.apache.beam.sdk.testing.TestStream.create(
                                dev.streamform.transforms.envelope.SourceRecordCoder.of(
                                    DecisionScoringTest.RECEIPTS))
                            .advanceWatermarkToInfinity())
                    .apply(
                        dev.streamform.transforms.extraction.EventTimeExtraction.from(
                            "occurred_at"))
                    .events()
                    .apply(
                        dev.streamform.transforms.clock.SourceClock.forBoundedOutOfOrderness(
                            org.joda.time.Duration.standardMinutes(5)))
                    .events()
                    .apply(typo));
    assertThat(
        refused.getMessage(),
        is(
            "ScoreEvents: the LinearScorer's weight `spend_lh` names no feature and no numeric"
                + " field of the records; weigh one of: amount, merchant_id, receipts_1h,"
                + " spend_1h"));
  }

  /**
   * A feature that is not a number (MAX of a timestamp field) is refused when ScoreEvents is
   * applied: it failed the first decision with a class cast (review of scoring #3).
   */
  @Test
  void aFeatureThatIsNotANumberIsRefusedWhenScoreEventsIsApplied() {
    org.apache.beam.sdk.options.PipelineOptions options =
        org.apache.beam.sdk.options.PipelineOptionsFactory.create();
    options.setRunner(org.apache.beam.runners.direct.DirectRunner.class);
    org.apache.beam.sdk.Pipeline p = org.apache.beam.sdk.Pipeline.create(options);
    ScoreEvents latest =
        DecisionScoringTest.receiptRisk()
            .withFeatures(
                dev.streamform.transforms.changelog.Aggregation.sum("amount").as("spend_1h"),
                // a count of a timestamp is a number: not refused
                dev.streamform.transforms.changelog.Aggregation.count("received_at")
                    .as("receipts_1h"),
                dev.streamform.transforms.changelog.Aggregation.max("received_at")
                    .as("last_received"));
    IllegalArgumentException refused =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () ->
                p.apply(
                        org.apache.beam.sdk.testing.TestStream.create(
                                dev.streamform.transforms.envelope.SourceRecordCoder.of(
                                    DecisionScoringTest.RECEIPTS))
                            .advanceWatermarkToInfinity())
                    .apply(
                        dev.streamform.transforms.extraction.EventTimeExtraction.from(
                            "occurred_at"))
                    .events()
                    .apply(
                        dev.streamform.transforms.clock.SourceClock.forBoundedOutOfOrderness(
                            org.joda.time.Duration.standardMinutes(5)))
                    .events()
                    .apply(latest));
    assertThat(
        refused.getMessage(),
        is(
            "ScoreEvents: feature `last_received` aggregates `received_at`, a DATETIME field: a"
                + " feature is a number its scorer reads; aggregate a numeric field, or count it"));
  }
}
