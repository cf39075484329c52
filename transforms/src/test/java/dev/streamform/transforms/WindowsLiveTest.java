package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowRevision;
import dev.streamform.transforms.windows.WindowedAggregate;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
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

  /** Holds the pipeline at its first on-time revision until the test has read the metrics. */
  private static final class HoldAtRevision1 extends DoFn<WindowRevision, Void> {
    @ProcessElement
    public void process(@Element WindowRevision r) throws InterruptedException {
      if (r.status() == WindowRevision.Status.ON_TIME && READ.getCount() > 0) {
        READ.await(60, TimeUnit.SECONDS);
      }
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
    p.apply(s.testStream())
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
        .revisions()
        .apply("Hold", ParDo.of(new HoldAtRevision1()));

    PipelineResult result = p.run();
    try {
      // held at the first revision 1: both windows [10:00, 11:00) hold state
      Awaitility.await("windows_live while the stream is held after revision 1")
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
