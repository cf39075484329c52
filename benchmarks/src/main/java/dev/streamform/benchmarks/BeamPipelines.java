package dev.streamform.benchmarks;

import dev.streamform.pipelines.SourceResult;
import dev.streamform.pipelines.kafka.KafkaModelPipeline;
import dev.streamform.pipelines.kafka.KafkaRecordDecoding;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.transforms.StreamformMetrics;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowRevision;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.BigDecimalCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.AfterPane;
import org.apache.beam.sdk.transforms.windowing.AfterWatermark;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;

/**
 * The Beam pipelines of the benchmark, on the DirectRunner or on the Flink runner embedded at
 * parallelism 2 (streaming mode), all reading the {@link Workload} through the same source, as
 * Kafka records decoded the way {@code run} decodes them ({@link #read}):
 *
 * <ul>
 *   <li>{@code streamform}: what {@code run} builds between its source and its sinks for the model
 *       {@code customer_metrics} (event time, the log clock: 5m, dropping late events, and the
 *       changelog: sum of amount, retention 1h), on arrival on Flink and in log order on the
 *       DirectRunner; the other path on Flink, log order, is measured beside it;
 *   <li>{@code plain-beam}: the same sum the way a Beam user writes it without a clock: global
 *       window, a trigger firing on every element, accumulating panes, {@code Combine.perKey}.
 * </ul>
 *
 * <p>Source on Flink: {@link WorkloadSource}, an unbounded source with one split per partition,
 * each read in offset order as KafkaIO reads it, each with a watermark (largest event time read
 * minus 5m) that moves during the run, so retention and windows' edges fire as the data goes. On
 * the DirectRunner: a DoFn reading each partition in order, with no watermark until the end.
 *
 * <p>The windowed pipelines: {@code streamform} with the planner's {@code hourly_revenue} (hourly
 * windows per customer, allowed lateness 30m); {@code beam-windowing}, Beam's own: {@code
 * Window.into(FixedWindows.of(1h)).triggering(AfterWatermark.pastEndOfWindow().withLateFirings(
 * AfterPane.elementCountAtLeast(1))).withAllowedLateness(30m).accumulatingFiredPanes()} and {@code
 * Combine.perKey} — its lateness is judged against the runner's watermark, not per partition.
 */
final class BeamPipelines {
  static final String NAMESPACE = "benchmark";

  private BeamPipelines() {}

  static PipelineOptions direct() {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    return options;
  }

  /** Where {@link LiveMetrics#confDir} wrote the embedded cluster's configuration. */
  static java.nio.file.Path flinkConfDir = java.nio.file.Path.of("benchmarks/target/flink-conf");

  /** Flink object reuse in the Beam runner (the runner profiles' {@code objectReuse}). */
  static boolean objectReuse = false;

  static PipelineOptions flink(int parallelism) {
    return flink(parallelism, objectReuse);
  }

  /**
   * The Flink runner's options as {@code streamform run} sets them ({@link RunnerChoice#options()},
   * object reuse included), embedded in this JVM at {@code parallelism}, with the harness's metrics
   * reporter and source watermark interval (Flink's own default, 200 ms): the options of the rows
   * that measure what {@code run} runs (docs/decisions/0069).
   */
  static PipelineOptions asRun(int parallelism) {
    return withHarness(
        RunnerChoice.flinkLocal(parallelism).options().as(FlinkPipelineOptions.class));
  }

  /**
   * {@link #asRun(int)} with the sources' watermark every {@code watermarkMillis} and bundles of at
   * most {@code bundleSize} elements: a stage emits no watermark while a bundle is open, so both
   * bound how far the keyed stage's watermark trails the events it has applied.
   */
  static PipelineOptions asRun(int parallelism, long watermarkMillis, long bundleSize) {
    FlinkPipelineOptions options = (FlinkPipelineOptions) asRun(parallelism);
    options.setAutoWatermarkInterval(watermarkMillis);
    options.setMaxBundleSize(bundleSize);
    return options;
  }

  static PipelineOptions flink(int parallelism, boolean objectReuse) {
    FlinkPipelineOptions options = PipelineOptionsFactory.as(FlinkPipelineOptions.class);
    options.setRunner(FlinkRunner.class);
    options.setFlinkMaster("[local]");
    options.setParallelism(parallelism);
    options.setStreaming(true);
    options.setObjectReuse(objectReuse);
    return withHarness(options);
  }

  /**
   * The harness's part of every Flink row's options: the sources' watermark every 200 ms (Flink's
   * own default) and the configuration folder that registers {@link LiveMetrics}' reporter.
   */
  private static FlinkPipelineOptions withHarness(FlinkPipelineOptions options) {
    options.setAutoWatermarkInterval(200L);
    options.setFlinkConfDir(flinkConfDir.toString());
    return options;
  }

  /**
   * The workload as the records KafkaIO reads, each partition in offset order, with a watermark
   * ({@link WorkloadSource}), decoded by the model's source schema with {@link
   * KafkaRecordDecoding}, as {@code run} decodes what it reads.
   */
  static SourceResult read(Pipeline p, Workload w, DeclaredModel model) {
    PCollection<KafkaRecord<byte[], byte[]>> raw;
    if (p.getOptions().getRunner() == DirectRunner.class) {
      // The DirectRunner reads an unbounded source in small bundles, and every watermark step
      // fires waiting keys' timers as bundles of their own: 93 events/s against 121-161 with the
      // bounded read below (20,000 events, both measured at load 15-19). So on the DirectRunner
      // the workload is read as before: no watermark until the end of input, timers fire then.
      List<Integer> partitions = new ArrayList<>();
      for (int i = 0; i < w.partitions; i++) {
        partitions.add(i);
      }
      raw =
          p.apply("Partitions", Create.of(partitions).withCoder(VarIntCoder.of()))
              .apply("ReadPartition", ParDo.of(new ReadPartition(w.events, w.partitions, w.seed)))
              .setCoder(WorkloadSource.CODER);
    } else {
      raw = p.apply("ReadPartitions", Read.from(new WorkloadSource(w)));
    }
    return raw.apply(
        "Decode JSON", KafkaRecordDecoding.of(model.source().schema(), model.keyColumns()));
  }

  /** The decoded records of {@link #read}. */
  static PCollection<SourceRecord> source(Pipeline p, Workload w, DeclaredModel model) {
    return read(p, w, model).records();
  }

  /** The DirectRunner's source: emits the records of one partition in offset order. */
  static final class ReadPartition extends DoFn<Integer, KafkaRecord<byte[], byte[]>> {
    private final int events;
    private final int partitions;
    private final long seed;

    ReadPartition(int events, int partitions, long seed) {
      this.events = events;
      this.partitions = partitions;
      this.seed = seed;
    }

    @ProcessElement
    public void process(
        @Element Integer partition, OutputReceiver<KafkaRecord<byte[], byte[]>> out) {
      Workload w = Workload.of(events, partitions, seed);
      for (int i : w.byPartition[partition]) {
        out.output(WorkloadSource.record(w, i, System.currentTimeMillis()));
      }
    }
  }

  /**
   * The streamform pipeline as {@code run} builds it for the model in {@code benchmarks/project} on
   * this runner: the records decoded as read from Kafka, then the model's outputs ({@link
   * KafkaModelPipeline#outputs}: the topic's partitions declared to its log clock, the model's one
   * composite — event time, clock, duplicate detection if any, WHERE and changelog, the records
   * rendered as the sinks write them), applied on arrival where {@code run} applies it so ({@link
   * KafkaModelPipeline#appliesOnArrival}: on Flink) and in log order elsewhere.
   */
  static Pipeline streamform(PipelineOptions options, Workload w, DeclaredModel model) {
    return streamform(options, w, model, KafkaModelPipeline.appliesOnArrival(options));
  }

  /**
   * {@link #streamform(PipelineOptions, Workload, DeclaredModel)} with the changelog applied on
   * arrival when {@code onArrival}, in log order otherwise, whatever the runner: the other path,
   * measured beside the one {@code run} builds.
   */
  static Pipeline streamform(
      PipelineOptions options, Workload w, DeclaredModel model, boolean onArrival) {
    Pipeline p = Pipeline.create(options);
    KafkaModelPipeline.outputs(model, read(p, w, model), null, partitions(w), onArrival)
        .changelog()
        .apply("Sink", ParDo.of(new CountChanges()));
    return p;
  }

  /** The topic's partitions, as {@code run} declares them to the model's clock. */
  private static List<Integer> partitions(Workload w) {
    List<Integer> partitions = new ArrayList<>();
    for (int i = 0; i < w.partitions; i++) {
      partitions.add(i);
    }
    return partitions;
  }

  /**
   * The same chain written out by hand with another aggregate: the tests plant a wrong one with it
   * (the planner builds only what is declared).
   */
  static Pipeline streamform(
      PipelineOptions options, Workload w, DeclaredModel model, Aggregation total) {
    Pipeline p = Pipeline.create(options);
    source(p, w, model)
        .apply(EventTimeExtraction.from("ordered_at"))
        .events()
        .apply(
            SourceClock.forBoundedOutOfOrderness(Times.toJoda(Workload.WATERMARK))
                .droppingLateEvents())
        .events()
        .apply(
            KeyedChangelog.by("customer_id")
                .aggregating(total)
                .withRetention(Times.toJoda(Workload.RETENTION)))
        .apply("Sink", ParDo.of(new CountChanges()));
    return p;
  }

  static Pipeline plainBeam(PipelineOptions options, Workload w, DeclaredModel model) {
    Pipeline p = Pipeline.create(options);
    source(p, w, model)
        .apply(
            "ToKv",
            MapElements.into(
                    TypeDescriptors.kvs(TypeDescriptors.longs(), TypeDescriptors.bigdecimals()))
                .via(
                    (SourceRecord r) ->
                        KV.of(r.record().getInt64("customer_id"), r.record().getDecimal("amount"))))
        .setCoder(KvCoder.of(VarLongCoder.of(), BigDecimalCoder.of()))
        .apply(
            Window.<KV<Long, BigDecimal>>into(new GlobalWindows())
                .triggering(Repeatedly.forever(AfterPane.elementCountAtLeast(1)))
                .accumulatingFiredPanes()
                .withAllowedLateness(Duration.ZERO))
        .apply("Sum", Combine.perKey(new SumDecimals()))
        .apply("Sink", ParDo.of(new CountPanes()));
    return p;
  }

  /**
   * The windowed streamform pipeline as the planner builds it for {@code hourly_revenue}: the
   * model's composite ({@link DeclaredPipeline}) judged by its log clock; the sink counts and
   * digests every record.
   */
  static Pipeline streamformWindowed(PipelineOptions options, Workload w, DeclaredModel model) {
    Pipeline p = Pipeline.create(options);
    KafkaModelPipeline.outputs(
            model,
            read(p, w, model),
            null,
            partitions(w),
            KafkaModelPipeline.appliesOnArrival(options))
        .revisions()
        .apply("Sink", ParDo.of(new CountRevisions()));
    return p;
  }

  /** Beam's own windowing for the same hourly sums (see the class comment). */
  static Pipeline beamWindowing(PipelineOptions options, Workload w, DeclaredModel model) {
    Pipeline p = Pipeline.create(options);
    source(p, w, model)
        .apply(
            "ToKv",
            MapElements.into(
                    TypeDescriptors.kvs(TypeDescriptors.longs(), TypeDescriptors.bigdecimals()))
                .via(
                    (SourceRecord r) ->
                        KV.of(r.record().getInt64("customer_id"), r.record().getDecimal("amount"))))
        .setCoder(KvCoder.of(VarLongCoder.of(), BigDecimalCoder.of()))
        .apply(
            Window.<KV<Long, BigDecimal>>into(FixedWindows.of(Duration.standardHours(1)))
                .triggering(
                    AfterWatermark.pastEndOfWindow()
                        .withLateFirings(AfterPane.elementCountAtLeast(1)))
                .withAllowedLateness(Duration.standardMinutes(30))
                .accumulatingFiredPanes())
        .apply("Sum", Combine.perKey(new SumDecimals()))
        .apply("Sink", ParDo.of(new CountWindowPanes()));
    return p;
  }

  /** The sink of beam-windowing: panes by timing (on time, late). */
  static final class CountWindowPanes extends DoFn<KV<Long, BigDecimal>, Void> {
    private final Counter panes = Metrics.counter(NAMESPACE, "outputs");
    private final Counter onTime = Metrics.counter(NAMESPACE, "on_time_panes");
    private final Counter late = Metrics.counter(NAMESPACE, "late_panes");

    @ProcessElement
    public void process(@Element KV<Long, BigDecimal> pane, PaneInfo info) {
      panes.inc();
      if (info.getTiming() == PaneInfo.Timing.LATE) {
        late.inc();
      } else {
        onTime.inc();
      }
    }
  }

  /** The sink of windowed streamform: counts records and sums their {@link #windowDigest}. */
  static final class CountRevisions extends DoFn<WindowRevision, Void> {
    private final Counter outputs = Metrics.counter(NAMESPACE, "outputs");
    private final Counter digest = Metrics.counter(NAMESPACE, "values_digest");

    @ProcessElement
    public void process(@Element WindowRevision r) {
      outputs.inc();
      digest.inc(
          windowDigest(
              r.status().yamlName(),
              r.revision(),
              r.windowStart().getMillis(),
              r.key().getValue("customer_id"),
              r.values().getValue("revenue")));
    }
  }

  /** A 64-bit hash of one windowed record: status, revision, window start, key and revenue. */
  static long windowDigest(
      String status, int revision, long windowStart, Object customer, Object revenue) {
    return hash(
        status + " " + revision + " " + windowStart + " " + customer + " " + plain(revenue));
  }

  private static String plain(Object decimal) {
    return decimal == null ? "null" : ((BigDecimal) decimal).stripTrailingZeros().toPlainString();
  }

  private static long hash(String text) {
    return org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.hash.Hashing.murmur3_128()
        .hashString(text, java.nio.charset.StandardCharsets.UTF_8)
        .asLong();
  }

  /** Runs {@code p} to the end; the counters of namespaces streamform and benchmark. */
  static java.util.Map<String, Long> run(Pipeline p) {
    PipelineResult result = p.run();
    PipelineResult.State state = result.waitUntilFinish();
    if (state != PipelineResult.State.DONE) {
      throw new IllegalStateException("pipeline ended " + state);
    }
    java.util.Map<String, Long> counters = new java.util.TreeMap<>();
    for (String ns : List.of("streamform", NAMESPACE)) {
      for (MetricResult<Long> c :
          result
              .metrics()
              .queryMetrics(
                  MetricsFilter.builder().addNameFilter(MetricNameFilter.inNamespace(ns)).build())
              .getCounters()) {
        counters.merge(c.getName().getName(), StreamformMetrics.valueAfterJob(c), Long::sum);
      }
    }
    long[] sc = new long[2];
    for (MetricResult<org.apache.beam.sdk.metrics.DistributionResult> d :
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.named("streamform", "state_bytes_per_key"))
                    .build())
            .getDistributions()) {
      // merged over steps: (sum, count) -> mean bytes of state per key
      sc[0] += d.getAttempted().getSum();
      sc[1] += d.getAttempted().getCount();
    }
    if (sc[1] > 0) {
      counters.put("state_bytes_per_key", Math.round((double) sc[0] / sc[1]));
      counters.put("state_bytes_samples", sc[1]);
    }
    return counters;
  }

  /** Sum of decimals, exact. */
  static final class SumDecimals extends Combine.BinaryCombineFn<BigDecimal> {
    @Override
    public BigDecimal apply(BigDecimal left, BigDecimal right) {
      return left.add(right);
    }

    /** Zero, not Beam's default null: a pane with no input (a late firing's) has a sum too. */
    @Override
    public BigDecimal identity() {
      return BigDecimal.ZERO;
    }
  }

  /** The sink of plain-beam: counts the panes (one per element with this trigger). */
  static final class CountPanes extends DoFn<KV<Long, BigDecimal>, Void> {
    private final Counter panes = Metrics.counter(NAMESPACE, "outputs");

    @ProcessElement
    public void process(@Element KV<Long, BigDecimal> pane) {
      panes.inc();
    }
  }

  /**
   * The sink of streamform: counts changelog records and inserts, and sums a 64-bit hash of each
   * record's values ({@link #valuesDigest}) so that the run's values, not only its counts, can be
   * compared with the oracle's — a sum, so the runner's output order does not matter.
   */
  static final class CountChanges extends DoFn<ChangelogRecord, Void> {
    private final Counter changes = Metrics.counter(NAMESPACE, "outputs");
    private final Counter inserts = Metrics.counter(NAMESPACE, "inserts");
    private final Counter digest = Metrics.counter(NAMESPACE, "values_digest");

    @ProcessElement
    public void process(@Element ChangelogRecord change) {
      changes.inc();
      if (change.op() == ChangelogRecord.Op.INSERT) {
        inserts.inc();
      }
      digest.inc(
          valuesDigest(
              change.eventId(),
              change.op().name(),
              change.key().getValue(0),
              change.values().getValue(0)));
    }
  }

  /**
   * A 64-bit hash of one changelog record of the customer_metrics shape: its event, operation, key
   * and total (compared by value: 10 and 10.00 hash alike).
   */
  static long valuesDigest(String eventId, String op, Object customer, Object total) {
    return hash(
        eventId
            + " "
            + op.toLowerCase(java.util.Locale.ROOT)
            + " "
            + customer
            + " "
            + plain(total));
  }
}
