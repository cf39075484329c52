package dev.streamform.transforms.extraction;

import dev.streamform.transforms.envelope.Envelope;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PInput;
import org.apache.beam.sdk.values.POutput;
import org.apache.beam.sdk.values.PValue;
import org.apache.beam.sdk.values.TupleTag;

/** The outputs of {@link EventTimeExtraction}: envelopes, and records quarantined with a reason. */
public final class ExtractionResult implements POutput {
  private final Pipeline pipeline;
  private final TupleTag<Envelope> eventsTag;
  private final PCollection<Envelope> events;
  private final TupleTag<BadRecord> quarantinedTag;
  private final PCollection<BadRecord> quarantined;

  ExtractionResult(
      Pipeline pipeline,
      TupleTag<Envelope> eventsTag,
      PCollection<Envelope> events,
      TupleTag<BadRecord> quarantinedTag,
      PCollection<BadRecord> quarantined) {
    this.pipeline = pipeline;
    this.eventsTag = eventsTag;
    this.events = events;
    this.quarantinedTag = quarantinedTag;
    this.quarantined = quarantined;
  }

  /**
   * Events with their event time as element timestamp, punctuations, and a {@link Envelope#gap} for
   * each quarantined record (so offsets stay contiguous), in input order.
   */
  public PCollection<Envelope> events() {
    return events;
  }

  /** Records without a usable event time; the description says why. */
  public PCollection<BadRecord> quarantined() {
    return quarantined;
  }

  @Override
  public Pipeline getPipeline() {
    return pipeline;
  }

  @Override
  public Map<TupleTag<?>, PValue> expand() {
    return Map.of(eventsTag, events, quarantinedTag, quarantined);
  }

  @Override
  public void finishSpecifyingOutput(
      String transformName, PInput input, PTransform<?, ?> transform) {}
}
