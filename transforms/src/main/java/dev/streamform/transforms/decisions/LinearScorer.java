package dev.streamform.transforms.decisions;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

import java.math.BigDecimal;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code score = bias + sum(weight[name] * inputs[name])}; an input without a weight does not count
 * and a weight without an input counts as 0. The digest is given by whoever read the weights (for a
 * declared model file: the SHA-256 of the file's bytes), so it names the model as written.
 */
public final class LinearScorer implements Scorer {
  private final TreeMap<String, Double> weights;
  private final double bias;
  private final String digest;

  private LinearScorer(Map<String, Double> weights, double bias, String digest) {
    this.weights = new TreeMap<>(weights);
    this.bias = bias;
    this.digest = digest;
  }

  public static LinearScorer of(Map<String, Double> weights, double bias, String digest) {
    checkArgument(digest != null && !digest.isBlank(), "a linear scorer needs a digest");
    checkArgument(weights != null, "LinearScorer.of: weights is null; give a map, e.g. Map.of()");
    checkArgument(
        Double.isFinite(bias), "LinearScorer.of: the bias %s is not a finite number", bias);
    for (Map.Entry<String, Double> w : weights.entrySet()) {
      checkArgument(
          w.getKey() != null && !w.getKey().isBlank(),
          "LinearScorer.of: a weight has no name (give the feature or column it weighs)");
      checkArgument(
          w.getValue() != null && Double.isFinite(w.getValue()),
          "LinearScorer.of: the weight of `%s` is %s, not a finite number",
          w.getKey(),
          w.getValue());
    }
    return new LinearScorer(weights, bias, digest);
  }

  public Map<String, Double> weights() {
    return weights;
  }

  public double bias() {
    return bias;
  }

  /**
   * The sum in decimal arithmetic: each weight and input as the shortest decimal that names its
   * double ({@link BigDecimal#valueOf(double)}: a {@code decimal(12,2)} amount 732.71 is 732.71),
   * the products and the sum exact, then rounded once to the places a decision keeps (6, half even,
   * as ScoreEvents keeps them) and the nearest double of that. So a score at or near a half-way
   * point between two kept values is kept as the reference oracle keeps it, whatever the order of
   * the terms; summed as doubles, or rounded to a double first, binary error decided it. A
   * non-finite weight or input makes the score non-finite, as in double arithmetic.
   */
  @Override
  public double score(Map<String, Double> inputs) {
    BigDecimal s = Double.isFinite(bias) ? BigDecimal.valueOf(bias) : null;
    double nonFinite = s == null ? bias : 0.0;
    for (Map.Entry<String, Double> w : weights.entrySet()) {
      Double x = inputs.get(w.getKey());
      if (x == null) {
        continue;
      }
      double weight = w.getValue();
      if (s == null || !Double.isFinite(weight) || !Double.isFinite(x)) {
        nonFinite += weight * x; // NaN or an infinity: no decimal names it
        s = null;
        continue;
      }
      s = s.add(BigDecimal.valueOf(weight).multiply(BigDecimal.valueOf(x)));
    }
    // rounded once, from the exact sum, to the places a decision keeps: the nearest double first
    // and then 6 places rounded twice, so an exact sum just past a half-way point
    // (306.0348065000000169) became the double 306.0348065 and then 306.034806, not 306.034807
    return s == null
        ? nonFinite
        : s.setScale(ScoreEvents.SCORE_PLACES, java.math.RoundingMode.HALF_EVEN).doubleValue();
  }

  @Override
  public String digest() {
    return digest;
  }

  @Override
  public String toString() {
    return "linear " + weights + " bias " + bias;
  }
}
