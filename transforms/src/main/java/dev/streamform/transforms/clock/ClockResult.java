package dev.streamform.transforms.clock;

import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PInput;
import org.apache.beam.sdk.values.POutput;
import org.apache.beam.sdk.values.PValue;
import org.apache.beam.sdk.values.TupleTag;

/**
 * The outputs of {@link SourceClock}: the events to process, each with its partition's watermark at
 * arrival, and the events dropped as late. Punctuations are consumed by the clock.
 */
public final class ClockResult implements POutput {
  private final Pipeline pipeline;
  private final TupleTag<TimedEvent> eventsTag;
  private final PCollection<TimedEvent> events;
  private final TupleTag<LateEvent> lateTag;
  private final PCollection<LateEvent> late;
  private final TupleTag<IdleMarker> markersTag;
  private final PCollection<IdleMarker> markers;

  ClockResult(
      Pipeline pipeline,
      TupleTag<TimedEvent> eventsTag,
      PCollection<TimedEvent> events,
      TupleTag<LateEvent> lateTag,
      PCollection<LateEvent> late,
      TupleTag<IdleMarker> markersTag,
      PCollection<IdleMarker> markers) {
    this.markersTag = markersTag;
    this.markers = markers;
    this.pipeline = pipeline;
    this.eventsTag = eventsTag;
    this.events = events;
    this.lateTag = lateTag;
    this.late = late;
  }

  /** Events to process: on time, and late ones when the clock keeps them. */
  public PCollection<TimedEvent> events() {
    return events;
  }

  /** Events dropped as late, each with the watermark it lost to. */
  public PCollection<LateEvent> late() {
    return late;
  }

  /**
   * A marker each time a partition goes idle ({@code idle_after}) and when it delivers again, each
   * naming the partition's policy generation (docs/semantics.md §9.7); empty without idleness.
   */
  public PCollection<IdleMarker> idleMarkers() {
    return markers;
  }

  @Override
  public Pipeline getPipeline() {
    return pipeline;
  }

  @Override
  public Map<TupleTag<?>, PValue> expand() {
    return Map.of(eventsTag, events, lateTag, late, markersTag, markers);
  }

  @Override
  public void finishSpecifyingOutput(
      String transformName, PInput input, PTransform<?, ?> transform) {}
}
