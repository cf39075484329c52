package dev.streamform.transforms.clock;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * The one engine of the keyed stages (changelog, deduplication, windows, decisions): the buffer of
 * a key's waiting events, the tick timer, the hold, the release in log order and the interleaving
 * of the key's edges in event time with its events. A stage writes only a {@link Handler}: what one
 * event does to its key, and which edges its key has (an expiry, a duplicate horizon, a window's
 * end, an event's occurrence). Beam's {@code extensions/ordered} splits the same way ({@code
 * OrderedEventProcessor} buffers and releases, an {@code EventExaminer} and {@code MutableState}
 * say what an event does); why that and Beam's sorted inputs do not fit here: the page "The keyed
 * engine" in docs/concepts.
 *
 * <p>A stage keeps, per key: a {@code BagState} of stamped events ({@link LogOrder#bufferCoder}),
 * one event-time timer, and the timer's time and hold in state of its own choosing (the {@code {at,
 * hold}} pairs this class returns), so each stage keeps its state layout.
 *
 * <p><b>The order</b> (ADR 0001, ADR 0061). At each step the engine asks the handler for its
 * earliest edge at or before the input watermark. The events that arrived before that edge (their
 * partition's watermark at arrival, {@link LogOrder#arrivalOf}, is below it) come first, in log
 * order; the first of them that is not due yet holds the edge back and ends the firing. With no
 * such event the edge passes. Without an edge, the due events are applied in log order. Where a
 * source's partitions are declared, a stamp is its partition's watermark at arrival, so these are
 * simply the due events in log order with each edge where the watermark passed it.
 *
 * <p><b>The timer rule</b> (ADR 0060): the tick always carries an output timestamp — the earliest
 * hold of the key (its waiting events' {@link LogOrder#holdOf} and the handler's own), or the
 * tick's firing time when nothing is held. Never {@code withNoOutputTimestamp()}: such a timer set
 * at the end of a bounded input never fired on the Flink runner, and a hold at the timer's own time
 * costs nothing, as the output watermark cannot pass the input watermark anyway.
 */
public final class KeyedEngine {
  private KeyedEngine() {}

  /** What one keyed stage does with the events and edges of a key, in the order the engine says. */
  public interface Handler {
    /** Applies one due event to the key. */
    void apply(TimedEvent event) throws Exception;

    /** The key's earliest edge at or before {@code now} (millis), or null when there is none. */
    @Nullable Long edgeDue(long now);

    /** Passes the edge {@link #edgeDue} returned last. */
    void passEdge(long edge) throws Exception;

    /**
     * When the tick must fire for the key's earliest edge after {@code now}, or null. A timer at
     * {@code T} fires once the input watermark is past {@code T}: a stage whose edge is reached at
     * {@code W >= edge} answers {@code edge - 1} and reads a firing at {@code T} as {@code now = T
     * + 1} (every stage does: ADR 0098, ADR 0100).
     */
    @Nullable Long nextEdge(long now);

    /** Where the key's state itself holds the output watermark (millis), or null. */
    default @Nullable Long hold() {
      return null;
    }
  }

  /**
   * The events keyed by the canonical text of their {@code columns} ({@link #keyText}), by a step
   * named {@code name}, with the clock's {@code coder} kept: what every keyed stage applies first.
   */
  public static PCollection<KV<String, TimedEvent>> byKey(
      PCollection<TimedEvent> input, String name, List<String> columns, Coder<TimedEvent> coder) {
    return input
        .apply(
            name,
            MapElements.into(
                    TypeDescriptors.kvs(
                        TypeDescriptors.strings(), new TypeDescriptor<TimedEvent>() {}))
                .via((TimedEvent e) -> KV.of(keyText(e.envelope().record(), columns), e)))
        .setCoder(KvCoder.of(StringUtf8Coder.of(), coder));
  }

  /**
   * A canonical text of a key, so that keys equal by value (10 and 10.00) share state and the state
   * key's coder is deterministic whatever the key columns' types.
   */
  public static String keyText(Row record, List<String> keyColumns) {
    StringBuilder b = new StringBuilder();
    for (String k : keyColumns) {
      Object v = record.getValue(k);
      String text =
          v == null
              ? "\u0000"
              : v instanceof BigDecimal
                  ? ((BigDecimal) v).stripTrailingZeros().toPlainString()
                  : v.toString();
      b.append(text.length()).append(':').append(text);
    }
    return b.toString();
  }

  /**
   * Buffers {@code event} with its stamp (its place in the log order; not its element timestamp,
   * {@link LogOrder#timestampOf}) and makes sure the tick fires once the event is due, holding the
   * output watermark at {@link LogOrder#holdOf} until then, so that what the event causes is not
   * late downstream. {@code at} and {@code held} are the tick's current time and hold (null: not
   * set). Returns the new {@code {at, hold}} when the tick was set again, null when it already
   * fires and holds early enough.
   */
  public static long @Nullable [] buffer(
      TimedEvent event,
      BagState<TimestampedValue<TimedEvent>> pending,
      @Nullable Long at,
      @Nullable Long held,
      Timer tick) {
    return buffer(event, pending, at, held, tick, LogOrder::holdOf);
  }

  /**
   * {@link #buffer(TimedEvent, BagState, Long, Long, Timer)} holding each waiting event at {@code
   * holdOf} instead of {@link LogOrder#holdOf}: a stage that passes its events on holds them at the
   * time it passes them on with ({@link LogOrder#passedOnHoldOf}).
   */
  public static long @Nullable [] buffer(
      TimedEvent event,
      BagState<TimestampedValue<TimedEvent>> pending,
      @Nullable Long at,
      @Nullable Long held,
      Timer tick,
      ToLongFunction<TimestampedValue<TimedEvent>> holdOf) {
    TimestampedValue<TimedEvent> stamped = TimestampedValue.of(event, event.stamp());
    pending.add(stamped);
    long dueAt = event.stamp().getMillis() + 1;
    long holdFor = holdOf.applyAsLong(stamped);
    if (at == null || dueAt < at || held == null || holdFor < held) {
      long fire = at == null ? dueAt : Math.min(at, dueAt);
      return setTick(tick, fire, held == null ? holdFor : Math.min(held, holdFor));
    }
    return null;
  }

  /**
   * {@link #buffer(TimedEvent, BagState, Long, Long, Timer)} for a stage that keeps the tick's time
   * and hold in two value cells of their own.
   */
  public static void buffer(
      TimedEvent event,
      BagState<TimestampedValue<TimedEvent>> pending,
      ValueState<Long> tickAt,
      ValueState<Long> holdAt,
      Timer tick) {
    buffer(event, pending, tickAt, holdAt, tick, LogOrder::holdOf);
  }

  /**
   * {@link #buffer(TimedEvent, BagState, ValueState, ValueState, Timer)} holding each waiting event
   * at {@code holdOf} ({@link #buffer(TimedEvent, BagState, Long, Long, Timer, ToLongFunction)}).
   */
  public static void buffer(
      TimedEvent event,
      BagState<TimestampedValue<TimedEvent>> pending,
      ValueState<Long> tickAt,
      ValueState<Long> holdAt,
      Timer tick,
      ToLongFunction<TimestampedValue<TimedEvent>> holdOf) {
    long[] moved = buffer(event, pending, tickAt.read(), holdAt.read(), tick, holdOf);
    if (moved != null) {
      tickAt.write(moved[0]);
      holdAt.write(moved[1]);
    }
  }

  /**
   * Keeps what {@link #fire} left in {@code tickAt} and {@code holdAt} (cleared when no tick is
   * set), for a stage that keeps them in two value cells.
   */
  public static void keep(Fired fired, ValueState<Long> tickAt, ValueState<Long> holdAt) {
    if (fired.at() == null) {
      tickAt.clear();
      holdAt.clear();
    } else {
      tickAt.write(fired.at());
      holdAt.write(fired.hold());
    }
  }

  /**
   * Sets the tick for {@code fire} with the one timer rule: held at {@code hold}, or at {@code
   * fire} when nothing is held (never without an output timestamp; see the class comment). Returns
   * the {@code {at, hold}} to keep.
   */
  public static long[] setTick(Timer tick, long fire, @Nullable Long hold) {
    long h = hold == null ? fire : Math.min(hold, fire);
    tick.withOutputTimestamp(new Instant(h)).set(new Instant(fire));
    return new long[] {fire, h};
  }

  /**
   * One firing of a key's tick at {@code now} (the input watermark is at least this): applies the
   * due events and passes the due edges in the engine's order, keeps the others buffered and sets
   * the tick again for the next due event or edge (or leaves it unset).
   */
  public static Fired fire(
      BagState<TimestampedValue<TimedEvent>> pending, long now, Handler handler, Timer tick)
      throws Exception {
    return fire(pending, now, handler, tick, LogOrder::holdOf);
  }

  /**
   * {@link #fire(BagState, long, Handler, Timer)} holding each event left waiting at {@code holdOf}
   * (as {@link #buffer(TimedEvent, BagState, Long, Long, Timer, ToLongFunction)} does).
   */
  public static Fired fire(
      BagState<TimestampedValue<TimedEvent>> pending,
      long now,
      Handler handler,
      Timer tick,
      ToLongFunction<TimestampedValue<TimedEvent>> holdOf)
      throws Exception {
    List<TimestampedValue<TimedEvent>> buffered = new ArrayList<>();
    pending.read().forEach(buffered::add);
    buffered.sort(LogOrder.LOG_ORDER);
    boolean[] applied = new boolean[buffered.size()];
    int appliedCount = 0;
    while (true) {
      Long edge = handler.edgeDue(now);
      int pick = -1;
      boolean blocked = false;
      for (int j = 0; j < buffered.size(); j++) {
        if (applied[j]) {
          continue;
        }
        boolean due = buffered.get(j).getTimestamp().getMillis() < now;
        if (edge == null) {
          pick = due ? j : -1;
          break;
        }
        // An event that arrived while its partition's watermark was behind the edge comes first;
        // one of them not yet due holds the edge back (its stamp is later than its arrival).
        if (LogOrder.arrivalOf(buffered.get(j).getValue()) < edge) {
          pick = due ? j : -1;
          blocked = !due;
          break;
        }
      }
      if (pick >= 0) {
        handler.apply(buffered.get(pick).getValue());
        applied[pick] = true;
        appliedCount++;
      } else if (edge != null && !blocked) {
        handler.passEdge(edge);
      } else {
        break;
      }
    }
    if (appliedCount > 0) {
      pending.clear();
    }
    Long hold = null;
    Long nextDue = null;
    Long earliestArrival = null;
    int waiting = 0;
    for (int j = 0; j < buffered.size(); j++) {
      if (applied[j]) {
        continue;
      }
      TimestampedValue<TimedEvent> e = buffered.get(j);
      if (appliedCount > 0) {
        pending.add(e);
      }
      waiting++;
      long holdFor = holdOf.applyAsLong(e);
      hold = hold == null ? holdFor : Math.min(hold, holdFor);
      long arrival = LogOrder.arrivalOf(e.getValue());
      earliestArrival = earliestArrival == null ? arrival : Math.min(earliestArrival, arrival);
      long dueAt = e.getTimestamp().getMillis() + 1;
      if (dueAt > now) { // a due event left here waits for the one that holds its edge back
        nextDue = nextDue == null ? dueAt : Math.min(nextDue, dueAt);
      }
    }
    Long fire = nextDue;
    Long edge = handler.nextEdge(now);
    if (edge != null) {
      fire = fire == null ? edge : Math.min(fire, edge);
    }
    Long held = handler.hold();
    if (held != null) {
      hold = hold == null ? held : Math.min(hold, held);
    }
    long[] set = fire == null ? null : setTick(tick, fire, hold);
    return new Fired(set, waiting, earliestArrival);
  }

  /** What one firing left: the tick as set again, and the events still buffered. */
  public static final class Fired {
    private final long @Nullable [] tick;
    private final int waiting;
    private final @Nullable Long earliestWaitingArrival;

    Fired(long @Nullable [] tick, int waiting, @Nullable Long earliestWaitingArrival) {
      this.tick = tick;
      this.waiting = waiting;
      this.earliestWaitingArrival = earliestWaitingArrival;
    }

    /** The tick's new time (millis), or null when no tick is set. */
    public @Nullable Long at() {
      return tick == null ? null : tick[0];
    }

    /** The tick's new hold (millis), or null when no tick is set. */
    public @Nullable Long hold() {
      return tick == null ? null : tick[1];
    }

    /** Whether events are still buffered. */
    public boolean waiting() {
      return waiting > 0;
    }

    /**
     * The smallest partition watermark at arrival among the events still buffered, or null when
     * none is: no event still to come arrived earlier.
     */
    public @Nullable Long earliestWaitingArrival() {
      return earliestWaitingArrival;
    }
  }
}
