package dev.streamform.pipelines;

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

/**
 * What a source read ({@code KafkaSource}, {@code FileSource}): its records and punctuations at
 * their (partition, offset), and what it could not decode, as Beam {@link BadRecord}s.
 */
public final class SourceResult implements POutput {
  private final Pipeline pipeline;
  private final TupleTag<SourceRecord> recordsTag;
  private final PCollection<SourceRecord> records;
  private final TupleTag<BadRecord> quarantinedTag;
  private final PCollection<BadRecord> quarantined;

  public SourceResult(
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
   * reason ({@code partition <p> offset <o>: <reason>}); the encoded record is what the source read
   * (the Kafka record with its raw bytes; a file's line, {@code FileSource.LINE}).
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
