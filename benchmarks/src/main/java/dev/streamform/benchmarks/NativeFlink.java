package dev.streamform.benchmarks;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.functions.source.RichParallelSourceFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.time.Time;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * {@code native-flink}: the customer_metrics changelog written the way a Flink user writes it — a
 * parallel source reading its partitions in order, {@code
 * WatermarkStrategy.forBoundedOutOfOrderness(5m)} per source subtask, {@code keyBy(customer_id)},
 * and a {@link KeyedProcessFunction} with two {@code ValueState}s (sum, latest event time), late
 * events to a side output, and an event-time timer per key at {@code latest + retention} that
 * clears its state. Local MiniCluster at the given parallelism, heap state backend (the default).
 *
 * <p>It is not the same contract: Flink's watermark is periodic (every 200 ms of processing time)
 * and the minimum over the operator's inputs, so what is late, and when a key expires, depends on
 * timing — which is why its late count differs from the others.
 *
 * <p>Counts come back as accumulators: processed, late, outputs, inserts, and keys expired by a
 * watermark before the end of input ({@code live keys = inserts - expired}).
 */
final class NativeFlink {
  private NativeFlink() {}

  /** One order, as a Flink POJO. */
  public static final class Order {
    public long customerId;
    public BigDecimal amount;
    public long orderedAt;
    public int partition;
    public long offset;

    public Order() {}
  }

  /** One changelog record. */
  public static final class Change {
    public boolean insert;
    public long customerId;
    public BigDecimal totalSpend;

    public Change() {}
  }

  static Map<String, Long> run(Workload w, int parallelism) throws Exception {
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironment(parallelism, LiveMetrics.configuration());
    OutputTag<Order> late = new OutputTag<>("late") {};
    SingleOutputStreamOperator<Change> changes =
        env.addSource(new Partitions(w.events, w.partitions, w.seed))
            .name("orders")
            .assignTimestampsAndWatermarks(
                WatermarkStrategy.<Order>forBoundedOutOfOrderness(Workload.WATERMARK)
                    .withTimestampAssigner((o, previous) -> o.orderedAt))
            .keyBy(o -> o.customerId)
            .process(new CustomerMetrics(late, Workload.RETENTION.toMillis()));
    changes.sinkTo(new DiscardingSink<>());
    changes.getSideOutput(late).sinkTo(new DiscardingSink<>());
    JobExecutionResult result = env.execute("native-flink customer_metrics");
    return counters(result);
  }

  private static Map<String, Long> counters(JobExecutionResult result) {
    Map<String, Long> counters = new TreeMap<>();
    for (Map.Entry<String, Object> e : result.getAllAccumulatorResults().entrySet()) {
      counters.put(e.getKey(), (Long) e.getValue());
    }
    Long sum = counters.remove("state_bytes_sum");
    Long samples = counters.get("state_bytes_samples");
    if (sum != null && samples != null && samples > 0) {
      counters.put("state_bytes_per_key", Math.round((double) sum / samples));
    }
    return counters;
  }

  /**
   * {@code native-flink} windowed: the hourly sums as a Flink user writes them — {@code
   * keyBy(customer_id).window(TumblingEventTimeWindows.of(1h)).allowedLateness(30m)
   * .sideOutputLateData(late)}, an incremental sum and a window function that counts firings (the
   * default trigger fires at the watermark and again for every late element within the lateness).
   * Live windows: +1 at a window's first firing, -1 when Flink purges it ({@code clear}).
   */
  static Map<String, Long> runWindowed(Workload w, int parallelism) throws Exception {
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironment(parallelism, LiveMetrics.configuration());
    OutputTag<Order> late = new OutputTag<>("late") {};
    SingleOutputStreamOperator<BigDecimal> sums =
        env.addSource(new Partitions(w.events, w.partitions, w.seed))
            .name("orders")
            .assignTimestampsAndWatermarks(
                WatermarkStrategy.<Order>forBoundedOutOfOrderness(Workload.WATERMARK)
                    .withTimestampAssigner((o, previous) -> o.orderedAt))
            .keyBy(o -> o.customerId)
            .window(TumblingEventTimeWindows.of(Time.hours(1)))
            .allowedLateness(Time.minutes(30))
            .sideOutputLateData(late)
            .aggregate(new SumAmount(), new CountFirings());
    sums.sinkTo(new DiscardingSink<>());
    sums.getSideOutput(late).map(new CountLate()).sinkTo(new DiscardingSink<>());
    return counters(env.execute("native-flink hourly_revenue"));
  }

  /** Sum of amounts. */
  static final class SumAmount implements AggregateFunction<Order, BigDecimal, BigDecimal> {
    @Override
    public BigDecimal createAccumulator() {
      return BigDecimal.ZERO;
    }

    @Override
    public BigDecimal add(Order o, BigDecimal sum) {
      return sum.add(o.amount);
    }

    @Override
    public BigDecimal getResult(BigDecimal sum) {
      return sum;
    }

    @Override
    public BigDecimal merge(BigDecimal a, BigDecimal b) {
      return a.add(b);
    }
  }

  /** Counts firings (outputs, first and late) and live windows. */
  static final class CountFirings
      extends ProcessWindowFunction<BigDecimal, BigDecimal, Long, TimeWindow> {
    private final LongCounter outputs = new LongCounter();
    private final LongCounter lateFirings = new LongCounter();
    private transient org.apache.flink.metrics.Counter live;
    private static final ValueStateDescriptor<Boolean> FIRED =
        new ValueStateDescriptor<>("fired", Boolean.class);

    @Override
    public void open(Configuration parameters) {
      getRuntimeContext().addAccumulator("outputs", outputs);
      getRuntimeContext().addAccumulator("late_firings", lateFirings);
      live = getRuntimeContext().getMetricGroup().counter("windows_live");
    }

    @Override
    public void process(Long key, Context ctx, Iterable<BigDecimal> sums, Collector<BigDecimal> out)
        throws Exception {
      ValueState<Boolean> fired = ctx.windowState().getState(FIRED);
      if (fired.value() == null) {
        fired.update(true);
        live.inc();
      } else {
        lateFirings.add(1);
      }
      outputs.add(1);
      out.collect(sums.iterator().next());
    }

    @Override
    public void clear(Context ctx) throws Exception {
      ValueState<Boolean> fired = ctx.windowState().getState(FIRED);
      if (fired.value() != null) {
        live.dec();
      }
      fired.clear();
    }
  }

  /** Counts the late side output. */
  static final class CountLate
      extends org.apache.flink.api.common.functions.RichMapFunction<Order, Order> {
    private final LongCounter late = new LongCounter();

    @Override
    public void open(Configuration parameters) {
      getRuntimeContext().addAccumulator("late_events_dropped", late);
    }

    @Override
    public Order map(Order o) {
      late.add(1);
      return o;
    }
  }

  /** What a source subtask does with one record: its partition and its index in the workload. */
  interface Reader {
    void read(int partition, int index) throws Exception;
  }

  /**
   * Reads the partitions {@code p} with {@code p % subtasks == subtask} in offset order,
   * interleaved one record at a time as the Beam runner's source reader round-robins its splits
   * (read one after the other, the second partition would be all late behind the first one's
   * watermark at parallelism 1), while {@code running}; counts what it read ({@link
   * WorkloadSource#READ}).
   */
  static void read(
      Workload w, int subtask, int subtasks, java.util.function.BooleanSupplier running, Reader r)
      throws Exception {
    List<Integer> mine = new ArrayList<>();
    for (int p = subtask; p < w.partitions; p += subtasks) {
      mine.add(p);
    }
    int[] next = new int[w.partitions];
    boolean more = true;
    while (more && running.getAsBoolean()) {
      more = false;
      for (int p : mine) {
        if (next[p] >= w.byPartition[p].length) {
          continue;
        }
        more = true;
        r.read(p, w.byPartition[p][next[p]++]);
        WorkloadSource.READ.incrementAndGet();
        if (p < WorkloadSource.READ_BY_PARTITION.length()) {
          WorkloadSource.READ_BY_PARTITION.incrementAndGet(p);
        }
      }
    }
  }

  /** Source subtask {@code i} reads the partitions {@code p} with {@code p % parallelism == i}. */
  static final class Partitions extends RichParallelSourceFunction<Order> {
    private final int events;
    private final int partitions;
    private final long seed;
    private volatile boolean running = true;

    Partitions(int events, int partitions, long seed) {
      this.events = events;
      this.partitions = partitions;
      this.seed = seed;
    }

    @Override
    public void run(SourceContext<Order> ctx) throws Exception {
      Workload w = Workload.of(events, partitions, seed);
      read(
          w,
          getRuntimeContext().getIndexOfThisSubtask(),
          getRuntimeContext().getNumberOfParallelSubtasks(),
          () -> running,
          (p, i) -> {
            Order o = new Order();
            o.customerId = w.customerId[i];
            o.amount = w.amount(i);
            o.orderedAt = w.eventTime[i];
            o.partition = p;
            o.offset = w.offset[i];
            synchronized (ctx.getCheckpointLock()) {
              ctx.collect(o);
            }
          });
    }

    @Override
    public void cancel() {
      running = false;
    }
  }

  /** Sum per customer with event-time retention. */
  static final class CustomerMetrics extends KeyedProcessFunction<Long, Order, Change> {
    private final OutputTag<Order> lateTag;
    private final long retention;
    private transient ValueState<BigDecimal> total;
    private transient ValueState<Long> latest;
    private final LongCounter processed = new LongCounter();
    private final LongCounter late = new LongCounter();
    private final LongCounter outputs = new LongCounter();
    private final LongCounter inserts = new LongCounter();
    private final LongCounter expired = new LongCounter();
    private transient org.apache.flink.metrics.Counter live;
    private transient int writes;
    private transient org.apache.flink.core.memory.DataOutputSerializer bytes;

    CustomerMetrics(OutputTag<Order> lateTag, long retention) {
      this.lateTag = lateTag;
      this.retention = retention;
    }

    @Override
    public void open(Configuration parameters) {
      total = getRuntimeContext().getState(new ValueStateDescriptor<>("total", BigDecimal.class));
      latest = getRuntimeContext().getState(new ValueStateDescriptor<>("latest", Long.class));
      getRuntimeContext().addAccumulator("processed", processed);
      getRuntimeContext().addAccumulator("late_events_dropped", late);
      getRuntimeContext().addAccumulator("outputs", outputs);
      getRuntimeContext().addAccumulator("inserts", inserts);
      getRuntimeContext().addAccumulator("keys_expired_before_end", expired);
      live = getRuntimeContext().getMetricGroup().counter("keys_live");
      bytes = new org.apache.flink.core.memory.DataOutputSerializer(64);
      getRuntimeContext().addAccumulator("state_bytes_sum", stateBytesSum);
      getRuntimeContext().addAccumulator("state_bytes_samples", stateBytesSamples);
    }

    private final LongCounter stateBytesSum = new LongCounter();
    private final LongCounter stateBytesSamples = new LongCounter();

    @Override
    public void processElement(Order o, Context ctx, Collector<Change> out) throws Exception {
      if (ctx.timestamp() < ctx.timerService().currentWatermark()) {
        late.add(1);
        ctx.output(lateTag, o);
        return;
      }
      processed.add(1);
      BigDecimal sum = total.value();
      Long before = latest.value();
      long now = before == null ? o.orderedAt : Math.max(before, o.orderedAt);
      if (before == null || now != before) {
        if (before != null) {
          ctx.timerService().deleteEventTimeTimer(before + retention);
        }
        ctx.timerService().registerEventTimeTimer(now + retention);
        latest.update(now);
      }
      Change c = new Change();
      c.insert = sum == null;
      c.customerId = o.customerId;
      c.totalSpend = sum == null ? o.amount : sum.add(o.amount);
      total.update(c.totalSpend);
      outputs.add(1);
      if (c.insert) {
        inserts.add(1);
        live.inc();
      }
      if (++writes % 256 == 0) {
        // as streamform's StateBytes: the key and its state cells, serialized as the heap
        // backend's checkpoint writes them (key, sum, latest; the timer not counted)
        bytes.clear();
        org.apache.flink.api.common.typeutils.base.LongSerializer.INSTANCE.serialize(
            o.customerId, bytes);
        org.apache.flink.api.common.typeutils.base.BigDecSerializer.INSTANCE.serialize(
            c.totalSpend, bytes);
        org.apache.flink.api.common.typeutils.base.LongSerializer.INSTANCE.serialize(now, bytes);
        stateBytesSum.add(bytes.length());
        stateBytesSamples.add(1);
      }
      out.collect(c);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Change> out) {
      total.clear();
      latest.clear();
      live.dec();
      // the end of input fires every timer at Long.MAX_VALUE: that is not retention at work
      if (ctx.timerService().currentWatermark() < Long.MAX_VALUE) {
        expired.add(1);
      }
    }
  }
}
