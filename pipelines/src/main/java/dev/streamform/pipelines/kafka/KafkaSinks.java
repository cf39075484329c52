package dev.streamform.pipelines.kafka;

import dev.streamform.planner.sinks.ModelSinks;
import java.util.Map;
import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PDone;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka side of {@link ModelSinks}: the writer of its JSON records, and the quarantine row of a
 * record {@link KafkaSource} could not decode. The records' JSON lives with the planner, so that
 * every path that applies a model's pipeline (fixtures included) renders the same records.
 */
public final class KafkaSinks {
  private KafkaSinks() {}

  /**
   * Writes JSON keys and values to {@code topic} through {@code connection}: the settings that may
   * be shown as KafkaIO's producer configuration (which it displays), the hidden ones applied by
   * the producer factory where the producer is created.
   */
  public static PTransform<PCollection<KV<String, String>>, PDone> write(
      KafkaConnection connection, String topic) {
    return write(connection, connection.producerFactory(), topic);
  }

  /** As above, each producer made by {@code producers}. */
  static PTransform<PCollection<KV<String, String>>, PDone> write(
      KafkaConnection connection,
      SerializableFunction<Map<String, Object>, Producer<String, String>> producers,
      String topic) {
    return KafkaIO.<String, String>write()
        .withBootstrapServers(connection.bootstrapServers())
        .withTopic(topic)
        .withProducerConfigUpdates(connection.shownConfig())
        .withProducerFactoryFn(producers)
        .withKeySerializer(StringSerializer.class)
        .withValueSerializer(StringSerializer.class);
  }

  /** A record {@link KafkaSource} could not decode, as its Kafka key and value. */
  public static KV<String, String> undecodableRecord(BadRecord bad) {
    KafkaRecord<byte[], byte[]> read = ModelSinks.decode(bad, KafkaRecordDecoding.RAW);
    return ModelSinks.quarantined(
        read.getPartition(),
        read.getOffset(),
        bad.getFailure().getDescription(),
        read.getKV().getValue());
  }
}
