package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowedAggregate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.values.TimestampedValue;
import org.awaitility.Awaitility;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * {@code windows_live} counts the windows that hold state, read while the stream is held between
 * two items — above zero mid-stream, not only 0 at its end (a counter that never moved would pass
 * that).
 */
class WindowsLiveTest {
  /** Opened by the test once it has read the metrics mid-stream. */
  private static final CountDownLatch READ = new CountDownLatch(1);

  /**
   * Holds the stream's last record (offset 3, at 11:20) until the test has read the metrics. A
   * record in flight holds the watermark of every stage after it at its timestamp, so the windows,
   * on time once the runner's watermark passed 11:00, cannot be finalized by the end of the input
   * meanwhile: the read happens mid-stream, whatever the runner's threads do. (Holding a revision
   * downstream of the windows did not: the input went on to its end behind it, and the read
   * sometimes saw 0.)
   */
  private static final class HoldLastRecord extends DoFn<SourceRecord, SourceRecord> {
    @ProcessElement
    public void process(@Element SourceRecord r, OutputReceiver<SourceRecord> out)
        throws InterruptedException {
      if (r.offset() == 3) {
        READ.await(60, TimeUnit.SECONDS);
      }
      out.output(r);
    }
  }

  @Test
  void windowsLiveIsTheOpenWindowsMidStreamAndZeroOnceFinal() {
    // two keys' [10:00, 11:00) with 24h of lateness: revision 1 at W 11:00 keeps both open
    SeedStreams s =
        new SeedStreams()
            .event(7, "1", "10:05")
            .event(8, "2", "10:10")
            .watermark(0, Instant.parse("2026-08-30T11:00:00Z"))
            .event(7, "3", "11:20");
    DirectOptions options = PipelineOptionsFactory.create().as(DirectOptions.class);
    options.setRunner(DirectRunner.class);
    options.setBlockOnRun(false);
    Pipeline p = Pipeline.create(options);
    List<SourceRecord> items = s.items();
    TestStream.Builder<SourceRecord> b =
        TestStream.create(SourceRecordCoder.of(SeedStreams.ORDERS));
    for (SourceRecord r : items.subList(0, 3)) {
      b = b.addElements(TimestampedValue.of(r, SeedStreams.elementTimestamp(r)));
    }
    TestStream<SourceRecord> stream =
        b.advanceWatermarkTo(Instant.parse("2026-08-30T11:00:00Z")) // the runner's, past W 11:00
            .addElements(
                TimestampedValue.of(items.get(3), SeedStreams.elementTimestamp(items.get(3))))
            .advanceWatermarkToInfinity();
    p.apply(stream)
        .apply("HoldLastRecord", ParDo.of(new HoldLastRecord()))
        .setCoder(SourceRecordCoder.of(SeedStreams.ORDERS))
        .apply("Extract", EventTimeExtraction.from("ordered_at"))
        .events()
        .apply(
            "Clock",
            SourceClock.forBoundedOutOfOrderness(org.joda.time.Duration.standardMinutes(5))
                .keepingLateEvents()
                .withContiguousOffsets()
                .withPartitions(0))
        .events()
        .apply(
            "Windows",
            WindowedAggregate.of(FixedWindows.of(org.joda.time.Duration.standardHours(1)))
                .forModel("hourly_revenue")
                .by("customer_id")
                .aggregating(Aggregation.sum("amount").as("revenue"))
                .withAllowedLateness(org.joda.time.Duration.standardHours(24)))
        .revisions();

    PipelineResult result = p.run();
    try {
      // revision 1 of both windows [10:00, 11:00) at W 11:00, the last record held: both open
      Awaitility.await("windows_live while the stream's last record is held")
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> assertEquals(2, Scenario.counter(result, StreamformMetrics.WINDOWS_LIVE)));
    } finally {
      READ.countDown();
    }
    result.waitUntilFinish();
    // the end of input finalized all three windows (7 and 8 at 10:00, 7 at 11:00)
    assertEquals(3, Scenario.counter(result, StreamformMetrics.WINDOWS_FINALIZED));
    assertEquals(0, Scenario.counter(result, StreamformMetrics.WINDOWS_LIVE));
  }
}
