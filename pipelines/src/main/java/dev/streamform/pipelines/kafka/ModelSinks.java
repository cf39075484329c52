package dev.streamform.pipelines.kafka;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.time.Timestamps;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.LateEvent;
import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.io.Serializable;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PDone;
import org.apache.beam.sdk.values.Row;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Where a model's outputs go on Kafka, and the JSON records they become. Every record's key and
 * value are JSON text:
 *
 * <ul>
 *   <li>changelog, topic {@code <model>} (an upsert topic: the last record per key is the key's
 *       row): key {@code {"customer_id":42}} (the key columns), value {@code
 *       {"op":"update","customer_id":42,"total_spend":30.00,"__event":"0-1"}} — the row with its
 *       op and the causing event ({@code <partition>-<offset>} of the source topic);
 *   <li>late events, topic {@code <model>.late}: key the event's key columns, value {@code
 *       {"reason":..,"watermark":..,"partition":..,"offset":..,"event_time":..,"record":{..}}};
 *   <li>quarantine, topic {@code <model>.quarantine}: key {@code {"partition":..,"offset":..}},
 *       value {@code {"reason":..,"partition":..,"offset":..,"value":..,"value_base64":..}} — the
 *       record's bytes as read, base64, and as JSON or text for reading.
 * </ul>
 *
 * {@code streamform.yml} may name other topics ({@code topic}, {@code late_topic}, {@code
 * quarantine_topic}).
 */
public final class ModelSinks implements Serializable {
  /** The field of a changelog value that names the causing event. */
  public static final String EVENT_FIELD = "__event";

  private final String changelogTopic;
  private final String lateTopic;
  private final String quarantineTopic;
  private final List<String> keyColumns;
  private final List<String> outputColumns;

  private ModelSinks(ModelDeclaration model, List<String> outputColumns) {
    this.changelogTopic = model.topic().orElse(model.name());
    this.lateTopic = model.lateTopic().orElse(model.name() + ".late");
    this.quarantineTopic = model.quarantineTopic().orElse(model.name() + ".quarantine");
    this.keyColumns = List.copyOf(model.key());
    this.outputColumns = List.copyOf(outputColumns);
  }

  /** The sinks of {@code model}, whose changelog rows have {@code outputColumns} in that order. */
  public static ModelSinks of(ModelDeclaration model, List<String> outputColumns) {
    return new ModelSinks(model, outputColumns);
  }

  public String changelogTopic() {
    return changelogTopic;
  }

  public String lateTopic() {
    return lateTopic;
  }

  public String quarantineTopic() {
    return quarantineTopic;
  }

  /** A changelog record as its Kafka key and value. */
  public KV<String, String> changelogRecord(ChangelogRecord r) {
    ObjectNode value = JsonNodeFactory.instance.objectNode();
    value.put("op", r.op().name().toLowerCase(Locale.ROOT));
    for (String column : outputColumns) {
      value.set(column, JsonRecords.node(r.value(column)));
    }
    value.put(EVENT_FIELD, r.eventId());
    return KV.of(keyOf(r.key()), value.toString());
  }

  /** A late event as its Kafka key and value. */
  public KV<String, String> lateRecord(LateEvent e) {
    Envelope event = e.envelope();
    ObjectNode value = JsonNodeFactory.instance.objectNode();
    value.put("reason", e.reason());
    value.put("watermark", Timestamps.format(java.time.Instant.ofEpochMilli(e.watermark().getMillis())));
    value.put("partition", event.partition());
    value.put("offset", event.offset());
    value.set("event_time", JsonRecords.node(event.eventTime()));
    value.set("record", rowObject(event.record()));
    return KV.of(keyOf(event.record()), value.toString());
  }

  /** A record {@link KafkaSource} could not decode, as its Kafka key and value. */
  public KV<String, String> undecodableRecord(BadRecord bad) {
    KafkaRecord<byte[], byte[]> read = decode(bad, KafkaSource.RAW);
    return quarantined(
        read.getPartition(), read.getOffset(), bad.getFailure().getDescription(), read.getKV().getValue());
  }

  /**
   * A record {@code EventTimeExtraction} quarantined (no usable event time), as its Kafka key and
   * value; its bytes are the decoded record written back as JSON.
   */
  public KV<String, String> eventTimeRecord(BadRecord bad, Schema schema) {
    SourceRecord read = decode(bad, SourceRecordCoder.of(schema));
    return quarantined(
        read.partition(),
        read.offset(),
        bad.getFailure().getDescription(),
        JsonRecords.bytes(rowObject(read.record())));
  }

  private static KV<String, String> quarantined(
      int partition, long offset, String description, byte[] bytes) {
    ObjectNode key = JsonNodeFactory.instance.objectNode();
    key.put("partition", partition);
    key.put("offset", offset);
    ObjectNode value = JsonNodeFactory.instance.objectNode();
    value.put("reason", Quarantine.reasonOf(description));
    value.put("partition", partition);
    value.put("offset", offset);
    value.set("value", JsonRecords.parseOrText(bytes));
    if (bytes == null) {
      value.putNull("value_base64");
    } else {
      value.put("value_base64", Base64.getEncoder().encodeToString(bytes));
    }
    return KV.of(key.toString(), value.toString());
  }

  private String keyOf(Row row) {
    Map<String, Object> key = new LinkedHashMap<>();
    for (String k : keyColumns) {
      key.put(k, row.getValue(k));
    }
    return JsonRecords.object(key).toString();
  }

  private static ObjectNode rowObject(Row row) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (Schema.Field f : row.getSchema().getFields()) {
      values.put(f.getName(), row.getValue(f.getName()));
    }
    return JsonRecords.object(values);
  }

  private static <T> T decode(BadRecord bad, org.apache.beam.sdk.coders.Coder<T> coder) {
    try {
      return CoderUtils.decodeFromByteArray(coder, bad.getRecord().getEncodedRecord());
    } catch (Exception e) {
      throw new IllegalStateException("a quarantined record cannot be decoded: " + bad, e);
    }
  }

  /** Writes JSON keys and values to {@code topic}. */
  public static PTransform<PCollection<KV<String, String>>, PDone> write(
      String bootstrapServers, String topic) {
    return KafkaIO.<String, String>write()
        .withBootstrapServers(bootstrapServers)
        .withTopic(topic)
        .withKeySerializer(StringSerializer.class)
        .withValueSerializer(StringSerializer.class);
  }
}
