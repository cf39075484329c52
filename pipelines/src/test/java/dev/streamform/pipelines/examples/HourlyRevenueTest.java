package dev.streamform.pipelines.examples;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.windows.WindowedResult;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.errorhandling.ErrorHandler.BadRecordErrorHandler;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * {@link HourlyRevenue} on its sample, every record worked out by hand. W is partition 0's
 * watermark (the latest {@code paid_at} minus 5m); an hour {@code [s, e)} takes a payment on time
 * while {@code W < e}, as a correction while {@code e <= W < e + 24h}, and refuses it after that.
 *
 * <pre>
 * offset  payment                    W at arrival  judged                                W after
 * 0       7  10.00 paid 08-30 10:00  undefined     on time, hour 10:00                   09:55
 * 1       7  20.00 paid 10:30        09:55         on time, hour 10:00                   10:25
 * 2       8   5.00 paid 10:45        10:25         on time, hour 10:00                   10:40
 * 3       7   7.00 paid 11:10        10:40         on time, hour 11:00                   11:05
 *         W 11:05 passes 11:00: hour 10:00 revision 1 — merchant 7 30.00 (2 orders), 8 5.00 (1)
 * 4       7  -4.00 paid 10:50        11:05         correction of hour 10:00: merchant 7
 *                                                  revision 2 = 30.00 - 4.00 = 26.00 (3 orders)
 * 5       7   1.00 paid 08-31 11:10  11:05         on time, hour 08-31 11:00             08-31 11:05
 *         W passes 08-30 12:00: hour 11:00 revision 1 — merchant 7 7.00 (1);
 *         W passes 08-31 11:00 = 10:00's end + 24h: hour 10:00 final — 7 26.00 (r2), 8 5.00 (r1)
 * 6       7  -1.00 paid 08-30 10:20  08-31 11:05   too late for hour 10:00 (W >= its end + 24h)
 * end of input, W to the end of time: hour 08-30 11:00 final — 7 7.00 (r1);
 *         hour 08-31 11:00 revision 1 and final — 7 1.00 (r1)
 * </pre>
 */
class HourlyRevenueTest {
  private static final SourceRecordCoder CODER = SourceRecordCoder.of(HourlyRevenue.PAYMENTS);
  private static final List<String> RECORDS =
      List.of(
          "merchant 7, hour 2026-08-30T10:00:00Z: on_time revision 1, revenue 30.00, orders 2",
          "merchant 7, hour 2026-08-30T10:00:00Z: corrected revision 2, revenue 26.00, orders 3",
          "merchant 7, hour 2026-08-30T10:00:00Z: final revision 2, revenue 26.00, orders 3",
          "merchant 8, hour 2026-08-30T10:00:00Z: on_time revision 1, revenue 5.00, orders 1",
          "merchant 8, hour 2026-08-30T10:00:00Z: final revision 1, revenue 5.00, orders 1",
          "merchant 7, hour 2026-08-30T11:00:00Z: on_time revision 1, revenue 7.00, orders 1",
          "merchant 7, hour 2026-08-30T11:00:00Z: final revision 1, revenue 7.00, orders 1",
          "merchant 7, hour 2026-08-31T11:00:00Z: on_time revision 1, revenue 1.00, orders 1",
          "merchant 7, hour 2026-08-31T11:00:00Z: final revision 1, revenue 1.00, orders 1");
  private static final List<String> TOO_LATE =
      List.of(
          "merchant 7, hour 2026-08-30T10:00:00Z: too late, -1.00 paid at 2026-08-30T10:20:00Z"
              + " arrived at watermark 2026-08-31T11:05:00Z");

  private static Pipeline pipeline() {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    return Pipeline.create(options);
  }

  private static void expect(WindowedResult hourly, List<String> records, List<String> tooLate) {
    PAssert.that(
            hourly
                .revisions()
                .apply(
                    "Revisions",
                    MapElements.into(TypeDescriptors.strings()).via(HourlyRevenue::describe)))
        .containsInAnyOrder(records);
    PAssert.that(
            hourly
                .tooLate()
                .apply(
                    "TooLate",
                    MapElements.into(TypeDescriptors.strings()).via(HourlyRevenue::describe)))
        .containsInAnyOrder(tooLate);
  }

  @Test
  void revisionsACorrectionFinalsAndATooLateRefundFromAStreamOneElementPerBatch() {
    TestStream.Builder<SourceRecord> stream = TestStream.create(CODER);
    for (SourceRecord payment : HourlyRevenue.samplePayments()) {
      stream = stream.addElements(payment); // one payment per batch, offsets 0, 1, 2, ...
    }
    Pipeline p = pipeline();
    expect(
        // A TestStream is a bounded log without gaps: the Flink runner at parallelism above one
        // delivers its items out of order, so the clock restores offset order (ADR 0126).
        p.apply(stream.advanceWatermarkToInfinity())
            .apply(HourlyRevenue.readingPartitions(0).withContiguousOffsets()),
        RECORDS,
        TOO_LATE);
    p.run().waitUntilFinish();
  }

  @Test
  void mainsInputFromCreateOfInAnyOrderGivesTheSameRecords() {
    List<SourceRecord> shuffled = new ArrayList<>(HourlyRevenue.samplePayments());
    Collections.shuffle(shuffled, new Random(3));
    Pipeline p = pipeline();
    expect(
        p.apply(Create.of(shuffled).withCoder(CODER))
            .apply(HourlyRevenue.readingPartitions(0).withContiguousOffsets()),
        RECORDS,
        TOO_LATE);
    p.run().waitUntilFinish();
  }

  /** 10.00 at 10:00 on time; a payment without paid_at goes to the handler, never into an hour. */
  @Test
  void aPaymentWithoutPaidAtGoesToTheBadRecordHandler() {
    Pipeline p = pipeline();
    BadRecordErrorHandler<PCollection<Long>> bad =
        p.registerBadRecordErrorHandler(Count.globally());
    WindowedResult hourly =
        p.apply(
                Create.of(payment(0, "10.00", "2026-08-30T10:00:00Z"), payment(1, "3.00", null))
                    .withCoder(CODER))
            .apply(
                HourlyRevenue.readingPartitions(0)
                    .withContiguousOffsets()
                    .withBadRecordErrorHandler(bad));
    bad.close();
    expect(
        hourly,
        List.of(
            "merchant 7, hour 2026-08-30T10:00:00Z: on_time revision 1, revenue 10.00, orders 1",
            "merchant 7, hour 2026-08-30T10:00:00Z: final revision 1, revenue 10.00, orders 1"),
        List.of());
    PAssert.thatSingleton(bad.getOutput()).isEqualTo(1L);
    p.run().waitUntilFinish();
  }

  @Test
  void withoutAHandlerAPaymentWithoutPaidAtFailsThePipeline() {
    Pipeline p = pipeline();
    p.apply(Create.of(payment(0, "3.00", null)).withCoder(CODER))
        .apply(HourlyRevenue.readingPartitions(0).withContiguousOffsets());
    Exception e = assertThrows(Exception.class, () -> p.run().waitUntilFinish());
    assertThat(
        String.valueOf(e.getMessage()), containsString("a payment without a usable paid_at"));
  }

  private static SourceRecord payment(long offset, String amount, String paidAt) {
    Row row =
        Row.withSchema(HourlyRevenue.PAYMENTS)
            .addValues(7L, new BigDecimal(amount), paidAt)
            .build();
    return SourceRecord.of(0, offset, new Instant(0), row);
  }
}
