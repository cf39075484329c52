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
 * A window's edge is reached when {@code W >= edge} (docs/semantics.md §6.10): a watermark that
 * stops exactly at a window's end publishes its revision 1 there and then, without a later record.
 *
 * <p>On Kafka the source never ends, so a watermark item at 11:00 as the last record of a quiet
 * topic left the clock's output watermark at exactly 11:00. The windows' tick was set at the edge
 * itself, and an event-time timer fires only once the watermark is past its time, so revision 1
 * waited for the next record (the audit of the revision sink: "every record's effect waits for the
 * next one"). Here the stream's next record is held (as in {@link WindowsLiveTest}) while the
 * runner's watermark is already past 11:00, so only the clock's hold at {@code W_p} = 11:00 keeps
 * the windows' watermark: revision 1 of both windows must come before that record is let go.
 */
class WindowEdgeReachedTest {
  /** Opened by the test once it has seen the revisions, or given up on them. */
  private static final CountDownLatch SEEN = new CountDownLatch(1);

  /** Holds the stream's last record (offset 4) until the test has looked. */
  private static final class HoldLastRecord extends DoFn<SourceRecord, SourceRecord> {
    @ProcessElement
    public void process(@Element SourceRecord r, OutputReceiver<SourceRecord> out)
        throws InterruptedException {
      if (r.offset() == 4) {
        SEEN.await(60, TimeUnit.SECONDS);
      }
      out.output(r);
    }
  }

  @Test
  void aWatermarkExactlyAtAWindowsEndPublishesItsRevisionOneWithoutALaterRecord() {
    SeedStreams s =
        new SeedStreams()
            .event(7, "120", "10:05")
            .event(7, "80", "10:40")
            .event(8, "45.50", "10:50")
            .watermark(0, Instant.parse("2026-08-30T11:00:00Z"))
            .event(7, "1", "11:40");
    DirectOptions options = PipelineOptionsFactory.create().as(DirectOptions.class);
    options.setRunner(DirectRunner.class);
    options.setBlockOnRun(false);
    Pipeline p = Pipeline.create(options);
    List<SourceRecord> items = s.items();
    TestStream.Builder<SourceRecord> b =
        TestStream.create(SourceRecordCoder.of(SeedStreams.ORDERS));
    for (SourceRecord r : items.subList(0, 4)) {
      b = b.addElements(TimestampedValue.of(r, SeedStreams.elementTimestamp(r)));
    }
    TestStream<SourceRecord> stream =
        // the runner's watermark goes past 11:00; the held record (11:40) keeps it at 11:30 after
        b.advanceWatermarkTo(Instant.parse("2026-08-30T11:30:00Z"))
            .addElements(
                TimestampedValue.of(items.get(4), SeedStreams.elementTimestamp(items.get(4))))
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
      // W_p = 11:00 = the windows' end: revision 1 of 7's and 8's [10:00, 11:00) is due now
      Awaitility.await("revision 1 of both windows at W 11:00, the next record held")
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> assertEquals(2, Scenario.counter(result, StreamformMetrics.REVISIONS)));
    } finally {
      SEEN.countDown();
    }
    result.waitUntilFinish();
    // the end of input: 7's [11:00, 12:00) too, and all three final
    assertEquals(3, Scenario.counter(result, StreamformMetrics.REVISIONS));
    assertEquals(3, Scenario.counter(result, StreamformMetrics.WINDOWS_FINALIZED));
  }
}
