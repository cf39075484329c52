package dev.streamform.transforms.decisions;

import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PInput;
import org.apache.beam.sdk.values.POutput;
import org.apache.beam.sdk.values.PValue;
import org.apache.beam.sdk.values.TupleTag;

/** The outputs of {@link ScoreEvents}. */
public final class DecisionResult implements POutput {
  private final Pipeline pipeline;
  private final Map<TupleTag<?>, PValue> all;
  private final PCollection<Decision> decisions;
  private final PCollection<UnscoredLateEvent> reconciliations;
  private final PCollection<UnscoredLateEvent> ignored;
  private final PCollection<UnscoredLateEvent> revising;
  private final PCollection<DeadLetter> deadLetters;
  private final PCollection<StateUpdate> stateUpdates;

  DecisionResult(
      Pipeline pipeline,
      Map<TupleTag<?>, PValue> all,
      PCollection<Decision> decisions,
      PCollection<UnscoredLateEvent> reconciliations,
      PCollection<UnscoredLateEvent> ignored,
      PCollection<UnscoredLateEvent> revising,
      PCollection<DeadLetter> deadLetters,
      PCollection<StateUpdate> stateUpdates) {
    this.pipeline = pipeline;
    this.all = all;
    this.decisions = decisions;
    this.reconciliations = reconciliations;
    this.ignored = ignored;
    this.revising = revising;
    this.deadLetters = deadLetters;
    this.stateUpdates = stateUpdates;
  }

  /** Every decision: first decisions ({@code scored}) and revisions ({@code revised}). */
  public PCollection<Decision> decisions() {
    return decisions;
  }

  /** Late events sent to reconciliation ({@code late_action: reconcile}). */
  public PCollection<UnscoredLateEvent> reconciliations() {
    return reconciliations;
  }

  /** Late events that got no decision ({@code late_action: ignore}). */
  public PCollection<UnscoredLateEvent> ignored() {
    return ignored;
  }

  /**
   * Late events that revised decisions ({@code late_action: revise}), each with the ids of the
   * decisions it superseded; the revisions themselves are in {@link #decisions()}.
   */
  public PCollection<UnscoredLateEvent> revising() {
    return revising;
  }

  /**
   * Malformed timestamps (when given the quarantine), impossible clock skew, and events whose
   * feature or score would not be finite (ADR 0084).
   */
  public PCollection<DeadLetter> deadLetters() {
    return deadLetters;
  }

  /** Each event applied to feature state, with the key's state revision it made. */
  public PCollection<StateUpdate> stateUpdates() {
    return stateUpdates;
  }

  @Override
  public Pipeline getPipeline() {
    return pipeline;
  }

  @Override
  public Map<TupleTag<?>, PValue> expand() {
    return all;
  }

  @Override
  public void finishSpecifyingOutput(
      String transformName, PInput input, PTransform<?, ?> transform) {}
}
