package dev.streamform.pipelines.kafka;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.pipelines.ModelPipeline;
import dev.streamform.pipelines.SourceResult;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Project;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One event whose changelog row is over the producer's {@code max.request.size} (a
 * 600,000-character key, which the row carries in its Kafka key and its value) does not stop the
 * job: the row goes to the quarantine topic cut to fit, with the reason, and the other keys' rows
 * are published (docs/decisions/0199). The pipeline is the one {@code run} builds ({@link
 * KafkaModelPipeline#writeTopics}); the broker is replaced by producers that refuse a record over 1
 * MiB as Kafka's does. Before, the refused write failed the job (and on Flink, restored from its
 * checkpoint, it failed on the same row again, for ever).
 */
class KafkaRowTooLargeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, List<String>> TOPICS = new ConcurrentHashMap<>();

  @TempDir Path dir;

  @Test
  void aRowTooLargeForTheProducerIsQuarantinedAndTheJobGoesOn() throws Exception {
    DeclaredModel model = project();
    Schema schema = model.recordSchema();
    PipelineOptions options =
        PipelineOptionsFactory.fromArgs(
                KafkaModelPipeline.DIRECT_RUNNER_OPTIONS.entrySet().stream()
                    .map(o -> "--" + o.getKey() + "=" + o.getValue())
                    .toArray(String[]::new))
            .create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    String big = "x".repeat(600_000);
    PCollection<SourceRecord> records =
        p.apply(
            "Records",
            TestStream.create(SourceRecordCoder.of(schema))
                .addElements(
                    order(schema, 0, "a", 1), order(schema, 1, big, 2), order(schema, 2, "a", 3))
                .advanceWatermarkToInfinity());
    SourceResult source =
        new SourceResult(
            p,
            new TupleTag<>("records"),
            records,
            new TupleTag<>("quarantined"),
            p.apply("Undecodable", Create.empty(BadRecord.getCoder(p))));
    ModelPipeline.Outputs out = KafkaModelPipeline.outputs(model, source, null, List.of(0));
    TOPICS.clear();
    KafkaModelPipeline.writeTopics(
        out, KafkaConnection.plaintext("127.0.0.1:1"), new Refusing(), null);
    p.run().waitUntilFinish();

    List<String> changelog = TOPICS.getOrDefault(out.sinks().topic(), List.of());
    List<String> keys = new ArrayList<>();
    for (String value : changelog) {
      keys.add(JSON.readTree(value).get("customer").asText());
    }
    assertThat(keys, contains("a", "a"));
    List<String> quarantine = TOPICS.getOrDefault(out.sinks().quarantineTopic(), List.of());
    assertThat(quarantine, hasSize(1));
    assertThat(quarantine.get(0).length(), lessThan(200_000));
    JsonNode row = JSON.readTree(quarantine.get(0));
    assertThat(
        row.get("reason").asText(),
        containsString(
            "over the 1,048,576 bytes the Kafka producer sends (max.request.size): not published"
                + " to "
                + out.sinks().topic()));
    assertThat(row.get("topic").asText(), is(out.sinks().topic()));
    assertThat(row.get("key_truncated").asBoolean(), is(true));
    assertThat(row.get("value_bytes").asInt() > 600_000, is(true));
  }

  /**
   * With {@code max.request.size} set below a quarantine row (here 100,000 bytes, a row of
   * 150,000), the row is replaced by its stand-in — its first 64 KiB — on the quarantine topic, and
   * the job goes on: the quarantine write failed the job on that record at every restart (ADR 0199,
   * amended; review of decisions and Kafka input).
   */
  @Test
  void aQuarantineRowTooLargeForTheProducerIsReplacedByItsStandIn() throws Exception {
    DeclaredModel model = project();
    Schema schema = model.recordSchema();
    Files.writeString(dir.resolve("small.properties"), "max.request.size=100000\n");
    KafkaConnection connection =
        KafkaConnection.of(
            "127.0.0.1:1",
            dev.streamform.policies.project.KafkaClientProperties.read(
                dir.resolve("small.properties"), "small.properties"));
    PipelineOptions options =
        PipelineOptionsFactory.fromArgs(
                KafkaModelPipeline.DIRECT_RUNNER_OPTIONS.entrySet().stream()
                    .map(o -> "--" + o.getKey() + "=" + o.getValue())
                    .toArray(String[]::new))
            .create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    byte[] notJson = ("not json " + "a".repeat(65_000)).getBytes(StandardCharsets.UTF_8);
    org.apache.beam.sdk.io.kafka.KafkaRecord<byte[], byte[]> read =
        new org.apache.beam.sdk.io.kafka.KafkaRecord<>(
            "orders",
            0,
            1L,
            0L,
            org.apache.beam.sdk.io.kafka.KafkaTimestampType.CREATE_TIME,
            null,
            null,
            notJson);
    BadRecord bad =
        BadRecord.builder()
            .setRecord(
                BadRecord.Record.builder()
                    .setHumanReadableJsonRecord("not json")
                    .addCoderAndEncodedRecord(KafkaRecordDecoding.RAW, read)
                    .build())
            .setFailure(
                BadRecord.Failure.builder()
                    .setDescription("partition 0 offset 1: not JSON")
                    .build())
            .build();
    SourceResult source =
        new SourceResult(
            p,
            new TupleTag<>("records"),
            p.apply(
                "Records",
                TestStream.create(SourceRecordCoder.of(schema))
                    .addElements(order(schema, 0, "a", 1))
                    .advanceWatermarkToInfinity()),
            new TupleTag<>("quarantined"),
            p.apply("Undecodable", Create.of(bad).withCoder(BadRecord.getCoder(p))));
    ModelPipeline.Outputs out = KafkaModelPipeline.outputs(model, source, null, List.of(0));
    TOPICS.clear();
    KafkaModelPipeline.writeTopics(out, connection, new Refusing(100_000), null);
    p.run().waitUntilFinish();

    List<String> quarantine = TOPICS.getOrDefault(out.sinks().quarantineTopic(), List.of());
    assertThat(quarantine, hasSize(1));
    JsonNode row = JSON.readTree(quarantine.get(0));
    assertThat(
        row.get("reason").asText(),
        containsString(
            "over the 100,000 bytes the Kafka producer sends (max.request.size): not published to "
                + out.sinks().quarantineTopic()));
    assertThat(row.get("value_truncated").asBoolean(), is(true));
    assertThat(TOPICS.getOrDefault(out.sinks().topic(), List.of()), hasSize(1));
  }

  private static SourceRecord order(Schema schema, long offset, String customer, int amount) {
    Row row =
        Row.withSchema(schema)
            .withFieldValue("customer", customer)
            .withFieldValue("amount", new BigDecimal(amount))
            .withFieldValue("ordered_at", Instant.parse("2026-08-30T10:00:00Z").plus(offset))
            .build();
    return SourceRecord.of(0, offset, new Instant(0), row);
  }

  /** Producers that refuse a record over 1 MiB, as Kafka's producer does, and keep the rest. */
  private static final class Refusing
      implements SerializableFunction<Map<String, Object>, Producer<String, String>> {
    private final int limit;

    Refusing() {
      this(1_048_576);
    }

    Refusing(int limit) {
      this.limit = limit;
    }

    @Override
    public Producer<String, String> apply(Map<String, Object> config) {
      return new MockProducer<>(true, new StringSerializer(), new StringSerializer()) {
        @Override
        public synchronized Future<RecordMetadata> send(
            ProducerRecord<String, String> record, Callback callback) {
          int size =
              (record.key() == null ? 0 : record.key().getBytes(StandardCharsets.UTF_8).length)
                  + record.value().getBytes(StandardCharsets.UTF_8).length;
          if (size > limit) {
            RecordTooLargeException refused =
                new RecordTooLargeException(
                    "The message is "
                        + size
                        + " bytes when serialized which is larger than "
                        + limit
                        + ", which is the value of the max.request.size configuration.");
            if (callback != null) {
              callback.onCompletion(null, refused);
            }
            return CompletableFuture.failedFuture(refused);
          }
          TOPICS
              .computeIfAbsent(
                  record.topic(), t -> java.util.Collections.synchronizedList(new ArrayList<>()))
              .add(record.value());
          return super.send(record, callback);
        }
      };
    }
  }

  private DeclaredModel project() throws Exception {
    Files.createDirectories(dir.resolve("models"));
    Files.writeString(
        dir.resolve("sources.yml"),
        "sources:\n  orders:\n    connector: kafka\n    topic: orders\n    schema:\n"
            + "      customer: string\n      amount: decimal(12,2)\n      ordered_at: timestamp\n"
            + "    event_time: ordered_at\n");
    Files.writeString(dir.resolve("streamform.yml"), "models:\n  spend:\n    key: [customer]\n");
    Files.writeString(
        dir.resolve("models/spend.sql"),
        "SELECT customer, SUM(amount) AS total FROM source('orders') GROUP BY customer\n");
    return DeclaredModel.of(Project.load(dir), "spend");
  }
}
