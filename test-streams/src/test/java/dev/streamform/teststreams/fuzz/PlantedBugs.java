package dev.streamform.teststreams.fuzz;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.SourceRecord;
import java.math.BigDecimal;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.joda.time.Instant;

/**
 * Bugs planted around the real model, test code only — one per rule family of the contract: each
 * wraps the declared model's changelog ({@link DeclaredModel#changelog()}) or the delivery of a
 * fixture so that one rule is off by a millisecond or an item, and nothing in production code can
 * switch them on.
 */
final class PlantedBugs {
  private PlantedBugs() {}

  /**
   * The expiry timer frees a key's state once the runner's watermark reaches {@code latest +
   * retention − 1ms}, one millisecond before the edge, while the arrival-side decision ("had the
   * state expired when this event arrived?") stays exact: event time and watermark at arrival are
   * both seen 2 ms earlier, so their comparison is unchanged, but the timer is set 2 ms early — and
   * Beam fires a timer set for {@code t} once the watermark passes it, at {@code W = t + 1ms} (so
   * the real timer, set for the edge, frees the state at {@code edge + 1ms}, which the arrival
   * check makes harmless). It shows only when the runner's watermark stands at {@code edge − 1ms}
   * mid-stream, before the key's next event arrives at that watermark: an {@code INSERT} where the
   * contract says {@code UPDATE}.
   */
  static PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> earlyExpiryTimer(
      DeclaredModel model) {
    return earlyExpiryTimer(model, 1);
  }

  /**
   * The expiry timer frees a key's state once the runner's watermark reaches {@code latest +
   * retention − early} (millis); see {@link #earlyExpiryTimer(DeclaredModel)}. (On embedded Flink
   * not even 5 minutes early showed in fuzz: see the README, "What the tests can and cannot
   * catch".)
   */
  static PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> earlyExpiryTimer(
      DeclaredModel model, long early) {
    return shifted("EarlyExpiryTimer" + early, model, -(early + 1), true);
  }

  /**
   * The retention edge is exclusive ({@code W > latest + retention} instead of {@code >=}): every
   * event's time seen 1 ms later by the changelog, so each key's state survives {@code W = latest +
   * retention}, in the timer and on arrival alike.
   */
  static PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> exclusiveRetention(
      DeclaredModel model) {
    return shifted("ExclusiveRetentionEdge", model, 1, false);
  }

  /**
   * Lateness edge: an event exactly at its partition's watermark ({@code t == W_p}, on time by
   * docs/semantics.md §2) is treated as late and silently lost between the clock and the changelog.
   */
  static PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> lateAtTheWatermark(
      DeclaredModel model) {
    return new PTransform<>("LateAtTheWatermark") {
      @Override
      public PCollection<ChangelogRecord> expand(PCollection<TimedEvent> events) {
        return events
            .apply(
                "DropAtW",
                Filter.by(
                    (TimedEvent e) ->
                        e.watermarkAtArrival() == null
                            || !e.envelope().eventTime().equals(e.watermarkAtArrival())))
            .setCoder(events.getCoder())
            .apply(model.changelog());
      }
    };
  }

  /**
   * Aggregate arithmetic: a NULL {@code column} is added as 0 (SQL's SUM skips it; a key whose
   * values are all NULL has a NULL sum, not 0).
   */
  static PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> nullAsZero(
      DeclaredModel model, String column) {
    return new PTransform<>("NullAsZero") {
      @Override
      public PCollection<ChangelogRecord> expand(PCollection<TimedEvent> events) {
        return events
            .apply(
                "ZeroForNull",
                MapElements.into(TypeDescriptor.of(TimedEvent.class))
                    .via(
                        (TimedEvent e) -> {
                          Envelope v = e.envelope();
                          if (v.record().getValue(column) != null) {
                            return e;
                          }
                          Row zero =
                              Row.fromRow(v.record())
                                  .withFieldValue(column, BigDecimal.ZERO)
                                  .build();
                          return TimedEvent.of(
                              Envelope.event(
                                  SourceRecord.of(v.partition(), v.offset(), v.ingestTime(), zero),
                                  v.eventTime()),
                              e.watermarkAtArrival(),
                              e.keptLate(),
                              e.stamp());
                        }))
            .setCoder(events.getCoder())
            .apply(model.changelog());
      }
    };
  }

  /**
   * Watermark ordering within one event's handling (docs/semantics.md §3: judge, expire, apply,
   * <em>then</em> advance {@code W}): the event's own {@code t − delay} is taken into the watermark
   * before its key's expiry is decided, so an event that itself moves {@code W} past its key's edge
   * finds the state gone. (Reordering watermark items in the delivery plants nothing: the clock
   * restores each partition's offset order.)
   */
  static PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> watermarkBeforeEvent(
      DeclaredModel model) {
    long delay = model.source().watermark().toMillis();
    return new PTransform<>("WatermarkBeforeEvent") {
      @Override
      public PCollection<ChangelogRecord> expand(PCollection<TimedEvent> events) {
        return events
            .apply(
                "AdvanceFirst",
                MapElements.into(TypeDescriptor.of(TimedEvent.class))
                    .via(
                        (TimedEvent e) -> {
                          Instant own = e.envelope().eventTime().minus(delay);
                          Instant w = e.watermarkAtArrival();
                          return e.keptLate() || (w != null && !own.isAfter(w))
                              ? e
                              : TimedEvent.of(e.envelope(), own, e.keptLate(), e.stamp());
                        }))
            .setCoder(events.getCoder())
            .apply(model.changelog());
      }
    };
  }

  private static PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> shifted(
      String name, DeclaredModel model, long millis, boolean arrivalToo) {
    return new PTransform<>(name) {
      @Override
      public PCollection<ChangelogRecord> expand(PCollection<TimedEvent> events) {
        return events
            .apply(
                "Shift" + millis + "ms",
                MapElements.into(TypeDescriptor.of(TimedEvent.class))
                    .via(
                        (TimedEvent e) ->
                            TimedEvent.of(
                                shift(e.envelope(), millis),
                                arrivalToo && e.watermarkAtArrival() != null
                                    ? e.watermarkAtArrival().plus(millis)
                                    : e.watermarkAtArrival(),
                                e.keptLate(),
                                e.stamp())))
            .setCoder(events.getCoder())
            .apply(model.changelog());
      }
    };
  }

  private static Envelope shift(Envelope e, long millis) {
    Instant t = e.eventTime().plus(millis);
    return Envelope.event(
        SourceRecord.of(e.partition(), e.offset(), e.ingestTime(), e.record()), t);
  }
}
