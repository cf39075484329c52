package dev.streamform.transforms.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.SourceRecord;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The engine's own rules, one firing at a time, without a runner: the order of events and edges
 * (ADR 0061) and the one timer rule (ADR 0060). The stages' behaviour is covered by their suites.
 */
class KeyedEngineTest {
  private static final Schema SCHEMA = Schema.builder().addStringField("id").build();

  /** A buffer in memory, as the runner's {@code BagState} behaves within one firing. */
  private final List<TimestampedValue<TimedEvent>> buffer = new ArrayList<>();

  /** Each call on the tick, as text: {@code hold 15}, {@code noHold}, {@code set 16}. */
  private final List<String> tickCalls = new ArrayList<>();

  @SuppressWarnings("unchecked")
  private final BagState<TimestampedValue<TimedEvent>> bag =
      fake(
          BagState.class,
          (proxy, method, args) -> {
            switch (method.getName()) {
              case "read":
                return new ArrayList<>(buffer);
              case "add":
                buffer.add((TimestampedValue<TimedEvent>) args[0]);
                return null;
              case "clear":
                buffer.clear();
                return null;
              default:
                throw new UnsupportedOperationException(method.getName());
            }
          });

  private final Timer tick =
      fake(
          Timer.class,
          (proxy, method, args) -> {
            switch (method.getName()) {
              case "withNoOutputTimestamp":
                tickCalls.add("noHold");
                return proxy;
              case "withOutputTimestamp":
                tickCalls.add("hold " + ((Instant) args[0]).getMillis());
                return proxy;
              case "set":
                tickCalls.add("set " + ((Instant) args[0]).getMillis());
                return null;
              default:
                throw new UnsupportedOperationException(method.getName());
            }
          });

  /** A runner's state cell or timer, played in memory by {@code behaviour}. */
  @SuppressWarnings("unchecked")
  private static <T> T fake(Class<?> type, InvocationHandler behaviour) {
    return (T)
        Proxy.newProxyInstance(
            KeyedEngineTest.class.getClassLoader(), new Class<?>[] {type}, behaviour);
  }

  /** An event of {@code partition} at {@code offset}: time, watermark at arrival, stamp. */
  private static TimedEvent event(
      String id, int partition, long offset, long time, @Nullable Long arrival, long stamp) {
    Row row = Row.withSchema(SCHEMA).addValue(id).build();
    Envelope envelope =
        Envelope.event(SourceRecord.of(partition, offset, new Instant(0), row), new Instant(time));
    return TimedEvent.of(
        envelope, arrival == null ? null : new Instant(arrival), false, new Instant(stamp));
  }

  /** A handler with one edge, which writes down what it was given, in order. */
  private static final class Recorder implements KeyedEngine.Handler {
    final List<String> seen = new ArrayList<>();
    @Nullable Long edge;
    @Nullable Long held;

    Recorder(@Nullable Long edge) {
      this.edge = edge;
    }

    @Override
    public void apply(TimedEvent event) {
      seen.add(event.envelope().record().getString("id"));
    }

    @Override
    public @Nullable Long edgeDue(long now) {
      return edge != null && edge <= now ? edge : null;
    }

    @Override
    public void passEdge(long at) {
      seen.add("edge " + at);
      edge = null;
    }

    @Override
    public @Nullable Long nextEdge(long now) {
      return edge != null && edge > now ? edge : null;
    }

    @Override
    public @Nullable Long hold() {
      return held;
    }
  }

  private void buffer(TimedEvent e) {
    KeyedEngine.buffer(e, bag, (Long) null, (Long) null, tick);
  }

  @Test
  void eventsThatArrivedBeforeAnEdgeComeBeforeItEvenWhenLaterInLogOrder() throws Exception {
    // a: arrived at 30, after the edge at 20; b: arrived while its partition had no watermark,
    // stamped later than a by its partition's first item (a partition not declared up front)
    buffer(event("a", 0, 0, 35, 30L, 30));
    buffer(event("b", 1, 0, 15, null, 40));
    Recorder handler = new Recorder(20L);
    KeyedEngine.Fired fired = KeyedEngine.fire(bag, 50, handler, tick);
    assertEquals(List.of("b", "edge 20", "a"), handler.seen);
    assertFalse(fired.waiting());
    assertNull(fired.at(), "nothing waits and no edge is left: no tick");
  }

  @Test
  void anEventThatArrivedBeforeTheEdgeAndIsNotDueHoldsTheEdgeBack() throws Exception {
    buffer(event("a", 0, 0, 35, 30L, 30)); // due at 31
    buffer(event("b", 1, 0, 15, null, 60)); // arrived before the edge, due only at 61
    Recorder handler = new Recorder(20L);
    tickCalls.clear();
    KeyedEngine.Fired fired = KeyedEngine.fire(bag, 50, handler, tick);
    assertEquals(List.of(), handler.seen, "a waits behind the edge, the edge behind b");
    assertEquals(61L, fired.at());
    assertEquals(15L, fired.hold(), "held at the earlier of b's stamp and event time");
    assertEquals(2, buffer.size());
    handler.seen.clear();
    KeyedEngine.fire(bag, 61, handler, tick);
    assertEquals(List.of("b", "edge 20", "a"), handler.seen);
  }

  @Test
  void theTickAlwaysCarriesAnOutputTimestampItsOwnTimeWhenNothingIsHeld() throws Exception {
    buffer(event("a", 0, 0, 10, 5L, 5));
    Recorder handler = new Recorder(100L); // an expiry ahead, nothing held by the state
    tickCalls.clear();
    KeyedEngine.Fired fired = KeyedEngine.fire(bag, 6, handler, tick);
    assertEquals(List.of("a"), handler.seen);
    assertEquals(List.of("hold 100", "set 100"), tickCalls);
    assertEquals(100L, fired.at());
    assertEquals(100L, fired.hold());
    handler.held = 70L; // a window waiting for revision 1 holds before its end
    tickCalls.clear();
    KeyedEngine.fire(bag, 6, handler, tick);
    assertEquals(List.of("hold 70", "set 100"), tickCalls);
  }
}
