package dev.streamform.transforms.changelog;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

import com.google.auto.value.AutoValue;
import dev.streamform.transforms.BadRecordCoder;
import dev.streamform.transforms.PlantedDefect;
import dev.streamform.transforms.RowCoders;
import dev.streamform.transforms.StreamformMetrics;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.clock.BadEvents;
import dev.streamform.transforms.clock.ClockCoders;
import dev.streamform.transforms.clock.KeyedEngine;
import dev.streamform.transforms.clock.LogOrder;
import dev.streamform.transforms.clock.StageTimers;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.Envelope;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerMap;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.transforms.errorhandling.ErrorHandler;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * A keyed aggregate that emits a changelog: each event applied to its key emits one {@link
 * ChangelogRecord} — {@code INSERT} the first time the key has state, {@code UPDATE} after that.
 *
 * <p>Retention (optional, in event time): with {@code latest(k)} the largest event time applied to
 * key {@code k} (an out-of-order event extends a key's life, never shortens it), the key's state is
 * gone once the watermark {@code W >= latest(k) + retention} (inclusive). Expiry is silent: it
 * emits and retracts nothing, and the key's next event starts from the initial value and emits
 * {@code INSERT}. Whether state had expired when an event arrives is decided from the event's
 * {@link TimedEvent#watermarkAtArrival()} — a function of the source log, so identical on every
 * runner — and the state itself is freed by event-time timers, never by wall-clock TTL.
 *
 * <p><b>Order.</b> Events are applied to a key in the order of its partition's log, however the
 * runner delivers them between the clock and this stage (Beam promises no order there): an event is
 * buffered and applied once this stage's input watermark has passed the stamp the clock gave it
 * (see {@link LogOrder}). That is the hand-over's latency: a changelog record appears once the
 * source's watermark (the minimum over its partitions) has moved past the watermark its event
 * arrived at — for a bounded input, at the latest at its end. A source without event time ({@link
 * dev.streamform.transforms.clock.SourceClock#inArrivalOrder()}) is applied in the order its clock
 * passed the items on — offset order with {@code withContiguousOffsets()}, arrival order without
 * (offset order for KafkaIO) — once the runner's watermark passes their arrival.
 *
 * <p><b>Element timestamps.</b> Each record is timestamped with its causing event's event time
 * ({@link ChangelogRecord#eventTime()}), like the late output of the clock ({@link
 * dev.streamform.transforms.clock.LateEvent}), so a plain {@code Window.into(...)} after the
 * changelog puts each record in its event's window. A late event kept by {@code
 * keepingLateEvents()} produces a record whose timestamp is behind the watermark: it is late for a
 * downstream window whose allowed lateness it exceeds.
 *
 * <p><b>Input.</b> The {@code events()} of a {@link dev.streamform.transforms.clock.SourceClock},
 * encoded with the coder the clock gives them. Steps in between (a {@code Filter}, a {@code
 * MapElements} that rewrites records) are fine as long as they keep each event's element timestamp
 * (it holds the watermark at or before the event's stamp) and either keep that coder ({@code
 * .setCoder(clocked.events().getCoder())}) or the changelog is told the records' schema with {@link
 * #withRecordSchema(Schema)}, which then accepts any coder of {@link TimedEvent} (a {@code
 * SerializableCoder}, say).
 *
 * <p>Validation: key columns, aggregates and their names are checked when the transform is built
 * (every output column needs its own name); the columns against the records' schema in {@code
 * expand}, each with a message that names this transform and the fix.
 *
 * <pre>{@code
 * PCollection<ChangelogRecord> changes = clocked.events().apply(
 *     KeyedChangelog.by("customer_id")
 *         .aggregating(Aggregation.sum("amount").as("total_spend"))
 *         .withRetention(Duration.standardMinutes(10)));
 * }</pre>
 */
@AutoValue
public abstract class KeyedChangelog
    extends PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> {

  public abstract List<String> keyColumns();

  public abstract List<Aggregation> aggregations();

  public abstract @Nullable Duration retention();

  /**
   * True when events are applied as they arrive rather than in log order (see {@link
   * #appliedOnArrival()}).
   */
  public abstract boolean arrivalOrder();

  /** The records' schema given by {@link #withRecordSchema}; null: read from the input's coder. */
  public abstract @Nullable Schema recordSchema();

  /** Where events this changelog cannot apply go; null: such an event fails the pipeline. */
  public abstract @Nullable ErrorHandler<BadRecord, ?> badRecordErrorHandler();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setKeyColumns(List<String> keys);

    abstract Builder setAggregations(List<Aggregation> aggregations);

    abstract Builder setRetention(@Nullable Duration retention);

    abstract Builder setArrivalOrder(boolean arrivalOrder);

    abstract Builder setRecordSchema(@Nullable Schema schema);

    abstract Builder setBadRecordErrorHandler(@Nullable ErrorHandler<BadRecord, ?> handler);

    abstract KeyedChangelog build();
  }

  /**
   * A changelog keyed by {@code keyColumns}, with no aggregates and unbounded retention yet.
   *
   * @throws IllegalArgumentException if no key column is given, one is null or blank, or one is
   *     named twice
   */
  public static KeyedChangelog by(String... keyColumns) {
    return by(keyColumns == null ? null : Arrays.asList(keyColumns));
  }

  /** See {@link #by(String...)}. */
  public static KeyedChangelog by(List<String> keyColumns) {
    List<String> keys = OutputColumns.keyColumns("KeyedChangelog.by", "a changelog", keyColumns);
    return new AutoValue_KeyedChangelog.Builder()
        .setKeyColumns(keys)
        .setAggregations(List.of())
        .setRetention(null)
        .setArrivalOrder(false)
        .setRecordSchema(null)
        .setBadRecordErrorHandler(null)
        .build();
  }

  /**
   * This changelog with {@code aggregations} added, in output order.
   *
   * @throws IllegalArgumentException if an aggregate is null, two aggregates share an output name,
   *     or an aggregate is named like a key column (every output column needs its own name)
   */
  public KeyedChangelog aggregating(Aggregation... aggregations) {
    return aggregating(aggregations == null ? null : Arrays.asList(aggregations));
  }

  /** See {@link #aggregating(Aggregation...)}. */
  public KeyedChangelog aggregating(List<Aggregation> more) {
    return toBuilder()
        .setAggregations(
            OutputColumns.aggregates(
                describe() + ".aggregating", keyColumns(), List.of(), aggregations(), more))
        .build();
  }

  /**
   * Key state is dropped once {@code W >= latest(k) + retention}, {@code W} the watermark of the
   * event's partition at its arrival. Only a clock in event time ({@code
   * SourceClock.forBoundedOutOfOrderness}) has one: after {@code SourceClock.inArrivalOrder()} no
   * key ever expires. This transform cannot see how its clock was built, so it does not refuse that
   * (docs/decisions/0110); a declared model with {@code retention} on a source without {@code
   * event_time} is refused by {@code streamform check}.
   *
   * @throws IllegalArgumentException if {@code retention} is null, zero or negative
   */
  public KeyedChangelog withRetention(Duration retention) {
    if (retention == null || !retention.isLongerThan(Duration.ZERO)) {
      throw new IllegalArgumentException(
          "KeyedChangelog.by("
              + describe(keyColumns())
              + ").withRetention("
              + retention
              + "):"
              + " retention must be a positive duration, e.g. Duration.standardDays(30); leave it"
              + " out to keep state forever");
    }
    Times.checkAtMostMax(
        "KeyedChangelog.by(" + describe(keyColumns()) + ").withRetention", retention);
    return toBuilder().setRetention(retention).build();
  }

  /**
   * Applies each event as it reaches this stage instead of in log order: the lowest latency (no
   * wait for the watermark), and correct only where the runner keeps each key's order from the
   * clock to this stage — the Flink runner does (one channel per sender, first in first out), the
   * DirectRunner does not. The default, log order ({@link
   * dev.streamform.transforms.clock.LogOrder}), is right on every runner.
   */
  public KeyedChangelog appliedOnArrival() {
    return toBuilder().setArrivalOrder(true).build();
  }

  /**
   * An event this changelog cannot apply — one whose value would take an int64 {@code SUM} (or the
   * sum behind an {@code AVG}) outside int64 — goes to {@code handler} (Beam's bad-record
   * convention: {@code pipeline.registerBadRecordErrorHandler(sink)}) with a reason naming the
   * column, and is not applied: its key's state is as before it, and it emits no record. Without a
   * handler such an event fails the pipeline, naming its partition and offset.
   */
  public KeyedChangelog withBadRecordErrorHandler(ErrorHandler<BadRecord, ?> handler) {
    checkArgument(
        handler != null,
        "%s.withBadRecordErrorHandler(null): pass the handler that"
            + " pipeline.registerBadRecordErrorHandler(..) returned",
        describe());
    return toBuilder().setBadRecordErrorHandler(handler).build();
  }

  /**
   * Declares the schema of the events' records, so the changelog accepts its input with any coder
   * of {@link TimedEvent} — for a step between the clock and the changelog that does not keep the
   * clock's coder (a {@code MapElements}, which infers a {@code SerializableCoder}). The changelog
   * re-encodes the events with the clock's coder for this schema from its first step on. When the
   * input does carry the clock's coder, its schema must be this one.
   *
   * @throws IllegalArgumentException if {@code recordSchema} is null
   */
  public KeyedChangelog withRecordSchema(Schema recordSchema) {
    if (recordSchema == null) {
      throw new IllegalArgumentException(
          "KeyedChangelog.by("
              + describe(keyColumns())
              + ").withRecordSchema(null): give the"
              + " schema of the records (the one SourceRecordCoder.of(schema) encodes)");
    }
    return toBuilder().setRecordSchema(recordSchema).build();
  }

  @Override
  public PCollection<ChangelogRecord> expand(PCollection<TimedEvent> input) {
    ClockCoders.TimedEventCoder coder =
        ClockCoders.eventCoder(input, describe(), "the changelog", recordSchema());
    Schema records = coder.envelopeCoder().recordSchema();
    Schema.Builder keySchema = Schema.builder();
    for (String k : keyColumns()) {
      checkArgument(
          records.hasField(k),
          "%s: key column `%s` is not a field of the records (fields: %s)",
          this.describe(),
          k,
          records.getFieldNames());
      keySchema.addField(records.getField(k));
    }
    Accumulators accumulators;
    try {
      accumulators = new Accumulators(records, aggregations());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(describe() + ": " + e.getMessage(), e);
    }
    Schema keys = keySchema.build();
    List<String> keyColumns = keyColumns();
    TupleTag<ChangelogRecord> changes = new TupleTag<>("changelog");
    TupleTag<BadRecord> refused = new TupleTag<>("refused");
    PCollectionTuple out =
        KeyedEngine.byKey(input, "ByKey", keyColumns, coder)
            .apply(
                "Apply",
                ParDo.of(
                        new ApplyFn(
                            keys,
                            keyColumns,
                            accumulators,
                            retention(),
                            arrivalOrder(),
                            StageTimers.of(input.getPipeline()),
                            coder,
                            changes,
                            badRecordErrorHandler() == null
                                    || PlantedDefect.current()
                                        == PlantedDefect.OVERFLOW_FAILS_THE_RUN
                                ? null
                                : refused))
                    .withOutputTags(changes, TupleTagList.of(refused)));
    PCollection<BadRecord> bad = out.get(refused).setCoder(BadRecordCoder.of());
    if (badRecordErrorHandler() != null) {
      badRecordErrorHandler().addErrorCollection(bad);
    }
    return out.get(changes).setCoder(ChangelogRecordCoder.of(keys, accumulators.outputSchema()));
  }

  /** This transform as an author writes it, for messages: {@code KeyedChangelog.by("a", "b")}. */
  private String describe() {
    return "KeyedChangelog.by(" + describe(keyColumns()) + ")";
  }

  private static String describe(List<String> keyColumns) {
    return OutputColumns.describe(keyColumns);
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("key", String.join(", ", keyColumns())).withLabel("Key columns"))
        .add(
            DisplayData.item("aggregates", OutputColumns.display(aggregations()))
                .withLabel("Aggregates"))
        .add(
            DisplayData.item(
                    "order",
                    arrivalOrder() ? "as events arrive" : "log order (stamp, partition, offset)")
                .withLabel("Events applied in"));
    if (retention() != null) {
      builder.add(DisplayData.item("retention", Times.format(retention())).withLabel("Retention"));
    }
  }

  /**
   * A canonical text of a key, so that keys equal by value (10 and 10.00) share state and the state
   * key's coder is deterministic whatever the key columns' types; see {@link KeyedEngine#keyText}.
   */
  public static String keyText(Row record, List<String> keyColumns) {
    return KeyedEngine.keyText(record, keyColumns);
  }

  private static final class ApplyFn extends DoFn<KV<String, TimedEvent>, ChangelogRecord> {
    private final Schema keySchema;
    private final ClockCoders.TimedEventCoder eventCoder;
    private final TupleTag<ChangelogRecord> records;

    /** Where an event that cannot be applied goes; null: it fails the pipeline. */
    private final @Nullable TupleTag<BadRecord> refused;

    private final Counter quarantined = StreamformMetrics.counter(StreamformMetrics.QUARANTINED);
    private final List<String> keyColumns;
    private final Accumulators accumulators;
    private final @Nullable Long retentionMillis;
    private final boolean onArrival;
    private final StreamformMetrics.BundleCounter processed =
        StreamformMetrics.perBundle(StreamformMetrics.PROCESSED);
    private final StreamformMetrics.BundleCounter emitted =
        StreamformMetrics.perBundle(StreamformMetrics.CHANGELOG);
    private final StreamformMetrics.BundleCounter expired =
        StreamformMetrics.perBundle(StreamformMetrics.EXPIRED);
    private final StreamformMetrics.BundleCounter live =
        StreamformMetrics.perBundle(StreamformMetrics.KEYS_LIVE);
    private final StreamformMetrics.BundleCounter timersSet =
        StreamformMetrics.perBundle(StreamformMetrics.TIMERS_SET);
    private final dev.streamform.transforms.StateBytes stateBytes =
        new dev.streamform.transforms.StateBytes();
    private final Coder<Row> aggregateCoder;
    private final KeyCell.CellCoder cellCoder;

    /** The key's aggregate, latest event time and tick, in one cell (see {@link KeyCell}). */
    @StateId("key")
    private final StateSpec<ValueState<KeyCell>> keySpec;

    /** Events that arrived but are not due yet (see {@link LogOrder}). */
    @StateId("pending")
    private final StateSpec<BagState<TimestampedValue<TimedEvent>>> pendingSpec;

    /** One timer per key: releases due events in log order, then frees expired state. */
    @TimerId("tick")
    private final TimerSpec tickSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    /** The same timer, one per key, where the runner needs that ({@link StageTimers}). */
    @TimerFamily(StageTimers.FAMILY)
    private final TimerSpec perKeySpec = TimerSpecs.timerMap(TimeDomain.EVENT_TIME);

    private final StageTimers timers;

    ApplyFn(
        Schema keySchema,
        List<String> keyColumns,
        Accumulators accumulators,
        @Nullable Duration retention,
        boolean onArrival,
        StageTimers timers,
        ClockCoders.TimedEventCoder events,
        TupleTag<ChangelogRecord> records,
        @Nullable TupleTag<BadRecord> refused) {
      this.timers = timers;
      this.eventCoder = events;
      this.records = records;
      this.refused = refused;
      this.onArrival = onArrival;
      this.keySchema = keySchema;
      this.keyColumns = keyColumns;
      this.accumulators = accumulators;
      this.retentionMillis = retention == null ? null : retention.getMillis();
      this.aggregateCoder = RowCoders.of(accumulators.stateSchema());
      this.cellCoder = new KeyCell.CellCoder(aggregateCoder);
      this.keySpec = StateSpecs.value(cellCoder);
      this.pendingSpec = StateSpecs.bag(LogOrder.bufferCoder(events));
    }

    @ProcessElement
    public void process(
        @Element KV<String, TimedEvent> element,
        @StateId("pending") BagState<TimestampedValue<TimedEvent>> pending,
        @StateId("key") ValueState<KeyCell> cellState,
        @TimerId("tick") Timer declaredTick,
        @TimerFamily(StageTimers.FAMILY) TimerMap perKey,
        MultiOutputReceiver out) {
      Timer tick = timers.get("tick", element.getKey(), declaredTick, perKey);
      TimedEvent value = element.getValue();
      KeyCell stored = cellState.read();
      KeyCell cell = KeyCell.of(stored);
      if (onArrival) {
        // The runner keeps each key's order between stages (see appliedOnArrival()): apply now.
        KeyState key = new KeyState(cell.aggregate, cell.latest);
        Long latestBefore = key.latest;
        applyOne(value, key, value.stamp(), 0, out);
        cell = cell.withKey(key.aggregate, key.latest);
        if (key.latest == null) {
          // applyOne refused the key's first event (or its first since the state expired): it is
          // quarantined, and the key stays absent, as in log order (ADR 0074)
          if (cell.isEmpty()) {
            if (stored != null) {
              cellState.clear();
            }
          } else {
            cellState.write(cell); // its armed tick, which finds nothing left to free
          }
          return;
        }
        if (!key.latest.equals(latestBefore) && retentionMillis != null && cell.tickAt == null) {
          // One timer per key, armed when none is: it only frees memory (whether the state had
          // expired is decided from each event's own watermark at arrival, in applyOne). A timer
          // armed for an earlier deadline fires early and is moved once, in onTick, to the key's
          // deadline then: no timer per event (issue 31).
          // (1 ms before the deadline: it fires once W is past its time, so at W >= deadline)
          long[] set = KeyedEngine.setTick(tick, key.latest + retentionMillis - 1, null);
          timersSet.inc();
          cell = cell.withTick(set[0], set[1]);
        }
        cellState.write(cell);
        measure(element.getKey(), cell);
        return;
      }
      long[] moved = KeyedEngine.buffer(value, pending, cell.tickAt, cell.holdAt, tick);
      if (moved != null) {
        timersSet.inc();
        cellState.write(cell.withTick(moved[0], moved[1]));
      }
    }

    /**
     * The counters of the bundle, reported once at its end ({@link StreamformMetrics#perBundle}).
     */
    @FinishBundle
    public void reportCounts() {
      StreamformMetrics.BundleCounter.flush(processed, emitted, expired, live, timersSet);
    }

    /** The key's tick where it is a member of the stage's timer family ({@link StageTimers}). */
    @OnTimerFamily(StageTimers.FAMILY)
    public void onPerKeyTick(
        OnTimerContext context,
        @TimerId String timerId,
        @Key String keyText,
        @StateId("pending") BagState<TimestampedValue<TimedEvent>> pending,
        @StateId("key") ValueState<KeyCell> cellState,
        @TimerFamily(StageTimers.FAMILY) TimerMap perKey,
        MultiOutputReceiver out)
        throws Exception {
      onTick(context, keyText, pending, cellState, perKey.get(timerId), out);
    }

    @OnTimer("tick")
    public void onTick(
        OnTimerContext context,
        @Key String keyText,
        @StateId("pending") BagState<TimestampedValue<TimedEvent>> pending,
        @StateId("key") ValueState<KeyCell> cellState,
        @TimerId("tick") Timer tick,
        MultiOutputReceiver out)
        throws Exception {
      KeyCell stored = cellState.read();
      KeyCell cell = KeyCell.of(stored);
      KeyState key = new KeyState(cell.aggregate, cell.latest);
      Instant emittedAt = context.fireTimestamp();
      // An event-time timer fires once the input watermark is past its time: W >= fire + 1ms
      // (nextEdge sets the tick 1 ms before the key's expiry for that reason, ADR 0100)
      KeyedEngine.Fired fired =
          KeyedEngine.fire(
              pending,
              emittedAt.getMillis() + 1,
              new KeyedEngine.Handler() {
                private int emission;

                @Override
                public void apply(TimedEvent event) {
                  applyOne(event, key, emittedAt, emission++, out);
                }

                @Override
                public @Nullable Long edgeDue(long now) {
                  Long expiry = key.expiry();
                  return expiry != null && expiry <= now ? expiry : null;
                }

                @Override
                public void passEdge(long edge) {
                  // W >= latest + retention: every event still to come sees the state gone too
                  expired.inc();
                  live.dec();
                  key.aggregate = null;
                  key.latest = null;
                }

                /**
                 * 1 ms before the key's expiry: the state is gone once {@code W >= latest +
                 * retention} (docs/semantics.md §3.3), and a tick at the expiry itself waited for
                 * {@code W >= expiry + 1ms} to free it.
                 */
                @Override
                public @Nullable Long nextEdge(long now) {
                  Long expiry = key.expiry();
                  return expiry != null && expiry > now ? expiry - 1 : null;
                }
              },
              tick);
      if (fired.at() != null) {
        timersSet.inc();
      }
      KeyCell after = new KeyCell(key.aggregate, key.latest, fired.at(), fired.hold());
      if (after.isEmpty()) {
        if (stored != null) {
          cellState.clear();
        }
      } else if (!after.equals(stored)) {
        cellState.write(after);
      }
      if (key.aggregate != null) {
        measure(keyText, after);
      }
    }

    /** Every {@link dev.streamform.transforms.StateBytes#EVERY}th write: a key's state in bytes. */
    private void measure(String keyText, KeyCell cell) {
      if (stateBytes.due()) {
        stateBytes.add(
            stateBytes.size(StringUtf8Coder.of(), keyText) + stateBytes.size(cellCoder, cell));
      }
    }

    /** A key's aggregate and latest event time, as one event's application changes them. */
    private final class KeyState {
      @Nullable Row aggregate;
      @Nullable Long latest;

      KeyState(@Nullable Row aggregate, @Nullable Long latest) {
        this.aggregate = aggregate;
        this.latest = latest;
      }

      /** Where the key's state expires (latest + retention), or null when it never does. */
      @Nullable Long expiry() {
        return aggregate == null || retentionMillis == null ? null : latest + retentionMillis;
      }
    }

    /**
     * Applies one event to its key (docs/semantics.md §3) and emits its changelog record, the
     * {@code emission}th of the key's records emitted at {@code emittedAt}.
     */
    private void applyOne(
        TimedEvent event, KeyState key, Instant emittedAt, int emission, MultiOutputReceiver out) {
      Envelope envelope = event.envelope();
      Instant w = event.watermarkAtArrival();
      if (key.aggregate != null
          && retentionMillis != null
          && w != null
          && w.getMillis() >= key.latest + retentionMillis) {
        expired.inc(); // gone before this event arrived; the timer had not come round yet
        live.dec();
        key.aggregate = null;
        key.latest = null;
      }
      Row aggregate;
      try {
        aggregate = accumulators.add(key.aggregate, envelope.record());
      } catch (Accumulators.SumOverflow overflow) {
        BadEvents.refuse(event, eventCoder, overflow, refused, out, quarantined);
        return; // not applied: the key's state is as before it, and it emits nothing
      }
      ChangelogRecord.Op op =
          key.aggregate == null ? ChangelogRecord.Op.INSERT : ChangelogRecord.Op.UPDATE;
      if (op == ChangelogRecord.Op.INSERT) {
        live.inc();
      }
      key.aggregate = aggregate;
      long t = envelope.eventTime().getMillis();
      key.latest = key.latest == null ? t : Math.max(key.latest, t);
      processed.inc();
      emitted.inc();
      out.get(records)
          .outputWithTimestamp(
              ChangelogRecord.of(
                      op,
                      keyOf(envelope.record()),
                      accumulators.output(key.aggregate),
                      envelope.eventId(),
                      envelope.partition(),
                      envelope.offset(),
                      envelope.eventTime())
                  .emitted(emittedAt, emission),
              envelope.eventTime());
    }

    @Override
    @SuppressWarnings(
        "deprecation") // a kept late event's record is stamped with its own, earlier, time
    public Duration getAllowedTimestampSkew() {
      return Duration.millis(Long.MAX_VALUE);
    }

    private Row keyOf(Row record) {
      List<Object> values = new ArrayList<>(keyColumns.size());
      for (String k : keyColumns) {
        values.add(record.getValue(k));
      }
      return Row.withSchema(keySchema).attachValues(values); // the record's own, verified values
    }
  }
}
