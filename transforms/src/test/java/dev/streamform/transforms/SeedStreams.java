package dev.streamform.transforms;

import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;

/**
 * Builds TestStreams of the seed's {@code orders} source in delivery order, the way fixtures do:
 * each item gets the next offset of its partition, and the stream's watermark follows the clock.
 */
final class SeedStreams {
  static final Schema ORDERS =
      Schema.builder()
          .addNullableField("customer_id", Schema.FieldType.INT64)
          .addNullableField("amount", Schema.FieldType.DECIMAL)
          .addNullableField("ordered_at", Schema.FieldType.STRING)
          .build();
  static final Instant INGEST = new Instant(0);

  private final List<SourceRecord> items = new ArrayList<>();
  private final java.util.Map<Integer, Long> offsets = new java.util.HashMap<>();

  static Pipeline pipeline() {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    return Pipeline.create(options);
  }

  static Instant at(String hhmm) {
    return Instant.parse("2026-08-30T" + hhmm + ":00Z");
  }

  private long nextOffset(int partition) {
    return offsets.merge(partition, 1L, Long::sum) - 1;
  }

  SeedStreams event(long customer, String amount, String hhmm) {
    return event(0, customer, amount, at(hhmm).toString());
  }

  SeedStreams event(int partition, long customer, String amount, String orderedAt) {
    Row row =
        Row.withSchema(ORDERS)
            .addValues(customer, new BigDecimal(amount), orderedAt)
            .build();
    items.add(SourceRecord.of(partition, nextOffset(partition), INGEST, row));
    return this;
  }

  SeedStreams watermark(String hhmm) {
    return watermark(0, at(hhmm));
  }

  SeedStreams watermark(int partition, Instant w) {
    items.add(SourceRecord.punctuation(partition, nextOffset(partition), INGEST, w));
    return this;
  }

  /** One element per step, in delivery order; event times as element timestamps. */
  TestStream<SourceRecord> testStream() {
    TestStream.Builder<SourceRecord> b = TestStream.create(SourceRecordCoder.of(ORDERS));
    for (SourceRecord r : items) {
      Instant ts =
          r.isWatermark()
              ? r.watermark()
              : r.record().getString("ordered_at") == null
                      || !r.record().getString("ordered_at").contains("T")
                  ? INGEST
                  : Instant.parse(r.record().getString("ordered_at"));
      b = b.addElements(TimestampedValue.of(r, ts));
    }
    return b.advanceWatermarkToInfinity();
  }

  static List<String> lines(Iterable<?> values) {
    List<String> out = new ArrayList<>();
    values.forEach(v -> out.add(String.valueOf(v)));
    return out.stream().sorted().collect(Collectors.toList());
  }
}
