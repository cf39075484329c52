package dev.streamform.transforms.dedup;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

import com.google.auto.value.AutoValue;
import dev.streamform.transforms.BadRecordCoder;
import dev.streamform.transforms.PlantedDefect;
import dev.streamform.transforms.RowCoders;
import dev.streamform.transforms.StreamformMetrics;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.BadEvents;
import dev.streamform.transforms.clock.ClockCoders;
import dev.streamform.transforms.clock.KeyedEngine;
import dev.streamform.transforms.clock.LogOrder;
import dev.streamform.transforms.clock.StageTimers;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.DeclaredId;
import dev.streamform.transforms.envelope.Envelope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.MapState;
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

/**
 * Drops repeated events by a declared id column ({@code event_id:}), within a horizon in event time
 * ({@code duplicates_within:}).
 *
 * <p>Per id, the first event applied keeps the id for {@code horizon} of event time: until the
 * watermark reaches its event time + horizon. An event with a kept id is a <b>duplicate</b> when
 * its payload (every column, decimals by value) is the first one's — dropped, counted ({@code
 * duplicate_events_dropped}) and put on {@link DedupResult#duplicates()} — and a <b>conflict</b>
 * otherwise: quarantined on {@link DedupResult#conflicts()} with a reason naming the id, both
 * positions and the first payload, counted ({@code events_quarantined}). An event without a value
 * for the id column is quarantined too (it cannot be told from a repeat) and registers nothing.
 * Whether an id is still kept for an event is decided from the event's own partition watermark at
 * arrival ({@link TimedEvent#watermarkAtArrival()}), as retention is (docs/semantics.md §3), so the
 * answer is a function of the per-partition logs; event-time timers free an id's state at
 * first-seen + horizon, never earlier than an arriving event would still find it — unless a
 * partition is idle: the timers then follow the others, and a repeat that partition delivers after
 * its idle spell may find its id forgotten and be judged new (ADR 0213, as ADR 0020 item 2 for
 * keys). State is one small entry per id seen within the horizon.
 *
 * <p>Scope: by default an id is the source's, whichever record carries it. {@link #withinKey}
 * scopes it by a model's key (an upsert model's, ADR 0073): an id is remembered per key, so the
 * same id under another key is another event, neither a duplicate nor a conflict.
 *
 * <p>Order: a keyed stage (by id, or by key and id), so it follows the hand-over rules of {@link
 * LogOrder}: events are buffered and applied in log order once the watermark has passed their
 * stamps; which of two deliveries of one id is "first" is the log order's, the same on every
 * runner. {@link #appliedOnArrival()} instead keys the stage by the scope's key alone and judges
 * each event as it arrives, so that a runner that keeps each key's order between stages (Flink)
 * hands a key's events to the model's keyed stage in the order they left the clock. Input: the
 * {@code events()} of a {@code SourceClock} (late events are judged by the clock first, so an event
 * is late or a duplicate, never both); outputs keep the clock's coder.
 */
@AutoValue
public abstract class Deduplicate extends PTransform<PCollection<TimedEvent>, DedupResult> {

  public abstract String idColumn();

  public abstract Duration horizon();

  /** Where conflicts and events without an id also go, besides {@code conflicts()}. */
  public abstract @Nullable ErrorHandler<BadRecord, ?> badRecordErrorHandler();

  /** The key columns an id is scoped by ({@link #withinKey}); empty: the source's whole log. */
  public abstract List<String> scope();

  /** True when events are judged as they arrive ({@link #appliedOnArrival()}). */
  public abstract boolean arrivalOrder();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setIdColumn(String idColumn);

    abstract Builder setHorizon(Duration horizon);

    abstract Builder setBadRecordErrorHandler(@Nullable ErrorHandler<BadRecord, ?> handler);

    abstract Builder setScope(List<String> scope);

    abstract Builder setArrivalOrder(boolean arrivalOrder);

    abstract Deduplicate build();
  }

  /** Repeats of {@code idColumn}'s value within {@code horizon} of event time are duplicates. */
  public static Deduplicate byId(String idColumn, Duration horizon) {
    checkArgument(
        idColumn != null && !idColumn.isBlank(),
        "Deduplicate.byId(%s, ..): name the column that identifies an event, e.g. \"order_id\"",
        idColumn);
    checkArgument(
        horizon != null && horizon.isLongerThan(Duration.ZERO),
        "Deduplicate.byId(\"%s\", %s): the horizon must be a positive duration, e.g."
            + " Duration.standardHours(1): how long after an event's time a repeat is still a"
            + " duplicate",
        idColumn,
        horizon);
    Times.checkAtMostMax("Deduplicate.byId(\"" + idColumn + "\", ..)", horizon);
    return new AutoValue_Deduplicate.Builder()
        .setIdColumn(idColumn)
        .setHorizon(horizon)
        .setBadRecordErrorHandler(null)
        .setScope(List.of())
        .setArrivalOrder(false)
        .build();
  }

  /**
   * Conflicts (a repeated id with another payload) and events without an id also go to {@code
   * handler} (Beam's bad-record convention: {@code pipeline.registerBadRecordErrorHandler(sink)}),
   * each with its reason; {@link DedupResult#conflicts()} still has them.
   */
  public Deduplicate withBadRecordErrorHandler(ErrorHandler<BadRecord, ?> handler) {
    checkArgument(
        handler != null,
        "Deduplicate.withBadRecordErrorHandler(null): pass the handler that"
            + " pipeline.registerBadRecordErrorHandler(..) returned");
    return toBuilder().setBadRecordErrorHandler(handler).build();
  }

  /**
   * Ids scoped by {@code keyColumns} (an upsert model's key): an id is remembered per key, and an
   * event with a remembered id but another key is judged as that key's own — first seen, kept —
   * rather than as a duplicate or a conflict. A duplicate always has the key of its first event
   * (the key is part of the payload), so only the repeats of an id under another key are judged
   * otherwise than source-wide (ADR 0073).
   */
  public Deduplicate withinKey(List<String> keyColumns) {
    checkArgument(
        keyColumns != null && !keyColumns.isEmpty(),
        "Deduplicate.byId(\"%s\", ..).withinKey(%s): name the key columns an id is scoped by,"
            + " e.g. List.of(\"customer_id\")",
        idColumn(),
        keyColumns);
    return toBuilder().setScope(List.copyOf(keyColumns)).build();
  }

  /**
   * Judges each event as it reaches this stage instead of in log order, in a stage keyed by the
   * scope's key ({@link #withinKey}; the id without one): no wait for the watermark, and a runner
   * that keeps each key's order between stages (the Flink runner: one channel per sender, first in
   * first out) then hands each key's events to a keyed stage after it in the order they left the
   * clock. Correct only on such a runner, as {@code KeyedChangelog.appliedOnArrival()} is. Whether
   * an id is still kept is decided from the event's own partition watermark at arrival, as in log
   * order; one timer per key frees the ids whose horizon passed, armed when none is and set again
   * for the earliest id left when it fires.
   */
  public Deduplicate appliedOnArrival() {
    return toBuilder().setArrivalOrder(true).build();
  }

  @Override
  public DedupResult expand(PCollection<TimedEvent> input) {
    checkArgument(
        input.getCoder() instanceof ClockCoders.TimedEventCoder,
        "Deduplicate reads the events() of a SourceClock, encoded with the coder the clock gives"
            + " them; got %s",
        input.getCoder());
    ClockCoders.TimedEventCoder coder = (ClockCoders.TimedEventCoder) input.getCoder();
    Schema records = coder.envelopeCoder().recordSchema();
    checkArgument(
        records.hasField(idColumn()),
        "Deduplicate.byId(\"%s\", ..): `%s` is not a field of the records (fields: %s)",
        idColumn(),
        idColumn(),
        records.getFieldNames());
    for (String k : scope()) {
      checkArgument(
          records.hasField(k),
          "Deduplicate.byId(\"%s\", ..).withinKey(%s): `%s` is not a field of the records"
              + " (fields: %s)",
          idColumn(),
          scope(),
          k,
          records.getFieldNames());
    }
    List<String> id = List.of(idColumn());
    List<String> payload = records.getFieldNames();
    TupleTag<TimedEvent> events = new TupleTag<>("events");
    TupleTag<TimedEvent> duplicates = new TupleTag<>("duplicates");
    TupleTag<BadRecord> conflicts = new TupleTag<>("conflicts");
    Judge judge =
        new Judge(
            idColumn(),
            payload,
            horizon().getMillis(),
            coder,
            events,
            duplicates,
            conflicts,
            PlantedDefect.current());
    PCollectionTuple out;
    if (arrivalOrder()) {
      // keyed by the scope's key alone, so a key's events stay on one channel in order;
      // planted (tests only): keyed by id, as before issue 31, and a key's order is lost
      List<String> stageKey =
          scope().isEmpty() || judge.planted == PlantedDefect.DEDUP_ON_ARRIVAL_BY_ID ? id : scope();
      out =
          KeyedEngine.byKey(input, "ByKey", stageKey, coder)
              .apply(
                  "Deduplicate",
                  ParDo.of(new ArrivalFn(judge))
                      .withOutputTags(events, TupleTagList.of(duplicates).and(conflicts)));
    } else {
      List<String> stageKey = new ArrayList<>(scope());
      stageKey.addAll(id);
      out =
          KeyedEngine.byKey(input, "ById", stageKey, coder)
              .apply(
                  "Deduplicate",
                  ParDo.of(new DedupFn(judge, StageTimers.of(input.getPipeline())))
                      .withOutputTags(events, TupleTagList.of(duplicates).and(conflicts)));
    }
    PCollection<TimedEvent> kept = out.get(events).setCoder(coder);
    PCollection<TimedEvent> repeated = out.get(duplicates).setCoder(coder);
    PCollection<BadRecord> refused = out.get(conflicts).setCoder(BadRecordCoder.of());
    if (badRecordErrorHandler() != null) {
      badRecordErrorHandler().addErrorCollection(refused);
    }
    return new DedupResult(
        input.getPipeline(),
        Map.of(events, kept, duplicates, repeated, conflicts, refused),
        kept,
        repeated,
        refused);
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("eventId", idColumn()).withLabel("Event id"))
        .add(
            DisplayData.item("duplicatesWithin", Times.format(horizon()))
                .withLabel("Duplicates within"))
        .add(
            DisplayData.item("scope", scope().isEmpty() ? "source" : String.join(", ", scope()))
                .withLabel("Ids scoped by"))
        .add(
            DisplayData.item("order", arrivalOrder() ? "as events arrive" : "log order")
                .withLabel("Events judged in"));
  }

  /** One id's first event as a stage remembers it; immutable. */
  static final class Seen {
    /** The payload of the id's first event, canonical (decimals by value). */
    final String payload;

    /** Where the first event was: {@code partition <p> offset <o>}. */
    final String first;

    /** The first event's time (millis): the id is kept until the watermark reaches it + horizon. */
    final long seenAt;

    Seen(String payload, String first, long seenAt) {
      this.payload = payload;
      this.first = first;
      this.seenAt = seenAt;
    }
  }

  /**
   * What one event does, whichever order the stage judges in: the id's first event is passed on and
   * remembered, a repeat with the first's payload is a duplicate, with another a conflict, an event
   * without an id is quarantined and remembered by nothing.
   */
  static final class Judge implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    final String idColumn;
    final List<String> idColumns;
    final List<String> payloadColumns;
    final long horizon;
    final Coder<TimedEvent> coder;
    final TupleTag<TimedEvent> events;
    final TupleTag<TimedEvent> duplicates;
    final TupleTag<BadRecord> conflicts;

    /** {@link PlantedDefect#NONE} but in a test that planted one (issue 29). */
    final PlantedDefect planted;

    final Counter dropped = StreamformMetrics.counter(StreamformMetrics.DUPLICATES_DROPPED);
    final Counter quarantined = StreamformMetrics.counter(StreamformMetrics.QUARANTINED);
    final Counter freed = StreamformMetrics.counter(StreamformMetrics.IDS_FORGOTTEN);

    Judge(
        String idColumn,
        List<String> payloadColumns,
        long horizon,
        Coder<TimedEvent> coder,
        TupleTag<TimedEvent> events,
        TupleTag<TimedEvent> duplicates,
        TupleTag<BadRecord> conflicts,
        PlantedDefect planted) {
      this.planted = planted;
      this.events = events;
      this.idColumn = idColumn;
      this.idColumns = List.of(idColumn);
      this.payloadColumns = payloadColumns;
      // planted (tests only): the id outlives its horizon by 1 ms, in the timer and on arrival
      // alike
      this.horizon = planted == PlantedDefect.DEDUP_HORIZON_EXCLUSIVE ? horizon + 1 : horizon;
      this.coder = coder;
      this.duplicates = duplicates;
      this.conflicts = conflicts;
    }

    /** Where {@code seen}'s id is forgotten: first seen + horizon (millis). */
    long forgetAt(Seen seen) {
      return seen.seenAt + horizon;
    }

    /**
     * Judges {@code event} against its id's first event {@code seen} (null: none kept for it) and
     * emits it where it goes; returns the id's state after it: {@code seen}, or the event itself
     * when it is the id's first.
     */
    @Nullable Seen judge(TimedEvent event, @Nullable Seen seen, DoFn.MultiOutputReceiver out)
        throws Exception {
      Envelope e = event.envelope();
      if (e.record().getValue(idColumn) == null) {
        // no id: it cannot be told from a repeat, nor a repeat from it (as an event without its
        // event time cannot be judged by the clock); it registers nothing
        quarantined.inc();
        out.get(conflicts).outputWithTimestamp(noId(event), e.eventTime());
        return seen;
      }
      String text = KeyedChangelog.keyText(e.record(), payloadColumns);
      if (seen == null) {
        // the time it came with, not its event time: that is behind this stage's output
        // watermark for a kept late event, and would hold nothing on its way to the next keyed
        // stage, whose window edges could then pass it (LogOrder.timestampOf, LogOrder.holdOf)
        out.get(events).outputWithTimestamp(event, LogOrder.timestampOf(event));
        return new Seen(
            text,
            "partition " + e.partition() + " offset " + e.offset(),
            e.eventTime().getMillis());
      }
      if (text.equals(seen.payload) || planted == PlantedDefect.DEDUP_CONFLICT_AS_DUPLICATE) {
        dropped.inc();
        out.get(duplicates).outputWithTimestamp(event, e.eventTime());
      } else {
        quarantined.inc();
        out.get(conflicts).outputWithTimestamp(conflict(event, seen.first), e.eventTime());
      }
      return seen;
    }

    private BadRecord noId(TimedEvent event) throws Exception {
      return BadEvents.of(
          event,
          coder,
          "no value for event_id column `"
              + idColumn
              + "`; an event without its id cannot be told from a repeat");
    }

    private BadRecord conflict(TimedEvent event, String first) throws Exception {
      String id = DeclaredId.text(event.envelope().record().getValue(idColumn));
      return BadEvents.of(
          event,
          coder,
          "event_id `"
              + idColumn
              + "` = "
              + id
              + " was first seen at "
              + first
              + " with another payload; a repeated id must repeat its event exactly");
    }
  }

  /** Log order: one state key per id (within its scope), released by {@link KeyedEngine}. */
  private static final class DedupFn extends DoFn<KV<String, TimedEvent>, TimedEvent> {
    private final Judge judge;

    @StateId("payload")
    private final StateSpec<ValueState<String>> payloadSpec =
        StateSpecs.value(StringUtf8Coder.of());

    @StateId("first")
    private final StateSpec<ValueState<String>> firstSpec = StateSpecs.value(StringUtf8Coder.of());

    @StateId("seenAt")
    private final StateSpec<ValueState<Long>> seenAtSpec = StateSpecs.value(VarLongCoder.of());

    @StateId("pending")
    private final StateSpec<BagState<TimestampedValue<TimedEvent>>> pendingSpec;

    @StateId("tickAt")
    private final StateSpec<ValueState<Long>> tickAtSpec = StateSpecs.value(VarLongCoder.of());

    @StateId("holdAt")
    private final StateSpec<ValueState<Long>> holdAtSpec = StateSpecs.value(VarLongCoder.of());

    @TimerId("tick")
    private final TimerSpec tickSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    /** The same timer, one per id, where the runner needs that ({@link StageTimers}). */
    @TimerFamily(StageTimers.FAMILY)
    private final TimerSpec perKeySpec = TimerSpecs.timerMap(TimeDomain.EVENT_TIME);

    private final StageTimers timers;

    DedupFn(Judge judge, StageTimers timers) {
      this.judge = judge;
      this.timers = timers;
      this.pendingSpec = StateSpecs.bag(LogOrder.bufferCoder(judge.coder));
    }

    @ProcessElement
    public void process(
        @Element KV<String, TimedEvent> element,
        @StateId("pending") BagState<TimestampedValue<TimedEvent>> pending,
        @StateId("tickAt") ValueState<Long> tickAt,
        @StateId("holdAt") ValueState<Long> holdAt,
        @TimerId("tick") Timer tick,
        @TimerFamily(StageTimers.FAMILY) TimerMap perKey) {
      KeyedEngine.buffer(
          element.getValue(),
          pending,
          tickAt,
          holdAt,
          timers.get("tick", element.getKey(), tick, perKey),
          LogOrder::passedOnHoldOf);
    }

    /** The id's tick where it is a member of the stage's timer family ({@link StageTimers}). */
    @OnTimerFamily(StageTimers.FAMILY)
    public void onPerKeyTick(
        OnTimerContext context,
        @TimerId String timerId,
        @StateId("pending") BagState<TimestampedValue<TimedEvent>> pending,
        @StateId("tickAt") ValueState<Long> tickAt,
        @StateId("holdAt") ValueState<Long> holdAt,
        @StateId("payload") ValueState<String> payloadState,
        @StateId("first") ValueState<String> firstState,
        @StateId("seenAt") ValueState<Long> seenAtState,
        @TimerFamily(StageTimers.FAMILY) TimerMap perKey,
        MultiOutputReceiver out)
        throws Exception {
      onTick(
          context,
          pending,
          tickAt,
          holdAt,
          payloadState,
          firstState,
          seenAtState,
          perKey.get(timerId),
          out);
    }

    @OnTimer("tick")
    public void onTick(
        OnTimerContext context,
        @StateId("pending") BagState<TimestampedValue<TimedEvent>> pending,
        @StateId("tickAt") ValueState<Long> tickAt,
        @StateId("holdAt") ValueState<Long> holdAt,
        @StateId("payload") ValueState<String> payloadState,
        @StateId("first") ValueState<String> firstState,
        @StateId("seenAt") ValueState<Long> seenAtState,
        @TimerId("tick") Timer tick,
        MultiOutputReceiver out)
        throws Exception {
      Long seenAt = seenAtState.read();
      Seen stored =
          seenAt == null ? null : new Seen(payloadState.read(), firstState.read(), seenAt);
      IdState id = new IdState(stored, out);
      // An event-time timer fires once the input watermark is past its time: W >= fire + 1ms
      // (nextEdge sets the tick 1 ms before the id's horizon for that reason, ADR 0100)
      KeyedEngine.Fired fired =
          KeyedEngine.fire(
              pending, context.fireTimestamp().getMillis() + 1, id, tick, LogOrder::passedOnHoldOf);
      if (id.seen == null) {
        if (stored != null) {
          payloadState.clear();
          firstState.clear();
          seenAtState.clear();
        }
      } else if (id.seen != stored) {
        payloadState.write(id.seen.payload);
        firstState.write(id.seen.first);
        seenAtState.write(id.seen.seenAt);
      }
      KeyedEngine.keep(fired, tickAt, holdAt);
    }

    /**
     * One id's state as a firing changes it; its one edge is first seen + horizon, where the id is
     * forgotten (the engine passes it only after every buffered event that arrived before it).
     */
    private final class IdState implements KeyedEngine.Handler {
      @Nullable Seen seen;
      private final MultiOutputReceiver out;

      IdState(@Nullable Seen seen, MultiOutputReceiver out) {
        this.seen = seen;
        this.out = out;
      }

      @Override
      public @Nullable Long edgeDue(long now) {
        return seen != null && judge.forgetAt(seen) <= now ? judge.forgetAt(seen) : null;
      }

      @Override
      public void passEdge(long edge) {
        judge.freed.inc(); // W >= first seen + horizon: every event still to come finds it gone
        seen = null;
      }

      /** 1 ms before the id is forgotten (first seen + horizon, reached at {@code W >=} it). */
      @Override
      public @Nullable Long nextEdge(long now) {
        return seen != null && judge.forgetAt(seen) > now ? judge.forgetAt(seen) - 1 : null;
      }

      @Override
      public void apply(TimedEvent event) throws Exception {
        // (an event that arrived at or after first seen + horizon comes after that edge: the id
        // is forgotten for it, as its own partition's watermark says)
        seen = judge.judge(event, seen, out);
      }
    }

    @Override
    @SuppressWarnings("deprecation") // duplicates and conflicts leave with their own, earlier, time
    public Duration getAllowedTimestampSkew() {
      return Duration.millis(Long.MAX_VALUE);
    }
  }

  /**
   * On arrival: one state key per scope key holding the ids seen for it, each event judged as it
   * arrives (its own partition's watermark at arrival says whether its id is still kept), and one
   * timer per key that only frees memory.
   */
  private static final class ArrivalFn extends DoFn<KV<String, TimedEvent>, TimedEvent> {
    private static final Schema SEEN =
        Schema.builder()
            .addStringField("payload")
            .addStringField("first")
            .addInt64Field("seen_at")
            .build();

    private final Judge judge;
    private final Counter timersSet = StreamformMetrics.counter(StreamformMetrics.ID_TIMERS_SET);

    /** The key's ids (canonical text) and their first events, within their horizons. */
    @StateId("ids")
    private final StateSpec<MapState<String, Row>> idsSpec =
        StateSpecs.map(StringUtf8Coder.of(), RowCoders.of(SEEN));

    /** When the key's one timer fires (millis); null: none is armed. */
    @StateId("freeAt")
    private final StateSpec<ValueState<Long>> freeAtSpec = StateSpecs.value(VarLongCoder.of());

    @TimerId("free")
    private final TimerSpec freeSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    ArrivalFn(Judge judge) {
      this.judge = judge;
    }

    @ProcessElement
    public void process(
        @Element KV<String, TimedEvent> element,
        @StateId("ids") MapState<String, Row> ids,
        @StateId("freeAt") ValueState<Long> freeAt,
        @TimerId("free") Timer free,
        MultiOutputReceiver out)
        throws Exception {
      TimedEvent event = element.getValue();
      Object idValue = event.envelope().record().getValue(judge.idColumn);
      if (idValue == null) {
        judge.judge(event, null, out);
        return;
      }
      String id = KeyedEngine.keyText(event.envelope().record(), judge.idColumns);
      Row row = ids.get(id).read();
      Seen seen = row == null ? null : seen(row);
      if (seen != null && judge.forgetAt(seen) <= LogOrder.arrivalOf(event)) {
        // the event's own partition's watermark has passed the horizon (the timer, which follows
        // the slowest partition, had not come round yet): the id is forgotten for it
        judge.freed.inc();
        seen = null;
      }
      Seen after = judge.judge(event, seen, out);
      if (after != seen) {
        ids.put(
            id, Row.withSchema(SEEN).addValues(after.payload, after.first, after.seenAt).build());
        if (freeAt.read() == null) {
          // one timer per key, armed when none is: it only frees memory; when it fires it frees
          // the ids due then and is set once more, for the earliest id left
          freeAt.write(KeyedEngine.setTick(free, judge.forgetAt(after) - 1, null)[0]);
          timersSet.inc();
        }
      }
    }

    @OnTimer("free")
    public void onFree(
        OnTimerContext context,
        @StateId("ids") MapState<String, Row> ids,
        @StateId("freeAt") ValueState<Long> freeAt,
        @TimerId("free") Timer free) {
      // It fires once the input watermark is past its time: W >= fire + 1ms (it is set 1 ms
      // before the earliest horizon for that reason, ADR 0100)
      long now = context.fireTimestamp().getMillis() + 1;
      List<String> due = new ArrayList<>();
      Long next = null;
      for (Map.Entry<String, Row> e : ids.entries().read()) {
        long at = judge.forgetAt(seen(e.getValue()));
        if (at <= now) {
          due.add(e.getKey()); // W >= first seen + horizon: every event still to come finds it gone
        } else {
          next = next == null ? at : Math.min(next, at);
        }
      }
      for (String id : due) {
        ids.remove(id);
        judge.freed.inc();
      }
      if (next == null) {
        freeAt.clear();
      } else {
        freeAt.write(KeyedEngine.setTick(free, next - 1, null)[0]);
        timersSet.inc();
      }
    }

    private static Seen seen(Row row) {
      return new Seen(row.getString("payload"), row.getString("first"), row.getInt64("seen_at"));
    }

    @Override
    @SuppressWarnings("deprecation") // duplicates and conflicts leave with their own, earlier, time
    public Duration getAllowedTimestampSkew() {
      return Duration.millis(Long.MAX_VALUE);
    }
  }
}
