package dev.streamform.sink;

import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PInput;
import org.apache.beam.sdk.values.POutput;
import org.apache.beam.sdk.values.PValue;
import org.apache.beam.sdk.values.TupleTag;

/**
 * What {@link RevisionSink} returns: the records it refused, as Beam's WriteResult-like outputs.
 */
public final class RevisionSinkResult implements POutput {
  private final Pipeline pipeline;
  private final TupleTag<RevisionConflict> conflictsTag;
  private final PCollection<RevisionConflict> conflicts;

  RevisionSinkResult(
      Pipeline pipeline,
      TupleTag<RevisionConflict> conflictsTag,
      PCollection<RevisionConflict> conflicts) {
    this.pipeline = pipeline;
    this.conflictsTag = conflictsTag;
    this.conflicts = conflicts;
  }

  /**
   * One record per refusal (a conflicting revision or final record), in the window and at the
   * timestamp of the refused record; the same refusals are in {@code streamform.revision_conflict}.
   */
  public PCollection<RevisionConflict> conflicts() {
    return conflicts;
  }

  @Override
  public Pipeline getPipeline() {
    return pipeline;
  }

  @Override
  public Map<TupleTag<?>, PValue> expand() {
    return Map.of(conflictsTag, conflicts);
  }

  @Override
  public void finishSpecifyingOutput(
      String transformName, PInput input, PTransform<?, ?> transform) {}
}
