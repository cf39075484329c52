package dev.streamform.pipelines.kafka;

import dev.streamform.transforms.envelope.SourceRecord;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PInput;
import org.apache.beam.sdk.values.POutput;
import org.apache.beam.sdk.values.PValue;
import org.apache.beam.sdk.values.TupleTag;

/** The outputs of {@link KafkaSource}: decoded records and punctuations, and undecodable records. */
public final class KafkaSourceResult implements POutput {
  private final Pipeline pipeline;
  private final TupleTag<SourceRecord> recordsTag;
  private final PCollection<SourceRecord> records;
  private final TupleTag<BadRecord> quarantinedTag;
  private final PCollection<BadRecord> quarantined;

  KafkaSourceResult(
      Pipeline pipeline,
      TupleTag<SourceRecord> recordsTag,
      PCollection<SourceRecord> records,
      TupleTag<BadRecord> quarantinedTag,
      PCollection<BadRecord> quarantined) {
    this.pipeline = pipeline;
    this.recordsTag = recordsTag;
    this.records = records;
    this.quarantinedTag = quarantinedTag;
    this.quarantined = quarantined;
  }

  /** Records and punctuations at their (partition, offset), encoded with a SourceRecordCoder. */
  public PCollection<SourceRecord> records() {
    return records;
  }

  /**
   * Records that are not records of the schema: the description gives the partition, offset and
   * reason; the encoded record is the Kafka record as read (with its raw key and value bytes).
   */
  public PCollection<BadRecord> quarantined() {
    return quarantined;
  }

  @Override
  public Pipeline getPipeline() {
    return pipeline;
  }

  @Override
  public Map<TupleTag<?>, PValue> expand() {
    return Map.of(recordsTag, records, quarantinedTag, quarantined);
  }

  @Override
  public void finishSpecifyingOutput(
      String transformName, PInput input, PTransform<?, ?> transform) {}
}
