package dev.streamform.transforms.dedup;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

import com.google.auto.value.AutoValue;
import dev.streamform.transforms.PlantedDefect;
import dev.streamform.transforms.StreamformMetrics;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.ClockCoders;
import dev.streamform.transforms.clock.KeyedEngine;
import dev.streamform.transforms.clock.LogOrder;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.Envelope;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
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
 * first-seen + horizon, never earlier than an arriving event would still find it. State is one
 * small entry per id seen within the horizon.
 *
 * <p>Order: a keyed stage (by id), so it follows the hand-over rules of {@link LogOrder}: events
 * are buffered and applied in log order once the watermark has passed their stamps; which of two
 * deliveries of one id is "first" is the log order's, the same on every runner. Input: the {@code
 * events()} of a {@code SourceClock} (late events are judged by the clock first, so an event is
 * late or a duplicate, never both); outputs keep the clock's coder.
 */
@AutoValue
public abstract class Deduplicate extends PTransform<PCollection<TimedEvent>, DedupResult> {

  public abstract String idColumn();

  public abstract Duration horizon();

  /** Where conflicts and events without an id also go, besides {@code conflicts()}. */
  public abstract @Nullable ErrorHandler<BadRecord, ?> badRecordErrorHandler();

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
    return new AutoValue_Deduplicate(idColumn, horizon, null);
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
    return new AutoValue_Deduplicate(idColumn(), horizon(), handler);
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
    List<String> id = List.of(idColumn());
    List<String> payload = records.getFieldNames();
    TupleTag<TimedEvent> events = new TupleTag<>("events");
    TupleTag<TimedEvent> duplicates = new TupleTag<>("duplicates");
    TupleTag<BadRecord> conflicts = new TupleTag<>("conflicts");
    PCollectionTuple out =
        KeyedEngine.byKey(input, "ById", id, coder)
            .apply(
                "Deduplicate",
                ParDo.of(
                        new DedupFn(
                            idColumn(),
                            payload,
                            horizon().getMillis(),
                            coder,
                            events,
                            duplicates,
                            conflicts,
                            PlantedDefect.current()))
                    .withOutputTags(events, TupleTagList.of(duplicates).and(conflicts)));
    PCollection<TimedEvent> kept = out.get(events).setCoder(coder);
    PCollection<TimedEvent> repeated = out.get(duplicates).setCoder(coder);
    PCollection<BadRecord> refused =
        out.get(conflicts).setCoder(BadRecord.getCoder(input.getPipeline()));
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
                .withLabel("Duplicates within"));
  }

  private static final class DedupFn extends DoFn<KV<String, TimedEvent>, TimedEvent> {
    private final String idColumn;
    private final List<String> payloadColumns;
    private final long horizon;
    private final Coder<TimedEvent> coder;
    private final TupleTag<TimedEvent> events;
    private final TupleTag<TimedEvent> duplicates;
    private final TupleTag<BadRecord> conflicts;

    /** {@link PlantedDefect#NONE} but in a test that planted one (issue 29). */
    private final PlantedDefect planted;

    private final Counter dropped = StreamformMetrics.counter(StreamformMetrics.DUPLICATES_DROPPED);
    private final Counter quarantined = StreamformMetrics.counter(StreamformMetrics.QUARANTINED);
    private final Counter freed = StreamformMetrics.counter(StreamformMetrics.IDS_FORGOTTEN);

    /** The payload of the id's first event, canonical (decimals by value). */
    @StateId("payload")
    private final StateSpec<ValueState<String>> payloadSpec =
        StateSpecs.value(StringUtf8Coder.of());

    /** Where the first event was: {@code partition <p> offset <o>}. */
    @StateId("first")
    private final StateSpec<ValueState<String>> firstSpec = StateSpecs.value(StringUtf8Coder.of());

    /** The first event's time (millis): the id is kept until the watermark reaches it + horizon. */
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

    DedupFn(
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
      this.payloadColumns = payloadColumns;
      // planted (tests only): the id outlives its horizon by 1 ms, in the timer and on arrival
      // alike
      this.horizon = planted == PlantedDefect.DEDUP_HORIZON_EXCLUSIVE ? horizon + 1 : horizon;
      this.coder = coder;
      this.duplicates = duplicates;
      this.conflicts = conflicts;
      this.pendingSpec = StateSpecs.bag(LogOrder.bufferCoder(coder));
    }

    @ProcessElement
    public void process(
        @Element KV<String, TimedEvent> element,
        @StateId("pending") BagState<TimestampedValue<TimedEvent>> pending,
        @StateId("tickAt") ValueState<Long> tickAt,
        @StateId("holdAt") ValueState<Long> holdAt,
        @TimerId("tick") Timer tick) {
      KeyedEngine.buffer(element.getValue(), pending, tickAt, holdAt, tick);
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
      IdState id = new IdState(payloadState.read(), firstState.read(), seenAtState.read(), out);
      KeyedEngine.Fired fired =
          KeyedEngine.fire(pending, context.fireTimestamp().getMillis(), id, tick);
      if (id.seenAt == null) {
        payloadState.clear();
        firstState.clear();
        seenAtState.clear();
      } else if (id.changed) {
        payloadState.write(id.payload);
        firstState.write(id.first);
        seenAtState.write(id.seenAt);
      }
      KeyedEngine.keep(fired, tickAt, holdAt);
    }

    /**
     * One id's state as a firing changes it; its one edge is first seen + horizon, where the id is
     * forgotten (the engine passes it only after every buffered event that arrived before it).
     */
    private final class IdState implements KeyedEngine.Handler {
      @Nullable String payload;
      @Nullable String first;
      @Nullable Long seenAt;
      boolean changed;
      private final MultiOutputReceiver out;

      IdState(
          @Nullable String payload,
          @Nullable String first,
          @Nullable Long seenAt,
          MultiOutputReceiver out) {
        this.payload = payload;
        this.first = first;
        this.seenAt = seenAt;
        this.out = out;
      }

      @Override
      public @Nullable Long edgeDue(long now) {
        return seenAt != null && seenAt + horizon <= now ? seenAt + horizon : null;
      }

      @Override
      public void passEdge(long edge) {
        freed.inc(); // W >= first seen + horizon: every event still to come finds the id forgotten
        seenAt = null;
      }

      @Override
      public @Nullable Long nextEdge(long now) {
        return seenAt != null && seenAt + horizon > now ? seenAt + horizon : null;
      }

      @Override
      public void apply(TimedEvent event) throws Exception {
        Envelope e = event.envelope();
        if (e.record().getValue(idColumn) == null) {
          // no id: it cannot be told from a repeat, nor a repeat from it (as an event without its
          // event time cannot be judged by the clock); it registers nothing
          quarantined.inc();
          out.get(conflicts).outputWithTimestamp(noId(event), e.eventTime());
          return;
        }
        // (an event that arrived at or after first seen + horizon comes after that edge: the id
        // is forgotten for it, as its own partition's watermark says)
        String text = KeyedChangelog.keyText(e.record(), payloadColumns);
        if (seenAt == null) {
          payload = text;
          first = "partition " + e.partition() + " offset " + e.offset();
          seenAt = e.eventTime().getMillis();
          changed = true;
          // the time it came with, not its event time: that is behind this stage's output
          // watermark for a kept late event, and would hold nothing on its way to the next keyed
          // stage, whose window edges could then pass it (LogOrder.timestampOf, LogOrder.holdOf)
          out.get(events).outputWithTimestamp(event, LogOrder.timestampOf(event));
        } else if (text.equals(payload) || planted == PlantedDefect.DEDUP_CONFLICT_AS_DUPLICATE) {
          dropped.inc();
          out.get(duplicates).outputWithTimestamp(event, e.eventTime());
        } else {
          quarantined.inc();
          out.get(conflicts).outputWithTimestamp(conflict(event, first), e.eventTime());
        }
      }
    }

    private BadRecord noId(TimedEvent event) throws Exception {
      Envelope e = event.envelope();
      return badRecord(
          event,
          "partition "
              + e.partition()
              + " offset "
              + e.offset()
              + ": no value for event_id column `"
              + idColumn
              + "`; an event without its id cannot be"
              + " told from a repeat");
    }

    private BadRecord badRecord(TimedEvent event, String description) throws Exception {
      return BadRecord.builder()
          .setRecord(
              BadRecord.Record.builder()
                  .setHumanReadableJsonRecord(event.envelope().record().toString())
                  .addCoderAndEncodedRecord(coder, event)
                  .build())
          .setFailure(BadRecord.Failure.builder().setDescription(description).build())
          .build();
    }

    private BadRecord conflict(TimedEvent event, String first) throws Exception {
      Envelope e = event.envelope();
      Object id = e.record().getValue(idColumn);
      return badRecord(
          event,
          "partition "
              + e.partition()
              + " offset "
              + e.offset()
              + ": event_id `"
              + idColumn
              + "` = "
              + id
              + " was first seen at "
              + first
              + " with another payload; a repeated id must repeat its event exactly");
    }

    @Override
    @SuppressWarnings("deprecation") // duplicates and conflicts leave with their own, earlier, time
    public Duration getAllowedTimestampSkew() {
      return Duration.millis(Long.MAX_VALUE);
    }
  }
}
