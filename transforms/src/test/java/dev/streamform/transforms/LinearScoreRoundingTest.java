package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.decisions.LinearScorer;
import dev.streamform.transforms.decisions.ScoreEvents;
import java.util.Map;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A decision's linear score is rounded once, from the exact decimal sum, to the 6 places a decision
 * keeps (half even). Rounded to a double first, the exact sum 306.03480650000001687 (0.341 × 407.79
 * + 0.5061 × 329.9316666666667) became 306.0348065 and then, half even, 306.034806 — where the
 * reference oracle, rounding the decimal, says 306.034807 (review of scoring, finding 4).
 */
class LinearScoreRoundingTest {
  private static final Row EVENT =
      Row.withSchema(Schema.builder().addStringField("k").build()).addValue("x").build();

  private static double score(Map<String, Double> weights, Map<String, Double> features) {
    return ScoreEvents.forModel("m")
        .by("k")
        .withFeatures(Aggregation.countAll().as("n"))
        .over(Duration.standardHours(1))
        .scoredBy(LinearScorer.of(weights, 0, "t"))
        .scoreOf(features, EVENT);
  }

  @Test
  void aSumJustPastAHalfWayPointRoundsUp() {
    assertEquals(
        306.034807,
        score(
            Map.of("amount", 0.341, "ratio", 0.5061),
            Map.of("amount", 407.79, "ratio", 329.9316666666667)));
  }

  @Test
  void anExactHalfWayPointRoundsToEven() {
    // 0.5 × 0.0000005 + 0.000001 = 0.00000125 exactly: half-way between 0.000001 and 0.000002
    assertEquals(
        0.000001, score(Map.of("a", 0.5, "b", 1.0), Map.of("a", 0.0000005, "b", 0.000001)));
  }
}
