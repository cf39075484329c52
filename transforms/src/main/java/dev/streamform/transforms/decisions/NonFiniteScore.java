package dev.streamform.transforms.decisions;

/**
 * Why a score that is NaN from finite features refuses a decision, and its fix (ADR 0084): a NaN
 * input of the event (a double column may hold NaN) gives one, as does an infinite product. The
 * words the stage and the reference oracle both give a dead letter.
 */
public final class NonFiniteScore {
  private NonFiniteScore() {}

  public static final String NAN =
      "the score is NaN, not a number, from finite features: a NaN among the event's inputs (a"
          + " double column may hold NaN) gives one";

  public static final String NAN_FIX =
      "send numbers in the event's columns the model weighs, or rescale its weights so that the"
          + " score fits";
}
