package dev.streamform.teststreams;

import dev.streamform.transforms.decisions.Scorer;
import java.util.Map;

/**
 * A {@link Scorer} class that reads only the receipts feature {@code receipts_1h}: an event's own
 * {@code amount}, NaN or not, does not enter its score ({@link NonFiniteScoreTest}).
 */
public final class ReceiptCountScorer implements Scorer {
  private static final long serialVersionUID = 1L;

  @Override
  public double score(Map<String, Double> inputs) {
    return 0.5 * inputs.getOrDefault("receipts_1h", 0.0);
  }

  @Override
  public String digest() {
    return "receipt-count-scorer-1";
  }
}
