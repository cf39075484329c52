package dev.streamform.pipelines.kafka;

import dev.streamform.policies.declarations.Connector;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.EnvelopeCoder;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.extraction.ExtractionResult;
import dev.streamform.transforms.windows.WindowRevision;
import dev.streamform.transforms.windows.WindowedResult;
import java.util.ArrayList;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.checkerframework.checker.nullness.qual.Nullable;
import java.util.List;
import org.joda.time.Duration;

/**
 * A model of a project as a streaming Kafka pipeline: its {@code connector: kafka} source read by
 * {@link KafkaSource}, event time extracted, judged by the declared clock ({@link
 * DeclaredModel#logClock()}), the model's changelog — or, for a windowed model, its windows ({@link
 * DeclaredModel#windows()}) — and the three outputs written by {@link ModelSinks}. The transforms
 * between source and sinks are the ones fixtures run.
 *
 * <p>A windowed model's clock keeps late events (the windows judge them), so its late topic receives
 * the windows' too-late events. Its windows fire on {@code min_p W_p} over the topic's partitions
 * (SEMANTICS §6). {@code streamform run} declares the topic's partitions to a windowed model's
 * clock ({@code SourceClock.withPartitions}), so each holds the watermark back from the start: a
 * run on the DirectRunner closed windows early without it (KafkaIO's watermark moved on before a
 * partition's first record reached the clock). An upsert model's clock does not declare them: its
 * {@link ClockGatedTimestampPolicy} keeps KafkaIO's watermark at the beginning of time for each
 * partition until its first record has been read, which only times expiry, and on Flink its
 * changelog is applied as events arrive.
 */
public final class KafkaModelPipeline {
  private KafkaModelPipeline() {}

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
   * As above, with the source topic's partitions declared to a windowed model's clock ({@code
   * SourceClock.withPartitions}), so each holds the watermark back from the start: no window can
   * close before every partition has delivered, whatever KafkaIO's watermark does meanwhile on the
   * runner (empty: not declared).
   */
  public static ModelSinks build(
      Pipeline p,
      DeclaredModel model,
      KafkaConnection connection,
      @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink,
      List<Integer> partitions) {
    return build(p, model, connection, revisionSink, partitions, true);
  }

  /**
   * A shadow run of a windowed model ({@code streamform run --shadow}): the same source, clock and
   * windows as {@link #build}, but its revisions and final records go to {@code revisionSink} only
   * — nothing is written to the model's window, late or quarantine topics, which readers and the
   * live generation own. Its too-late events and undecodable records are not written anywhere:
   * the live generation's late and quarantine topics already hold what the source gave it.
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
          "model '" + model.model().name() + "' is not windowed: only a windowed model has a shadow run");
    }
    if (revisionSink == null) {
      throw new IllegalArgumentException("a shadow run writes only to a revision sink, and none was given");
    }
    return build(p, model, connection, revisionSink, partitions, false);
  }

  private static ModelSinks build(
      Pipeline p,
      DeclaredModel model,
      KafkaConnection connection,
      @Nullable PTransform<PCollection<WindowRevision>, ?> revisionSink,
      List<Integer> partitions,
      boolean writeTopics) {
    SourceDeclaration source = model.source();
    if (source.connector() != Connector.KAFKA) {
      throw new IllegalArgumentException(
          "model '" + model.model().name() + "' reads source '" + source.name()
              + "', which is not a kafka source (connector: " + source.connector().yamlName() + ")");
    }
    Schema schema = model.recordSchema();
    ModelSinks sinks = ModelSinks.of(model);
    KafkaSource read =
        KafkaSource.of(connection, source.topic().get(), source.schema(), model.keyColumns());
    if (source.idleAfter().isPresent()) {
      read = read.withIdleness(Duration.millis(source.idleAfter().get().toMillis()));
    }
    KafkaSourceResult records = p.apply("Source " + source.name(), read);

    PCollectionList<KV<String, String>> quarantine =
        PCollectionList.of(
            records
                .quarantined()
                .apply("Undecodable", MapElements.into(kvs()).via(sinks::undecodableRecord)));
    PCollection<Envelope> envelopes;
    if (source.hasEventTime()) {
      ExtractionResult extracted =
          records.records().apply("EventTime", EventTimeExtraction.from(source.eventTime().get()));
      envelopes = extracted.events();
      quarantine =
          quarantine.and(
              extracted
                  .quarantined()
                  .apply(
                      "NoEventTime",
                      MapElements.into(kvs())
                          .via((BadRecord bad) -> sinks.eventTimeRecord(bad, schema))));
    } else {
      envelopes =
          records
              .records()
              .apply(
                  "ArrivalTime",
                  MapElements.into(TypeDescriptor.of(Envelope.class))
                      .via(
                          (SourceRecord r) ->
                              r.isWatermark()
                                  ? Envelope.punctuation(r)
                                  : Envelope.event(r, r.ingestTime())))
              .setCoder(EnvelopeCoder.of(schema));
    }
    KvCoder<String, String> json = KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of());
    PCollection<KV<String, String>> output;
    PCollection<KV<String, String>> late;
    if (model.windowed()) {
      // the clock keeps late events for a windowed model: its late() stays empty
      WindowedResult windows =
          envelopes
              .apply("Clock", partitions.isEmpty() ? model.logClock() : model.logClock().withPartitions(partitions))
              .events()
              .apply("Model", model.windows());
      output =
          windows.revisions().apply("WindowRecords", MapElements.into(kvs()).via(sinks::windowRecord));
      late = windows.tooLate().apply("TooLateRecords", MapElements.into(kvs()).via(sinks::tooLateRecord));
      if (revisionSink != null) {
        // alongside the window topic: the revisions also land in the revision ledger (SEMANTICS §8)
        windows.revisions().apply("Revisions to the database", revisionSink);
      }
    } else {
      ClockResult clocked = envelopes.apply("Clock", model.logClock());
      // The Flink runner keeps each key's order from the clock to the changelog (one channel per
      // sender, first in first out), so a streaming job there applies events as they arrive instead
      // of waiting for the watermark; other runners (the DirectRunner) apply them in log order.
      boolean fifo = p.getOptions().getRunner().getSimpleName().startsWith("Flink");
      PCollection<ChangelogRecord> changelog = clocked.events().apply("Model", model.changelog(fifo));
      output = changelog.apply("ChangelogRecords", MapElements.into(kvs()).via(sinks::changelogRecord));
      late = clocked.late().apply("LateRecords", MapElements.into(kvs()).via(sinks::lateRecord));
    }
    if (!writeTopics) {
      return sinks; // a shadow run: the revision sink above is its only output
    }
    output
        .setCoder(json)
        .apply("Write " + sinks.topic(), ModelSinks.write(connection, sinks.topic()));
    late.setCoder(json)
        .apply("Write " + sinks.lateTopic(), ModelSinks.write(connection, sinks.lateTopic()));
    quarantine
        .apply("Quarantine", Flatten.pCollections())
        .setCoder(json)
        .apply(
            "Write " + sinks.quarantineTopic(),
            ModelSinks.write(connection, sinks.quarantineTopic()));
    return sinks;
  }

  private static TypeDescriptor<KV<String, String>> kvs() {
    return TypeDescriptors.kvs(TypeDescriptors.strings(), TypeDescriptors.strings());
  }
}
