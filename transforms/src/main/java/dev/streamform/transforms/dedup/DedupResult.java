package dev.streamform.transforms.dedup;

import dev.streamform.transforms.clock.TimedEvent;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PInput;
import org.apache.beam.sdk.values.POutput;
import org.apache.beam.sdk.values.PValue;
import org.apache.beam.sdk.values.TupleTag;

/**
 * The outputs of {@link Deduplicate}: every input event is in exactly one of them — {@link
 * #events()} (first seen, or seen again after the horizon), {@link #duplicates()} (the same id and
 * the same payload again, within the horizon) or {@link #conflicts()} (the same id with another
 * payload, within the horizon, or no id at all: quarantined with the reason).
 */
public final class DedupResult implements POutput {
  private final Pipeline pipeline;
  private final Map<TupleTag<?>, PValue> outputs;
  private final PCollection<TimedEvent> events;
  private final PCollection<TimedEvent> duplicates;
  private final PCollection<BadRecord> conflicts;

  DedupResult(
      Pipeline pipeline,
      Map<TupleTag<?>, PValue> outputs,
      PCollection<TimedEvent> events,
      PCollection<TimedEvent> duplicates,
      PCollection<BadRecord> conflicts) {
    this.pipeline = pipeline;
    this.outputs = outputs;
    this.events = events;
    this.duplicates = duplicates;
    this.conflicts = conflicts;
  }

  /** The events to process, with the clock's coder, stamps and element timestamps. */
  public PCollection<TimedEvent> events() {
    return events;
  }

  /** Repeated events dropped as duplicates (counted: {@code duplicate_events_dropped}). */
  public PCollection<TimedEvent> duplicates() {
    return duplicates;
  }

  /**
   * Repeated ids with another payload, and events without an id, as Beam dead letters with the
   * reason.
   */
  public PCollection<BadRecord> conflicts() {
    return conflicts;
  }

  @Override
  public Pipeline getPipeline() {
    return pipeline;
  }

  @Override
  public Map<TupleTag<?>, PValue> expand() {
    return outputs;
  }

  @Override
  public void finishSpecifyingOutput(
      String transformName, PInput input, PTransform<?, ?> transform) {}
}
