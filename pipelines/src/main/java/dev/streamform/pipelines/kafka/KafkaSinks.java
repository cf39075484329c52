package dev.streamform.pipelines.kafka;

import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.transforms.StreamformMetrics;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PDone;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
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

  /** The producer's {@code max.request.size} when the Kafka settings do not give one. */
  static final int DEFAULT_MAX_REQUEST_SIZE = 1_048_576;

  /**
   * What a record adds to its key's and value's bytes in the producer's size check (the record
   * batch's header and the record's own; Kafka's upper bound is under this).
   */
  static final int RECORD_OVERHEAD = 128;

  /**
   * The largest record the producer of {@code connection} sends: its {@code max.request.size}
   * setting, else Kafka's default.
   */
  public static int maxRecordBytes(KafkaConnection connection) {
    return connection
        .setting("max.request.size")
        .map(s -> parseSize(s.value()))
        .orElse(DEFAULT_MAX_REQUEST_SIZE);
  }

  private static int parseSize(Object value) {
    try {
      return Integer.parseInt(String.valueOf(value).trim());
    } catch (NumberFormatException e) {
      return DEFAULT_MAX_REQUEST_SIZE; // the producer refuses it at its start, with the setting
    }
  }

  /**
   * An output's records that the producer can send, and in place of each one too large for it (an
   * event with a value of hundreds of KB whose changelog row holds it twice) a quarantine row
   * saying so: the producer refuses a record over its {@code max.request.size}, the refused write
   * fails the job, and the job restored from its checkpoint fails on the same record again — one
   * record would stop the job for ever (docs/decisions/0199).
   */
  public static Fitted fit(PCollection<KV<String, String>> rows, String topic, int maxBytes) {
    TupleTag<KV<String, String>> fits = new TupleTag<>("fits") {};
    TupleTag<KV<String, String>> tooLarge = new TupleTag<>("too_large") {};
    PCollectionTuple split =
        rows.apply(
            "Fit " + topic + " for Kafka",
            ParDo.of(new FitFn(topic, maxBytes, fits, tooLarge))
                .withOutputTags(fits, TupleTagList.of(tooLarge)));
    return new Fitted(
        split.get(fits).setCoder(rows.getCoder()), split.get(tooLarge).setCoder(rows.getCoder()));
  }

  /** {@link #fit}'s two outputs: the records to write, the quarantine rows of those too large. */
  public record Fitted(
      PCollection<KV<String, String>> fits, PCollection<KV<String, String>> tooLarge) {}

  private static final class FitFn extends DoFn<KV<String, String>, KV<String, String>> {
    private final String topic;
    private final int maxBytes;
    private final TupleTag<KV<String, String>> fits;
    private final TupleTag<KV<String, String>> tooLarge;
    private final Counter notPublished =
        StreamformMetrics.counter(StreamformMetrics.ROWS_TOO_LARGE_FOR_KAFKA);

    FitFn(
        String topic,
        int maxBytes,
        TupleTag<KV<String, String>> fits,
        TupleTag<KV<String, String>> tooLarge) {
      this.topic = topic;
      this.maxBytes = maxBytes;
      this.fits = fits;
      this.tooLarge = tooLarge;
    }

    @ProcessElement
    public void process(@Element KV<String, String> row, MultiOutputReceiver out) {
      String key = row.getKey();
      String value = row.getValue();
      // a UTF-8 text has at most 3 bytes per UTF-16 unit: most rows are judged without encoding
      long bound = 3L * ((key == null ? 0 : key.length()) + (value == null ? 0 : value.length()));
      if (bound + RECORD_OVERHEAD <= maxBytes) {
        out.get(fits).output(row);
        return;
      }
      byte[] keyBytes = key == null ? new byte[0] : key.getBytes(StandardCharsets.UTF_8);
      byte[] valueBytes = value == null ? new byte[0] : value.getBytes(StandardCharsets.UTF_8);
      long size = (long) keyBytes.length + valueBytes.length + RECORD_OVERHEAD;
      if (size <= maxBytes) {
        out.get(fits).output(row);
        return;
      }
      notPublished.inc();
      out.get(tooLarge)
          .output(ModelSinks.tooLargeForKafka(topic, keyBytes, valueBytes, size, maxBytes));
    }
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
