package dev.streamform.teststreams.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.ClockCoders;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.EnvelopeCoder;
import dev.streamform.transforms.envelope.SourceRecord;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The changelog's expiry timer on the Flink runner: a timer that frees a key's state 1 ms before
 * its edge ({@link PlantedBugs#earlyExpiryTimer}) is caught on Flink too, not only on the
 * DirectRunner.
 *
 * <p>Why the stage is fed directly and not through the clock and a fuzzed fixture: Beam's Flink
 * {@code DoFnOperator} does not emit a new output watermark while a bundle is open (a timer that
 * fired, or an element, opens one), so a watermark reaches the next stage only after the bundle
 * closes — by count ({@code maxBundleSize}) or after {@code maxBundleTimeMills} of processing time.
 * Behind the clock (a stateful stage whose hold timers fire on each watermark), the watermark
 * {@code edge − 1ms} therefore reaches the changelog after the key's next event, which is then
 * buffered and protects the state: the planted bug did not show in 40 fuzzed traces with the
 * default bundles, and in 1 of 3 runs with {@code maxBundleSize=1} (a race). Fed straight from a
 * {@code TestStream} at parallelism 1 with {@code maxBundleSize=1}, every bundle closes after its
 * element, the watermark arrives before the next event, and the timer's edge is exercised on the
 * runner — deterministically (both runs below, three times in a row when this was written).
 */
class EarlyTimerOnFlinkTest {
  private static final ConcurrentLinkedQueue<String> OUT = new ConcurrentLinkedQueue<>();
  private static final DeclaredModel MODEL =
      FuzzProjects.model(FuzzProjects.seed("retention"), "customer_metrics"); // retention 10m

  @Test
  void anExpiryTimerOneMillisecondEarlyIsCaughtOnFlink() {
    // 1@10:00, then W = 10:09:59.999: 1 ms short of 1's edge (10:10) the state is alive (§3), so
    // 1@10:09:59.999 arriving at that watermark updates it
    assertEquals(List.of("INSERT 0-0", "UPDATE 0-1"), run(MODEL.changelog()), "the real changelog");
    assertEquals(
        List.of("INSERT 0-0", "INSERT 0-1"),
        run(PlantedBugs.earlyExpiryTimer(MODEL)),
        "the planted early timer frees the state before the event arrives");
  }

  private static synchronized List<String> run(
      PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> changelog) {
    OUT.clear();
    ClockCoders.TimedEventCoder coder =
        ClockCoders.TimedEventCoder.of(EnvelopeCoder.of(MODEL.recordSchema()));
    Instant first = Instant.parse("2026-08-30T10:00:00Z");
    Instant edgeMinus1 = Instant.parse("2026-08-30T10:09:59.999Z");
    TestStream<TimedEvent> stream =
        TestStream.create(coder)
            .addElements(timed(0, "10.50", first, first.minus(300_000)))
            .advanceWatermarkTo(edgeMinus1)
            .addElements(timed(1, "2.00", edgeMinus1, edgeMinus1))
            .advanceWatermarkToInfinity();
    Pipeline p =
        Pipeline.create(
            RunnerChoice.flinkLocal(1).withBeamOptions(Map.of("maxBundleSize", "1")).options());
    p.apply(stream).apply(changelog).apply(ParDo.of(new Collect()));
    p.run().waitUntilFinish();
    return List.copyOf(OUT);
  }

  /** An event of customer 1 at {@code t}, stamped and arriving at watermark {@code w}. */
  private static TimestampedValue<TimedEvent> timed(
      long offset, String amount, Instant t, Instant w) {
    Row row =
        Row.withSchema(MODEL.recordSchema())
            .withFieldValue("customer_id", 1L)
            .withFieldValue("amount", new BigDecimal(amount))
            .withFieldValue("ordered_at", t)
            .build();
    SourceRecord record = SourceRecord.of(0, offset, t, row);
    return TimestampedValue.of(TimedEvent.of(Envelope.event(record, t), w, false, w), w);
  }

  /** Keeps each record's op and event in arrival order (one key, parallelism 1). */
  private static final class Collect extends DoFn<ChangelogRecord, Void> {
    @ProcessElement
    public void process(@Element ChangelogRecord r) {
      OUT.add(r.op() + " " + r.eventId());
    }
  }
}
