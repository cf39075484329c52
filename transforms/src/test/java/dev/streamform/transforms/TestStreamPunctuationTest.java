package dev.streamform.transforms;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowRevision;
import dev.streamform.transforms.windows.WindowedAggregate;
import java.math.BigDecimal;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The Java guide's "Watermarks in your own TestStream" example: a punctuation at offset 2 moves W
 * to 11:00 (Beam's advanceWatermarkTo would not), so hour 10:00 has revision 1 with 10.00 + 20.00
 * and the refund of 10:30, behind W, is its correction (revision 2, 26.00), then the final.
 */
class TestStreamPunctuationTest {
  static final Schema SCHEMA =
      Schema.builder()
          .addInt64Field("merchant_id")
          .addDecimalField("amount")
          .addDateTimeField("paid_at")
          .build();
  static final Instant READ_AT = Instant.parse("2026-08-30T12:00:00Z");

  static Row payment(long merchant, String amount, String paidAt) {
    return Row.withSchema(SCHEMA)
        .addValues(merchant, new BigDecimal(amount), Instant.parse(paidAt))
        .build();
  }

  @Test
  void aPunctuationInTheStreamMovesTheWatermarkSoTheRefundIsACorrection() {
    Instant readAt = READ_AT;
    TestStream<SourceRecord> stream =
        TestStream.create(SourceRecordCoder.of(SCHEMA))
            .addElements(SourceRecord.of(0, 0, readAt, payment(7, "10.00", "2026-08-30T10:05:00Z")))
            .addElements(SourceRecord.of(0, 1, readAt, payment(7, "20.00", "2026-08-30T10:40:00Z")))
            .addElements(
                SourceRecord.punctuation(0, 2, readAt, Instant.parse("2026-08-30T11:00:00Z")))
            .addElements(SourceRecord.of(0, 3, readAt, payment(7, "-4.00", "2026-08-30T10:30:00Z")))
            .advanceWatermarkToInfinity();
    Pipeline p = SeedStreams.pipeline();
    PAssert.that(
            p.apply(stream)
                .apply(EventTimeExtraction.from("paid_at"))
                .events()
                .apply(
                    SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                        .keepingLateEvents()
                        .withContiguousOffsets())
                .events()
                .apply(
                    WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
                        .forModel("hourly_revenue")
                        .by("merchant_id")
                        .aggregating(Aggregation.sum("amount").as("revenue"))
                        .withAllowedLateness(Duration.standardHours(24)))
                .revisions()
                .apply(
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            (WindowRevision r) ->
                                r.windowStart()
                                    + " "
                                    + r.status()
                                    + " "
                                    + r.revision()
                                    + " "
                                    + r.values().getDecimal("revenue").toPlainString())))
        .containsInAnyOrder(
            "2026-08-30T10:00:00.000Z ON_TIME 1 30.00",
            "2026-08-30T10:00:00.000Z CORRECTED 2 26.00",
            "2026-08-30T10:00:00.000Z FINAL 2 26.00");
    p.run().waitUntilFinish();
  }
}
