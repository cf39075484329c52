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
}
