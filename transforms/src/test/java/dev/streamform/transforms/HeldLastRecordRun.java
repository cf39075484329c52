package dev.streamform.transforms;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowedAggregate;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * A keyed stage (by default the hourly windows, 24 h of lateness) on the DirectRunner, started
 * without blocking, over a {@code TestStream} whose last record is held in flight before the clock
 * until {@link #release}. A record in flight holds the watermark of every stage after it at its
 * timestamp, so the windows cannot be finalized by the end of the input meanwhile: a test reads the
 * metrics mid-stream, whatever the runner's threads do. (Holding a revision downstream of the
 * windows did not: the input went on to its end behind it, and the read sometimes saw 0.) Used by
 * {@link WindowsLiveTest}, {@link WindowEdgeReachedTest} and {@link KeyedEdgesReachedTest}.
 */
final class HeldLastRecordRun {
  /** The open holds, by run: a DoFn is serialized, so it names its latch instead of holding it. */
  private static final Map<String, CountDownLatch> HOLDS = new ConcurrentHashMap<>();

  private final String id;
  private final PipelineResult result;

  private HeldLastRecordRun(String id, PipelineResult result) {
    this.id = id;
    this.result = result;
  }

  /**
   * Runs {@code stream}'s items, the runner's watermark advanced to {@code runnerWatermark} before
   * the last one, which is held until {@link #release}.
   */
  static HeldLastRecordRun start(SeedStreams stream, Instant runnerWatermark) {
    return start(
        stream,
        runnerWatermark,
        events ->
            events
                .apply(
                    "Windows",
                    WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
                        .forModel("hourly_revenue")
                        .by("customer_id")
                        .aggregating(Aggregation.sum("amount").as("revenue"))
                        .withAllowedLateness(Duration.standardHours(24)))
                .revisions());
  }

  /**
   * Runs {@code stream}'s items through the clock into {@code stage} (which applies the keyed stage
   * under test to the clock's events), the runner's watermark advanced to {@code runnerWatermark}
   * before the last item, which is held until {@link #release}.
   */
  static HeldLastRecordRun start(
      SeedStreams stream, Instant runnerWatermark, Consumer<PCollection<TimedEvent>> stage) {
    String id = UUID.randomUUID().toString();
    HOLDS.put(id, new CountDownLatch(1));
    List<SourceRecord> items = stream.items();
    SourceRecord last = items.get(items.size() - 1);
    TestStream.Builder<SourceRecord> b =
        TestStream.create(SourceRecordCoder.of(SeedStreams.ORDERS));
    for (SourceRecord r : items.subList(0, items.size() - 1)) {
      b = b.addElements(TimestampedValue.of(r, SeedStreams.elementTimestamp(r)));
    }
    DirectOptions options = PipelineOptionsFactory.create().as(DirectOptions.class);
    options.setRunner(DirectRunner.class);
    options.setBlockOnRun(false);
    Pipeline p = Pipeline.create(options);
    PCollection<TimedEvent> events =
        p.apply(
                b.advanceWatermarkTo(runnerWatermark)
                    .addElements(TimestampedValue.of(last, SeedStreams.elementTimestamp(last)))
                    .advanceWatermarkToInfinity())
            .apply("HoldLastRecord", ParDo.of(new Hold(id, last.offset())))
            .setCoder(SourceRecordCoder.of(SeedStreams.ORDERS))
            .apply("Extract", EventTimeExtraction.from("ordered_at"))
            .events()
            .apply(
                "Clock",
                SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                    .keepingLateEvents()
                    .withContiguousOffsets()
                    .withPartitions(0))
            .events();
    stage.accept(events);
    return new HeldLastRecordRun(id, p.run());
  }

  /** A Streamform counter's value so far. */
  long counter(String name) {
    return Scenario.counter(result, name);
  }

  /** Lets the held record go. */
  void release() {
    HOLDS.get(id).countDown();
  }

  /** Lets the held record go and waits for the end of the input. */
  void finish() {
    release();
    result.waitUntilFinish();
    HOLDS.remove(id);
  }

  /** Holds the record at {@code offset} until its run is released (60 s at most). */
  private static final class Hold extends DoFn<SourceRecord, SourceRecord> {
    private final String id;
    private final long offset;

    Hold(String id, long offset) {
      this.id = id;
      this.offset = offset;
    }

    @ProcessElement
    public void process(@Element SourceRecord r, OutputReceiver<SourceRecord> out)
        throws InterruptedException {
      if (r.offset() == offset) {
        HOLDS.get(id).await(60, TimeUnit.SECONDS);
      }
      out.output(r);
    }
  }
}
