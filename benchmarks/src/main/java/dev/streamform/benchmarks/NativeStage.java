package dev.streamform.benchmarks;

import dev.streamform.transforms.changelog.Accumulators;
import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.ClockCoders;
import dev.streamform.transforms.clock.KeyedEngine;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.EnvelopeCoder;
import dev.streamform.transforms.envelope.SourceRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.runners.flink.translation.types.CoderTypeInformation;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.coders.RowCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.Row;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.functions.source.RichParallelSourceFunction;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.util.Collector;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * {@code sf-native} — a prototype of issue 31's next lever, not a product path: the
 * customer_metrics changelog under streamform's contract (docs/semantics.md §2–§3: each partition's
 * own clock, late events dropped, retention decided from the event's partition watermark at
 * arrival, state freed by one event-time timer per key) written as native Flink operators instead
 * of through Beam's Flink runner. It reuses streamform's own pieces where they are plain Java — the
 * records ({@link SourceRecord}, {@link Envelope}, {@link TimedEvent}), the aggregates ({@link
 * Accumulators}), the key text ({@link KeyedEngine#keyText}) and the coders of the shuffle ({@link
 * ClockCoders.TimedEventCoder}, through Beam's {@link CoderTypeInformation}) — so what differs from
 * the {@code sf-arrival} row is Beam's runner machinery, not the work per event.
 *
 * <p>Shape: a parallel source reading its partitions in offset order (as {@link
 * NativeFlink.Partitions} and Beam's source reader do) and emitting, as KafkaIO's reader does, the
 * minimum over its partitions of {@code max event time - 5m} as its watermark; the clock chained to
 * it (no shuffle: a source subtask owns its partitions, so the clock needs no state keyed by
 * partition); {@code keyBy} the key text; the keyed stage applying each event on arrival (Flink
 * keeps a key's order from one subtask to another) with one {@code ValueState} per key; a counting
 * sink. The clock lives in operator memory, not in checkpointed state: a prototype, measured for
 * speed and checked for answers, not a job to restore.
 *
 * <p>Equal to the oracle in values is checked by the benchmark every round and, over several seeds
 * and partition counts, by {@code NativeStageTest} (differential against {@link OracleLoop}).
 */
final class NativeStage {
  private NativeStage() {}

  /** Runs the prototype over {@code w} on a local Flink at {@code parallelism}; its counters. */
  static Map<String, Long> run(Workload w, Schema schema, int parallelism) throws Exception {
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironment(parallelism, LiveMetrics.configuration());
    env.getConfig().enableObjectReuse();
    var options = PipelineOptionsFactory.create();
    ClockCoders.TimedEventCoder coder = ClockCoders.TimedEventCoder.of(EnvelopeCoder.of(schema));
    Accumulators accumulators =
        new Accumulators(schema, List.of(Aggregation.sum("amount").as("total_spend")));
    env.addSource(
            new Records(w.events, w.partitions, w.seed, schema),
            "orders",
            new CoderTypeInformation<>(EnvelopeCoder.of(schema), options))
        .process(new Clock(Workload.WATERMARK.toMillis()))
        .returns(new CoderTypeInformation<>(coder, options))
        .name("clock")
        .keyBy(e -> KeyedEngine.keyText(e.envelope().record(), List.of("customer_id")))
        .process(
            new Apply(
                accumulators,
                Workload.RETENTION.toMillis(),
                new CoderTypeInformation<>(
                    new CellCoder(RowCoder.of(accumulators.stateSchema())), options)))
        .returns(Long.class)
        .name("changelog")
        .sinkTo(new DiscardingSink<>());
    JobExecutionResult result = env.execute("sf-native customer_metrics");
    Map<String, Long> counters = new TreeMap<>();
    for (Map.Entry<String, Object> e : result.getAllAccumulatorResults().entrySet()) {
      counters.put(e.getKey(), (Long) e.getValue());
    }
    return counters;
  }

  /**
   * Source subtask {@code i} reads the partitions {@code p} with {@code p % parallelism == i}, one
   * record of each in turn, as envelopes with their event time; its watermark is the least over its
   * partitions of the largest event time read minus 5m (undefined until each has delivered).
   */
  static final class Records extends RichParallelSourceFunction<Envelope> {
    private final int events;
    private final int partitions;
    private final long seed;
    private final Schema schema;
    private volatile boolean running = true;

    Records(int events, int partitions, long seed, Schema schema) {
      this.events = events;
      this.partitions = partitions;
      this.seed = seed;
      this.schema = schema;
    }

    @Override
    public void run(SourceContext<Envelope> ctx) throws Exception {
      Workload w = Workload.of(events, partitions, seed);
      int subtask = getRuntimeContext().getIndexOfThisSubtask();
      int subtasks = getRuntimeContext().getNumberOfParallelSubtasks();
      int customer = schema.indexOf("customer_id");
      int amount = schema.indexOf("amount");
      int orderedAt = schema.indexOf("ordered_at");
      Object[] values = new Object[schema.getFieldCount()];
      long delay = Workload.WATERMARK.toMillis();
      // the largest event time read of each partition this subtask reads; the others stay at
      // Long.MAX_VALUE so they do not hold its watermark
      long[] largest = new long[partitions];
      java.util.Arrays.fill(largest, Long.MAX_VALUE);
      for (int p = subtask; p < partitions; p += subtasks) {
        largest[p] = Long.MIN_VALUE;
      }
      long[] emitted = {Long.MIN_VALUE};
      Instant ingest = Instant.now();
      NativeFlink.read(
          w,
          subtask,
          subtasks,
          () -> running,
          (p, i) -> {
            Instant t = new Instant(w.eventTime[i]);
            values[customer] = w.customerId[i];
            values[amount] = w.amount(i);
            values[orderedAt] = t;
            Row row = Row.withSchema(schema).attachValues(values.clone());
            Envelope e = Envelope.event(SourceRecord.of(p, w.offset[i], ingest, row), t);
            largest[p] = Math.max(largest[p], w.eventTime[i]);
            long least = Long.MAX_VALUE;
            for (long l : largest) {
              least = Math.min(least, l);
            }
            synchronized (ctx.getCheckpointLock()) {
              ctx.collectWithTimestamp(e, w.eventTime[i]);
              if (least != Long.MIN_VALUE && least - delay > emitted[0]) {
                emitted[0] = least - delay;
                ctx.emitWatermark(new Watermark(emitted[0]));
              }
            }
          });
    }

    @Override
    public void cancel() {
      running = false;
    }
  }

  /**
   * The clock of each partition, as {@code SourceClock} judges a partition read in offset order
   * with late events dropped: an event is late iff {@code W_p} is defined and its time is below it;
   * an on-time event carries {@code W_p} at its arrival and then advances it to {@code t - delay}.
   */
  static final class Clock extends ProcessFunction<Envelope, TimedEvent> {
    private static final long START = BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis();
    private final long delay;
    private final LongCounter late = new LongCounter();
    private transient Map<Integer, Long> watermark;
    private transient Map<Integer, Long> floor;

    Clock(long delay) {
      this.delay = delay;
    }

    @Override
    public void open(Configuration parameters) {
      getRuntimeContext().addAccumulator("late_events_dropped", late);
      watermark = new HashMap<>();
      floor = new HashMap<>();
    }

    @Override
    public void processElement(Envelope e, Context ctx, Collector<TimedEvent> out) {
      int p = e.partition();
      Long w = watermark.get(p);
      long t = e.eventTime().getMillis();
      if (w != null && t < w) {
        late.add(1);
        return;
      }
      long stamp = Math.max(floor.getOrDefault(p, START), w == null ? START : w);
      floor.put(p, stamp);
      out.collect(TimedEvent.of(e, w == null ? null : new Instant(w), false, new Instant(stamp)));
      watermark.put(p, w == null ? t - delay : Math.max(w, t - delay));
    }
  }

  /** A key's state in one cell: its aggregate, latest event time and the armed timer's time. */
  static final class Cell {
    final @Nullable Row aggregate;
    final long latest;
    final long timerAt; // Long.MIN_VALUE: none armed

    Cell(@Nullable Row aggregate, long latest, long timerAt) {
      this.aggregate = aggregate;
      this.latest = latest;
      this.timerAt = timerAt;
    }
  }

  /** {@link Cell}'s coder: the aggregate row, then the two times. */
  static final class CellCoder extends CustomCoder<Cell> {
    private final Coder<Row> rows;

    CellCoder(Coder<Row> rows) {
      this.rows = rows;
    }

    @Override
    public void encode(Cell cell, OutputStream out) throws IOException {
      rows.encode(cell.aggregate, out);
      VarLongCoder.of().encode(cell.latest, out);
      VarLongCoder.of().encode(cell.timerAt, out);
    }

    @Override
    public Cell decode(InputStream in) throws IOException {
      return new Cell(rows.decode(in), VarLongCoder.of().decode(in), VarLongCoder.of().decode(in));
    }
  }

  /**
   * The keyed stage, on arrival: what {@code KeyedChangelog}'s {@code appliedOnArrival()} does per
   * event — state gone if the event's partition watermark at arrival reached {@code latest +
   * retention}, then the event applied and its record emitted — and one timer per key that only
   * frees memory, armed when none is and moved once when it fires before the key's deadline. Emits
   * each record's value digest (as the benchmark's sinks compute it).
   */
  static final class Apply extends KeyedProcessFunction<String, TimedEvent, Long> {
    private final Accumulators accumulators;
    private final long retention;
    private final CoderTypeInformation<Cell> cellType;
    private final LongCounter processed = new LongCounter();
    private final LongCounter outputs = new LongCounter();
    private final LongCounter inserts = new LongCounter();
    private final LongCounter digest = new LongCounter();
    private final LongCounter expired = new LongCounter();
    private final LongCounter expiredBeforeEnd = new LongCounter();
    private final LongCounter timersSet = new LongCounter();
    private transient ValueState<Cell> cells;
    private transient org.apache.flink.metrics.Counter live;

    Apply(Accumulators accumulators, long retention, CoderTypeInformation<Cell> cellType) {
      this.accumulators = accumulators;
      this.retention = retention;
      this.cellType = cellType;
    }

    @Override
    public void open(Configuration parameters) {
      cells = getRuntimeContext().getState(new ValueStateDescriptor<>("key", cellType));
      getRuntimeContext().addAccumulator("processed", processed);
      getRuntimeContext().addAccumulator("outputs", outputs);
      getRuntimeContext().addAccumulator("inserts", inserts);
      getRuntimeContext().addAccumulator("values_digest", digest);
      getRuntimeContext().addAccumulator("keys_expired", expired);
      getRuntimeContext().addAccumulator("keys_expired_before_end", expiredBeforeEnd);
      getRuntimeContext().addAccumulator("timers_set", timersSet);
      live = getRuntimeContext().getMetricGroup().counter("keys_live");
    }

    @Override
    public void processElement(TimedEvent event, Context ctx, Collector<Long> out)
        throws Exception {
      Cell cell = cells.value();
      Row aggregate = cell == null ? null : cell.aggregate;
      long latest = cell == null ? Long.MIN_VALUE : cell.latest;
      long timerAt = cell == null ? Long.MIN_VALUE : cell.timerAt;
      Instant w = event.watermarkAtArrival();
      if (aggregate != null && w != null && w.getMillis() >= latest + retention) {
        expired.add(1); // gone before this event arrived; the timer had not come round yet
        live.dec();
        aggregate = null;
        latest = Long.MIN_VALUE;
      }
      boolean insert = aggregate == null;
      if (insert) {
        live.inc();
        inserts.add(1);
      }
      Envelope envelope = event.envelope();
      aggregate = accumulators.add(aggregate, envelope.record());
      latest = Math.max(latest, envelope.eventTime().getMillis());
      if (timerAt == Long.MIN_VALUE) {
        timerAt = latest + retention;
        ctx.timerService().registerEventTimeTimer(timerAt);
        timersSet.add(1);
      }
      cells.update(new Cell(aggregate, latest, timerAt));
      processed.add(1);
      outputs.add(1);
      long d =
          BeamPipelines.valuesDigest(
              envelope.eventId(),
              insert ? "INSERT" : "UPDATE",
              envelope.record().getValue("customer_id"),
              accumulators.output(aggregate).getValue(0));
      digest.add(d);
      out.collect(d);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Long> out) throws Exception {
      Cell cell = cells.value();
      if (cell == null || cell.aggregate == null) {
        return;
      }
      long deadline = cell.latest + retention;
      if (deadline <= ctx.timerService().currentWatermark()) {
        cells.clear();
        live.dec();
        expired.add(1);
        // the end of input fires every timer at Long.MAX_VALUE: that is not retention at work
        if (ctx.timerService().currentWatermark() < Long.MAX_VALUE) {
          expiredBeforeEnd.add(1);
        }
      } else {
        // the key was touched since the timer was armed: move it once, to the deadline now
        ctx.timerService().registerEventTimeTimer(deadline);
        timersSet.add(1);
        cells.update(new Cell(cell.aggregate, cell.latest, deadline));
      }
    }
  }
}
