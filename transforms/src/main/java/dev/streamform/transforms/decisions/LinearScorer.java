package dev.streamform.transforms.decisions;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

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
    return new LinearScorer(weights, bias, digest);
  }

  public Map<String, Double> weights() {
    return weights;
  }

  public double bias() {
    return bias;
  }

  @Override
  public double score(Map<String, Double> inputs) {
    double s = bias;
    for (Map.Entry<String, Double> w : weights.entrySet()) {
      Double x = inputs.get(w.getKey());
      if (x != null) {
        s += w.getValue() * x;
      }
    }
    return s;
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
