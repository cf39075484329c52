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
            .addValues(customer, amount == null ? null : new BigDecimal(amount), orderedAt)
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

  /** The items, each with its (partition, offset), in the order they were added. */
  List<SourceRecord> items() {
    return List.copyOf(items);
  }

  /** One element per step, in delivery order; event times as element timestamps. */
  TestStream<SourceRecord> testStream() {
    return testStreamOf(items);
  }

  /** A TestStream delivering {@code delivery} one element per step, in that order. */
  static TestStream<SourceRecord> testStreamOf(List<SourceRecord> delivery) {
    TestStream.Builder<SourceRecord> b = TestStream.create(SourceRecordCoder.of(ORDERS));
    for (SourceRecord r : delivery) {
      b = b.addElements(TimestampedValue.of(r, elementTimestamp(r)));
    }
    return b.advanceWatermarkToInfinity();
  }

  /**
   * The TestStream timestamp of an item: its event time when it has a usable RFC 3339 one, else the
   * ingest time (the extraction re-stamps events; quarantined records keep this one).
   */
  static Instant elementTimestamp(SourceRecord r) {
    if (r.isWatermark()) {
      return r.watermark();
    }
    String text = r.record().getString("ordered_at");
    if (text == null || !text.contains("T")) {
      return INGEST;
    }
    try {
      Instant t = Instant.parse(text);
      return t.isBefore(org.apache.beam.sdk.transforms.windowing.BoundedWindow.TIMESTAMP_MAX_VALUE)
              && t.isAfter(
                  org.apache.beam.sdk.transforms.windowing.BoundedWindow.TIMESTAMP_MIN_VALUE)
          ? t
          : INGEST;
    } catch (IllegalArgumentException e) {
      return INGEST;
    }
  }

  static List<String> lines(Iterable<?> values) {
    List<String> out = new ArrayList<>();
    values.forEach(v -> out.add(String.valueOf(v)));
    return out.stream().sorted().collect(Collectors.toList());
  }
}
