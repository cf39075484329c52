package dev.streamform.transforms.extraction;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

import dev.streamform.transforms.StreamformMetrics;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;

/**
 * Quarantines every record without a value for one of a model's key columns (missing or null), with
 * the reason {@code key column `<c>` has no value} — the reason a file's or a Kafka topic's decoder
 * ({@code JsonRecords}) gives the same record, so a fixture, a file and a topic agree (ADR 0088).
 * It runs first, before the event time, the clock and the WHERE, as the decoder does.
 *
 * <p>A quarantined record leaves a gap at its offset, as the decoder does: a punctuation at {@link
 * BoundedWindow#TIMESTAMP_MIN_VALUE}, which carries no watermark information and keeps the
 * partition's offsets contiguous for the clock. Punctuations pass through unchanged. The input must
 * be encoded with a {@link SourceRecordCoder}; {@link #RECORDS} keeps its coder, {@link
 * #QUARANTINED} holds {@link BadRecord}s whose encoded record is the {@link SourceRecord}.
 */
public final class KeyValues extends PTransform<PCollection<SourceRecord>, PCollectionTuple> {
  private static final long serialVersionUID = 1L;

  /** Records with every key value, punctuations and the gaps of the quarantined, in input order. */
  public static final TupleTag<SourceRecord> RECORDS = new TupleTag<>("records") {};

  /** Records without a key value; the description says which column. */
  public static final TupleTag<BadRecord> QUARANTINED = new TupleTag<>("quarantined") {};

  private final List<String> columns;

  private KeyValues(List<String> columns) {
    this.columns = List.copyOf(columns);
  }

  /** The check that each of {@code columns} (source columns: the GROUP BY's) has a value. */
  public static KeyValues of(List<String> columns) {
    return new KeyValues(columns);
  }

  /** The reason a record without a value for key column {@code column} is quarantined. */
  public static String reason(String column) {
    return "key column `" + column + "` has no value";
  }

  @Override
  public PCollectionTuple expand(PCollection<SourceRecord> input) {
    Coder<SourceRecord> coder = input.getCoder();
    checkArgument(
        coder instanceof SourceRecordCoder,
        "KeyValues needs its input encoded with a SourceRecordCoder, got %s",
        coder);
    Schema schema = ((SourceRecordCoder) coder).recordSchema();
    for (String c : columns) {
      checkArgument(
          schema.hasField(c),
          "key column `%s` is not a field of the records (fields: %s)",
          c,
          schema.getFieldNames());
    }
    PCollectionTuple out =
        input.apply(
            "CheckKeyValues",
            ParDo.of(new CheckFn(columns, coder))
                .withOutputTags(RECORDS, TupleTagList.of(QUARANTINED)));
    out.get(RECORDS).setCoder(coder);
    out.get(QUARANTINED).setCoder(BadRecord.getCoder(input.getPipeline()));
    return out;
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder.add(DisplayData.item("key", String.join(",", columns)).withLabel("Key columns"));
  }

  private static final class CheckFn extends DoFn<SourceRecord, SourceRecord> {
    private final List<String> columns;
    private final Coder<SourceRecord> coder;
    private final Counter quarantinedCount =
        StreamformMetrics.counter(StreamformMetrics.QUARANTINED);

    CheckFn(List<String> columns, Coder<SourceRecord> coder) {
      this.columns = columns;
      this.coder = coder;
    }

    @ProcessElement
    public void process(@Element SourceRecord record, MultiOutputReceiver out) throws Exception {
      if (record.isWatermark()) {
        out.get(RECORDS).output(record);
        return;
      }
      Row row = record.record();
      for (String column : columns) {
        if (row.getValue(column) != null) {
          continue;
        }
        quarantinedCount.inc();
        out.get(RECORDS)
            .output(
                SourceRecord.punctuation(
                    record.partition(),
                    record.offset(),
                    record.ingestTime(),
                    BoundedWindow.TIMESTAMP_MIN_VALUE));
        out.get(QUARANTINED)
            .output(
                BadRecord.builder()
                    .setRecord(
                        BadRecord.Record.builder()
                            .setHumanReadableJsonRecord(row.toString())
                            .addCoderAndEncodedRecord(coder, record)
                            .build())
                    .setFailure(
                        BadRecord.Failure.builder()
                            .setDescription(
                                "partition "
                                    + record.partition()
                                    + " offset "
                                    + record.offset()
                                    + ": "
                                    + reason(column))
                            .build())
                    .build());
        return;
      }
      out.get(RECORDS).output(record);
    }
  }
}
