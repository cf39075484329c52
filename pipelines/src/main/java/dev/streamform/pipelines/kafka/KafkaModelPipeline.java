package dev.streamform.pipelines.kafka;

import dev.streamform.pipelines.ModelPipeline;
import dev.streamform.pipelines.SourceResult;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.policies.declarations.Connector;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.sink.decisions.DecisionLedgerSink;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.windows.WindowRevision;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.apache.kafka.clients.producer.Producer;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A model of a project as a streaming Kafka pipeline: its {@code connector: kafka} source read by
 * {@link KafkaSource}, event time extracted, judged by the declared clock ({@link
 * DeclaredModel#logClock()}), the model's changelog — or, for a windowed model, its windows ({@link
 * DeclaredModel#windows()}) — built by {@link ModelPipeline}, and the outputs written by {@link
 * ModelSinks}: changelog (or window records), late and quarantine topics and, for a source with
 * {@code event_id}, the duplicates topic (conflicts go to the quarantine topic; both are counted,
 * {@code duplicate_events_dropped} and {@code events_quarantined}). A scoring model writes its
 * decisions, late events, reconcile route and dead letters ({@link ModelSinks}). The transforms
 * between source and sinks are the ones fixtures run.
 *
 * <p>A windowed model's clock keeps late events (the windows judge them), so its late topic
 * receives the windows' too-late events. Its windows fire on {@code min_p W_p} over the topic's
 * partitions (docs/semantics.md §6). {@code streamform run} declares the topic's partitions to
 * every model's clock ({@code SourceClock.withPartitions}), so each holds the watermark back from
 * the start: on the DirectRunner, KafkaIO's watermark moves on in the same step that emits a
 * partition's first record, before that record reaches the clock, so without the declaration
 * windows closed early and an upsert model's expiry timers freed keys that the partition's next
 * event still had to find alive (issue 16; {@code QuarantinedFirstRecordTest}). On Flink an upsert
 * model's changelog is applied as events arrive; the declared partitions there only delay expiry
 * until every partition has delivered a record (or is idle).
 */
public final class KafkaModelPipeline {
  private KafkaModelPipeline() {}

  /**
   * The Beam options {@code run} sets on the DirectRunner, over a profile's: one worker thread
   * ({@code targetParallelism=1}). An upsert topic's consumers rely on each key's records arriving
   * in the order the keyed stage emitted them (a compacted topic keeps a key's last record), and
   * the DirectRunner keeps no order between stages: with several workers it runs bundles of one
   * key's records through the write at once, each on its own producer, and a later record can reach
   * the broker first. With one worker each bundle — the write's included, which flushes its
   * producer before it ends — runs after the one before it, in the order the stage before it
   * produced them. The Flink runner keeps each key's order through its channels and is not changed
   * (docs/decisions/0116).
   */
  public static final Map<String, String> DIRECT_RUNNER_OPTIONS = Map.of("targetParallelism", "1");

  /**
   * Adds the model's pipeline to {@code p} and returns where it writes.
   *
   * @throws IllegalArgumentException when the model's source is not a Kafka source
   */
  public static ModelSinks build(Pipeline p, DeclaredModel model, KafkaConnection connection) {
    return build(p, model, connection, null);
  }

  /**
   * Adds the model's pipeline to {@code p}; a windowed model's revisions also go to {@code
   * revisionSink} when one is given ({@code streamform run --jdbc-url}).
   */
  public static ModelSinks build(
      Pipeline p,
      DeclaredModel model,
      KafkaConnection connection,
      @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink) {
    return build(p, model, connection, revisionSink, List.of());
  }

  /**
   * As above, with the source topic's partitions declared to the model's clock ({@code
   * SourceClock.withPartitions}), so each holds the watermark back from the start: no window can
   * close, and no key's state expire, before every partition has delivered, whatever KafkaIO's
   * watermark does meanwhile on the runner (empty: not declared).
   */
  public static ModelSinks build(
      Pipeline p,
      DeclaredModel model,
      KafkaConnection connection,
      @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink,
      List<Integer> partitions) {
    return build(p, model, connection, revisionSink, null, partitions, true);
  }

  /**
   * As above; a scoring model's decisions also go to {@code decisionSink} when one is given (the
   * decision ledger, {@code streamform run --jdbc-url}).
   */
  public static ModelSinks build(
      Pipeline p,
      DeclaredModel model,
      KafkaConnection connection,
      @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink,
      @Nullable DecisionLedgerSink decisionSink,
      List<Integer> partitions) {
    return build(p, model, connection, revisionSink, decisionSink, partitions, true);
  }

  /**
   * A shadow run of a windowed model ({@code streamform run --shadow}): the same source, clock and
   * windows as {@link #build}, but its revisions and final records go to {@code revisionSink} only
   * — nothing is written to the model's window, late or quarantine topics, which readers and the
   * live generation own. Its too-late events and undecodable records are not written anywhere: the
   * live generation's late and quarantine topics already hold what the source gave it.
   *
   * @throws IllegalArgumentException when the model is not windowed or its source is not Kafka
   */
  public static ModelSinks buildShadow(
      Pipeline p,
      DeclaredModel model,
      KafkaConnection connection,
      PTransform<PCollection<WindowRevision>, ?> revisionSink,
      List<Integer> partitions) {
    if (!model.windowed()) {
      throw new IllegalArgumentException(
          "model '"
              + model.model().name()
              + "' is not windowed: only a windowed model has a shadow run");
    }
    if (revisionSink == null) {
      throw new IllegalArgumentException(
          "a shadow run writes only to a revision sink, and none was given");
    }
    return build(p, model, connection, revisionSink, null, partitions, false);
  }

  private static ModelSinks build(
      Pipeline p,
      DeclaredModel model,
      KafkaConnection connection,
      @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink,
      @Nullable DecisionLedgerSink decisionSink,
      List<Integer> partitions,
      boolean writeTopics) {
    SourceDeclaration source = model.source();
    if (source.connector() != Connector.KAFKA) {
      throw new IllegalArgumentException(
          "model '"
              + model.model().name()
              + "' reads source '"
              + source.name()
              + "', which is not a kafka source (connector: "
              + source.connector().yamlName()
              + ")");
    }
    KafkaSource read =
        KafkaSource.of(connection, source.topic().get(), source.schema(), model.keyColumns());
    if (source.idleAfter().isPresent()) {
      read = read.withIdleness(Times.toJoda(source.idleAfter().get()));
    }
    if (source.eventTime().isEmpty()) {
      read = read.withoutPunctuations();
    }
    SourceResult records = p.apply("Source " + source.name(), read);
    ModelPipeline.Outputs outputs = outputs(model, records, revisionSink, partitions);
    ModelSinks sinks = outputs.sinks();
    if (!writeTopics) {
      return sinks; // a shadow run: the revision sink is its only output
    }
    writeTopics(outputs, connection, connection.producerFactory(), decisionSink);
    return sinks;
  }

  /**
   * Writes the model's outputs to its topics through {@code connection}, each producer made by
   * {@code producers} (the connection's own in {@code run}; a test's stand-in for the broker), and
   * a scoring model's decisions to {@code decisionSink} when one is given.
   */
  public static void writeTopics(
      ModelPipeline.Outputs outputs,
      KafkaConnection connection,
      SerializableFunction<Map<String, Object>, Producer<String, String>> producers,
      @Nullable DecisionLedgerSink decisionSink) {
    ModelSinks sinks = outputs.sinks();
    int maxBytes = KafkaSinks.maxRecordBytes(connection);
    // a row the producer would refuse goes to the quarantine topic instead (ADR 0199)
    List<PCollection<KV<String, String>>> tooLarge = new ArrayList<>();
    java.util.function.BiConsumer<PCollection<KV<String, String>>, String> write =
        (rows, topic) -> {
          KafkaSinks.Fitted fitted = KafkaSinks.fit(rows, topic, maxBytes);
          fitted.fits().apply("Write " + topic, KafkaSinks.write(connection, producers, topic));
          tooLarge.add(fitted.tooLarge());
        };
    write.accept(outputs.records(), sinks.topic());
    write.accept(outputs.late(), sinks.lateTopic());
    if (outputs.duplicates() != null) {
      // dropped duplicates get a topic of their own: nothing leaves the pipeline unseen, and the
      // late topic keeps meaning "behind the watermark"
      write.accept(outputs.duplicates(), sinks.duplicatesTopic().get());
    }
    if (outputs.reconciled() != null) {
      write.accept(outputs.reconciled(), sinks.reconcileTopic().get());
    }
    if (sinks.idleTopic().isPresent()) {
      // for operators: when each partition went idle and resumed, under which generation (§9.7)
      write.accept(outputs.idleMarkers(), sinks.idleTopic().get());
    }
    // quarantine rows are cut to fit where they are made (ModelSinks.quarantined,
    // deadLetterRecord); any that is still too large (a long reason, a max.request.size set low)
    // is replaced by its stand-in, at most its key's first 1,024 characters and 64 KiB of value,
    // rather than stop the job on every restart (ADR 0199, amended)
    PCollection<KV<String, String>> quarantine =
        PCollectionList.of(outputs.quarantined())
            .and(tooLarge)
            .apply("Quarantine " + sinks.quarantineTopic(), Flatten.pCollections());
    KafkaSinks.Fitted fittedQuarantine =
        KafkaSinks.fit(quarantine, sinks.quarantineTopic(), maxBytes);
    PCollectionList.of(fittedQuarantine.fits())
        .and(fittedQuarantine.tooLarge())
        .apply("Fitted " + sinks.quarantineTopic(), Flatten.pCollections())
        .apply(
            "Write " + sinks.quarantineTopic(),
            KafkaSinks.write(connection, producers, sinks.quarantineTopic()));
    if (decisionSink != null && outputs.decisions() != null) {
      outputs.decisions().apply("Decisions to the database", decisionSink);
      outputs.reconciliations().apply("Reconcile queue", decisionSink.reconcileQueue());
    }
  }

  /**
   * The model's outputs on what its source read, before any topic is written: the clock is the
   * model's log clock with {@code partitions} declared (none when empty), and the changelog is
   * applied on arrival where {@link #appliesOnArrival} says so. Apart from {@link #build} so that a
   * test can run it on a source of its own ({@code KafkaModelPipelineClockTest}).
   */
  static ModelPipeline.Outputs outputs(
      DeclaredModel model,
      SourceResult records,
      @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink,
      List<Integer> partitions) {
    return outputs(
        model,
        records,
        revisionSink,
        partitions,
        appliesOnArrival(records.getPipeline().getOptions()));
  }

  /**
   * As above with the changelog applied on arrival or in log order as {@code appliedOnArrival}
   * says: what {@code run} builds between source and sinks, for the benchmarks, which measure both
   * paths side by side (issue 31).
   */
  public static ModelPipeline.Outputs outputs(
      DeclaredModel model,
      SourceResult records,
      @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink,
      List<Integer> partitions,
      boolean appliedOnArrival) {
    ModelSinks named = ModelSinks.of(model);
    PCollection<KV<String, String>> undecodable =
        records
            .quarantined()
            .apply("Undecodable", MapElements.into(kvs()).via(KafkaSinks::undecodableRecord));
    return ModelPipeline.build(
        model,
        records.records(),
        undecodable,
        clock(model, partitions),
        appliedOnArrival,
        revisionSink);
  }

  /**
   * The clock {@code run} builds for a Kafka source on every runner: the model's log clock (arrival
   * order, {@code idle_after}), with {@code partitions} declared (none when empty). {@code explain}
   * and {@code inspect-plan} describe it from here ({@code ModelSteps}).
   */
  public static SourceClock clock(DeclaredModel model, List<Integer> partitions) {
    return partitions.isEmpty() ? model.logClock() : model.logClock().withPartitions(partitions);
  }

  /**
   * Whether {@code run} applies an upsert model's changelog (and a windowed model's windows, where
   * log order would give the same, ADR 0078) on arrival with these options: on the Flink runner,
   * which keeps each key's order from the clock to the keyed stage (one channel per sender, first
   * in first out); other runners (the DirectRunner) apply events in log order.
   */
  public static boolean appliesOnArrival(PipelineOptions options) {
    return options.getRunner().getSimpleName().startsWith("Flink");
  }

  private static TypeDescriptor<KV<String, String>> kvs() {
    return TypeDescriptors.kvs(TypeDescriptors.strings(), TypeDescriptors.strings());
  }
}
