package dev.streamform.transforms.decisions;

import java.io.Serializable;
import java.util.Map;

/**
 * A model that turns the inputs a {@link Preprocessor} prepared for one event into a score.
 *
 * <p>An implementation must be a pure function of its inputs (no clock, no randomness, no external
 * calls) so that a decision can be recomputed, and {@link #digest()} must change whenever its
 * behaviour does: it goes into every decision's identity ({@code model_digest}).
 */
public interface Scorer extends Serializable {

  /** The score of one event, from the inputs the preprocessor gave (name -> value). */
  double score(Map<String, Double> inputs);

  /** A digest of everything the score depends on (weights, code version), e.g. a SHA-256 in hex. */
  String digest();
}
