package dev.streamform.pipelines.kafka;

import static org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.base.Preconditions.checkArgument;

import com.google.auto.value.AutoValue;
import dev.streamform.pipelines.SourceResult;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.envelope.SourceRecord;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;

/**
 * A {@code connector: kafka} source: reads a topic with KafkaIO and decodes each record's JSON by
 * the declared schema ({@link KafkaRecordDecoding}) into a {@link SourceRecord} at its (partition,
 * offset).
 *
 * <p>Guarantees: every record read ends up either in {@link SourceResult#records()} (a record or,
 * for {@code {"__watermark": ...}}, a punctuation of its partition) or in {@link
 * SourceResult#quarantined()} as a Beam {@link BadRecord} with the reason and the raw value bytes;
 * a bad record never stops the job. A quarantined record still leaves a punctuation at the minimum
 * timestamp (no watermark information) at its position, so the clock holds its partition's
 * watermark from the partition's very first record on. KafkaIO reads each partition in offset
 * order, and the runner's watermark follows {@link ClockGatedTimestampPolicy}: for a source with
 * event time and no idleness, once a partition has delivered, nothing but the clock holds it, so
 * its records are for a {@code SourceClock} that declares the topic's partitions ({@code
 * withPartitions}), as {@code streamform run} builds it.
 *
 * <pre>{@code
 * SourceResult read = p.apply(KafkaSource.of("127.0.0.1:9092", "orders", schema, key)
 *     .withIdleness(Duration.standardMinutes(1)));
 * read.records().apply(EventTimeExtraction.from("ordered_at"));
 * }</pre>
 */
@AutoValue
public abstract class KafkaSource extends PTransform<PBegin, SourceResult> {

  /** The cluster and client settings; its secrets are applied by the consumer factory only. */
  public abstract KafkaConnection connection();

  public String bootstrapServers() {
    return connection().bootstrapServers();
  }

  public abstract String topic();

  public abstract Map<String, ColumnType> schema();

  public abstract List<String> keyColumns();

  public abstract @Nullable Duration idleAfter();

  /** Whether a watermark record is a punctuation: false for a source without event time. */
  public abstract boolean punctuations();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setConnection(KafkaConnection connection);

    abstract Builder setTopic(String topic);

    abstract Builder setSchema(Map<String, ColumnType> schema);

    abstract Builder setKeyColumns(List<String> keys);

    abstract Builder setIdleAfter(@Nullable Duration idleAfter);

    abstract Builder setPunctuations(boolean punctuations);

    abstract KafkaSource build();
  }

  /** Reads {@code topic} at {@code bootstrapServers}; {@code keyColumns} must have values. */
  public static KafkaSource of(
      String bootstrapServers,
      String topic,
      Map<String, ColumnType> schema,
      List<String> keyColumns) {
    return of(KafkaConnection.plaintext(bootstrapServers), topic, schema, keyColumns);
  }

  /** Reads {@code topic} through {@code connection}; {@code keyColumns} must have values. */
  public static KafkaSource of(
      KafkaConnection connection,
      String topic,
      Map<String, ColumnType> schema,
      List<String> keyColumns) {
    checkArgument(!schema.isEmpty(), "a source needs a schema");
    for (String k : keyColumns) {
      checkArgument(schema.containsKey(k), "key column `%s` is not in the schema %s", k, schema);
    }
    return new AutoValue_KafkaSource.Builder()
        .setConnection(connection)
        .setTopic(topic)
        .setSchema(new java.util.LinkedHashMap<>(schema))
        .setKeyColumns(List.copyOf(keyColumns))
        .setPunctuations(true)
        .build();
  }

  /**
   * For a source that declares no event time: a watermark record is quarantined as meaningless, not
   * read as a punctuation ({@link KafkaRecordDecoding#withoutPunctuations}).
   */
  public KafkaSource withoutPunctuations() {
    return toBuilder().setPunctuations(false).build();
  }

  /** A partition with no record for {@code idleAfter} stops holding the watermark back. */
  public KafkaSource withIdleness(Duration idleAfter) {
    return toBuilder().setIdleAfter(idleAfter).build();
  }

  @Override
  public SourceResult expand(PBegin input) {
    Map<String, Object> consumer = consumerConfigUpdates(connection().shownConfig());
    PCollection<KafkaRecord<byte[], byte[]>> raw =
        input.apply(
            "Read " + topic(),
            KafkaIO.readBytes()
                .withBootstrapServers(bootstrapServers())
                .withTopic(topic())
                .withConsumerConfigUpdates(consumer)
                .withConsumerFactoryFn(connection().consumerFactory())
                .withTimestampPolicyFactory(
                    ClockGatedTimestampPolicy.factory(idleAfter(), punctuations())));
    KafkaRecordDecoding decoding = KafkaRecordDecoding.of(schema(), keyColumns());
    return raw.apply("Decode JSON", punctuations() ? decoding : decoding.withoutPunctuations());
  }

  /**
   * The consumer settings the source gives KafkaIO, from the connection's {@code shown} ones (only
   * settings that may be shown: KafkaIO lists its consumer configuration in display data).
   */
  static Map<String, Object> consumerConfigUpdates(Map<String, Object> shown) {
    return withReadingContract(shown);
  }

  /**
   * {@code config} with the source's own consumer settings applied last, so that no client setting
   * overrides them (docs/decisions/0142, 0231): it reads from the earliest offsets, commits nothing
   * and joins no consumer group (its offsets are in Flink's checkpoints and savepoints).
   */
  static Map<String, Object> withReadingContract(Map<String, Object> config) {
    Map<String, Object> consumer = new java.util.LinkedHashMap<>(config);
    consumer.put("auto.offset.reset", "earliest");
    consumer.put("enable.auto.commit", "false");
    consumer.remove("group.id");
    consumer.remove("group.instance.id");
    return consumer;
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("topic", topic()))
        .add(DisplayData.item("bootstrapServers", bootstrapServers()))
        .add(DisplayData.item("connection", connection().toString()).withLabel("Kafka connection"))
        .add(DisplayData.item("key", String.join(",", keyColumns())));
    if (idleAfter() != null) {
      builder.add(DisplayData.item("idleAfter", Times.format(idleAfter())).withLabel("Idle after"));
    }
  }
}
