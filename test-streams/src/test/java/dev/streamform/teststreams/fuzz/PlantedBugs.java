package dev.streamform.teststreams.fuzz;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.SourceRecord;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.joda.time.Instant;

/**
 * Bugs planted in front of the real changelog, test code only: each wraps the declared model's
 * changelog ({@link DeclaredModel#changelog()}) so that one rule of the contract is off by a
 * millisecond, and nothing in production code can switch them on.
 */
final class PlantedBugs {
  private PlantedBugs() {}

  /**
   * The expiry timer frees a key's state once the runner's watermark reaches {@code latest +
   * retention − 1ms}, one millisecond before the edge, while the arrival-side decision ("had the
   * state expired when this event arrived?") stays exact: event time and watermark at arrival are
   * both seen 2 ms earlier, so their comparison is unchanged, but the timer is set 2 ms early —
   * and Beam fires a timer set for {@code t} once the watermark passes it, at {@code W = t + 1ms}
   * (so the real timer, set for the edge, frees the state at {@code edge + 1ms}, which the arrival
   * check makes harmless). It shows only when the runner's watermark stands at {@code edge − 1ms}
   * mid-stream, before the key's next event arrives at that watermark: an {@code INSERT} where
   * the contract says {@code UPDATE}.
   */
  static PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> earlyExpiryTimer(
      DeclaredModel model) {
    return shifted("EarlyExpiryTimer", model, -2, true);
  }

  /**
   * The retention edge is exclusive ({@code W > latest + retention} instead of {@code >=}): every
   * event's time seen 1 ms later by the changelog, so each key's state survives {@code W = latest
   * + retention}, in the timer and on arrival alike.
   */
  static PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> exclusiveRetention(
      DeclaredModel model) {
    return shifted("ExclusiveRetentionEdge", model, 1, false);
  }

  private static PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> shifted(
      String name, DeclaredModel model, long millis, boolean arrivalToo) {
    return new PTransform<>(name) {
      @Override
      public PCollection<ChangelogRecord> expand(PCollection<TimedEvent> events) {
        return events
            .apply("Shift" + millis + "ms", MapElements.into(TypeDescriptor.of(TimedEvent.class))
                .via((TimedEvent e) -> TimedEvent.of(shift(e.envelope(), millis),
                    arrivalToo && e.watermarkAtArrival() != null
                        ? e.watermarkAtArrival().plus(millis)
                        : e.watermarkAtArrival(),
                    e.keptLate(), e.stamp())))
            .setCoder(events.getCoder())
            .apply(model.changelog());
      }
    };
  }

  private static Envelope shift(Envelope e, long millis) {
    Instant t = e.eventTime().plus(millis);
    return Envelope.event(SourceRecord.of(e.partition(), e.offset(), e.ingestTime(), e.record()), t);
  }
}
