package dev.streamform.transforms.decisions;

/**
 * What happens to an event beyond the declared lateness (its partition's watermark at arrival
 * {@code W_p > t + lateness}). No action ever changes or removes a decision already emitted.
 */
public enum LateAction {
  /** No decision; the event is listed in {@link DecisionResult#ignored()}. */
  IGNORE,
  /**
   * Each earlier decision of the key whose features the event would have changed (its time {@code
   * s} with {@code t <= s < t + range}) gets a new decision: revision n+1, a new id, and {@code
   * supersedes} = the id of that event's latest decision. The late event gets none itself.
   */
  REVISE,
  /**
   * No decision; the event goes to {@link DecisionResult#reconciliations()} with the ids of the
   * decisions it would have changed, for a person or a batch job.
   */
  RECONCILE;

  public String declared() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
