package dev.streamform.transforms.windows;

import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PInput;
import org.apache.beam.sdk.values.POutput;
import org.apache.beam.sdk.values.PValue;
import org.apache.beam.sdk.values.TupleTag;

/**
 * The outputs of {@link WindowedAggregate}: the windows' records (previews, revisions, finals) and
 * the events windows refused as too late.
 */
public final class WindowedResult implements POutput {
  private final Pipeline pipeline;
  private final TupleTag<WindowRevision> revisionsTag;
  private final PCollection<WindowRevision> revisions;
  private final TupleTag<TooLateEvent> tooLateTag;
  private final PCollection<TooLateEvent> tooLate;

  WindowedResult(
      Pipeline pipeline,
      TupleTag<WindowRevision> revisionsTag,
      PCollection<WindowRevision> revisions,
      TupleTag<TooLateEvent> tooLateTag,
      PCollection<TooLateEvent> tooLate) {
    this.pipeline = pipeline;
    this.revisionsTag = revisionsTag;
    this.revisions = revisions;
    this.tooLateTag = tooLateTag;
    this.tooLate = tooLate;
  }

  /**
   * Previews ({@code early}), revisions ({@code on_time}, {@code corrected}) and {@code final}
   * records.
   */
  public PCollection<WindowRevision> revisions() {
    return revisions;
  }

  /** One record per window that refused an event as too late. */
  public PCollection<TooLateEvent> tooLate() {
    return tooLate;
  }

  @Override
  public Pipeline getPipeline() {
    return pipeline;
  }

  @Override
  public Map<TupleTag<?>, PValue> expand() {
    return Map.of(revisionsTag, revisions, tooLateTag, tooLate);
  }

  @Override
  public void finishSpecifyingOutput(
      String transformName, PInput input, PTransform<?, ?> transform) {}
}
