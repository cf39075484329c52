package dev.streamform.pipelines.kafka;

import com.google.auto.value.AutoValue;
import dev.streamform.pipelines.SourceResult;
import dev.streamform.planner.Schemas;
import dev.streamform.planner.sinks.JsonRecords;
import dev.streamform.planner.sinks.Quarantine;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.transforms.BadRecordCoder;
import dev.streamform.transforms.StreamformMetrics;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.KafkaRecordCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.joda.time.Instant;

/**
 * Decodes the records KafkaIO reads ({@code KafkaRecord<byte[], byte[]>}) by the declared schema
 * ({@link JsonRecords}) into a {@link SourceRecord} at its (partition, offset): what {@link
 * KafkaSource} applies after its read, apart so that the benchmarks measure the same decoding on
 * records of their own (issue 31).
 *
 * <p>Guarantees: every record ends up either in {@link SourceResult#records()} (a record or, for
 * {@code {"__watermark": ...}}, a punctuation of its partition) or in {@link
 * SourceResult#quarantined()} as a Beam {@link BadRecord} with the reason and the raw record; a
 * quarantined record still leaves a punctuation at {@link BoundedWindow#TIMESTAMP_MIN_VALUE} at its
 * position, so the clock holds its partition's watermark from the partition's first record on. The
 * element's timestamp becomes the record's ingest time.
 */
@AutoValue
public abstract class KafkaRecordDecoding
    extends PTransform<PCollection<KafkaRecord<byte[], byte[]>>, SourceResult> {

  /** The coder of the records KafkaIO reads; a quarantined record is encoded with it. */
  static final KafkaRecordCoder<byte[], byte[]> RAW =
      KafkaRecordCoder.of(
          NullableCoder.of(ByteArrayCoder.of()), NullableCoder.of(ByteArrayCoder.of()));

  public abstract Map<String, ColumnType> schema();

  public abstract List<String> keyColumns();

  /** Whether a watermark record is a punctuation: false for a source without event time. */
  public abstract boolean punctuations();

  /** Decodes by {@code schema}; {@code keyColumns} must have values. */
  public static KafkaRecordDecoding of(Map<String, ColumnType> schema, List<String> keyColumns) {
    return new AutoValue_KafkaRecordDecoding(
        new java.util.LinkedHashMap<>(schema), List.copyOf(keyColumns), true);
  }

  /**
   * For a source that declares no event time: a watermark record is quarantined as meaningless, not
   * read as a punctuation ({@link JsonRecords#withoutPunctuations}).
   */
  public KafkaRecordDecoding withoutPunctuations() {
    return new AutoValue_KafkaRecordDecoding(schema(), keyColumns(), false);
  }

  @Override
  public SourceResult expand(PCollection<KafkaRecord<byte[], byte[]>> raw) {
    Schema schema = Schemas.of(schema());
    // plain tags: an anonymous one would capture this transform (and its schema) into the DoFn
    TupleTag<SourceRecord> records = new TupleTag<>("records");
    TupleTag<BadRecord> quarantined = new TupleTag<>("quarantined");
    PCollectionTuple out =
        raw.apply(
            "Decode",
            ParDo.of(
                    new DecodeFn(
                        JsonRecords.of(schema(), keyColumns(), punctuations()),
                        schema,
                        records,
                        quarantined))
                .withOutputTags(records, TupleTagList.of(quarantined)));
    return new SourceResult(
        raw.getPipeline(),
        records,
        out.get(records).setCoder(SourceRecordCoder.of(schema)),
        quarantined,
        out.get(quarantined).setCoder(BadRecordCoder.of()));
  }

  private static final class DecodeFn extends DoFn<KafkaRecord<byte[], byte[]>, SourceRecord> {
    private final JsonRecords json;
    private final Schema schema;
    private final TupleTag<SourceRecord> records;
    private final TupleTag<BadRecord> quarantined;
    private final Counter quarantinedCount =
        StreamformMetrics.counter(StreamformMetrics.QUARANTINED);

    DecodeFn(
        JsonRecords json,
        Schema schema,
        TupleTag<SourceRecord> records,
        TupleTag<BadRecord> quarantined) {
      this.json = json;
      this.schema = schema;
      this.records = records;
      this.quarantined = quarantined;
    }

    @ProcessElement
    public void process(
        @Element KafkaRecord<byte[], byte[]> record,
        @Timestamp Instant readAt,
        MultiOutputReceiver out)
        throws Exception {
      int partition = record.getPartition();
      long offset = record.getOffset();
      byte[] value = record.getKV().getValue();
      SourceRecord read;
      String reason;
      try {
        JsonRecords.Decoded decoded = json.decode(value);
        read =
            decoded.watermark() != null
                ? SourceRecord.punctuation(
                    partition, offset, readAt, new Instant(decoded.watermark().toEpochMilli()))
                : SourceRecord.of(partition, offset, readAt, Schemas.row(schema, decoded.values()));
        reason = null;
      } catch (JsonRecords.NotARecord notARecord) {
        read = null;
        reason = notARecord.getMessage();
      } catch (RuntimeException e) {
        // whatever else one record's bytes provoke is that record's fault: it must not stop the
        // job (which would fail on the same offset after every restart)
        read = null;
        reason = "cannot be decoded: " + e;
      }
      // outside the try: a failure downstream (fused into this call) is not this record's
      if (read != null) {
        out.get(records).output(read);
        return;
      }
      quarantinedCount.inc();
      out.get(records)
          .output(
              SourceRecord.punctuation(
                  partition, offset, readAt, BoundedWindow.TIMESTAMP_MIN_VALUE));
      out.get(quarantined)
          .output(
              BadRecord.builder()
                  .setRecord(
                      BadRecord.Record.builder()
                          .setHumanReadableJsonRecord(
                              value == null ? "null" : new String(value, StandardCharsets.UTF_8))
                          .addCoderAndEncodedRecord(RAW, record)
                          .build())
                  .setFailure(
                      BadRecord.Failure.builder()
                          .setDescription(Quarantine.describe(partition, offset, reason))
                          .build())
                  .build());
    }
  }
}
