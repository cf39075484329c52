package dev.streamform.pipelines.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.pipelines.ModelPipeline;
import dev.streamform.pipelines.SourceResult;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.policies.project.Project;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
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
import org.apache.kafka.common.serialization.StringSerializer;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upsert model's changelog reaches its topic in the order its keyed stage emitted each key's
 * records (docs/semantics.md §3; a compacted topic keeps a key's last record), on the DirectRunner
 * too, whose parallel bundles may otherwise hand a key's later record to a producer before its
 * earlier one. The pipeline is the one {@code run} builds ({@link KafkaModelPipeline#outputs} and
 * {@link KafkaModelPipeline#writeTopics}) on the DirectRunner as {@code run} sets it up ({@link
 * KafkaModelPipeline#DIRECT_RUNNER_OPTIONS}), the broker replaced by producers that deliver what
 * they were sent when they flush, after a network's delay ({@link Recording}). With the
 * DirectRunner's default workers it failed: {@code 0=[0, 6, 3, 9, ...]} (docs/decisions/0116).
 */
class KafkaModelPipelineWriteOrderTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int KEYS = 3;
  private static final int ROUNDS = 20;

  /** The changelog topic as the stand-in broker received it, in order. */
  private static final List<String> SENT = Collections.synchronizedList(new ArrayList<>());

  @TempDir Path dir;

  @Test
  void eachKeysChangelogRecordsAreWrittenInTheOrderTheyWereEmitted() throws Exception {
    DeclaredModel model = project();
    Schema schema = model.recordSchema();
    // the DirectRunner as run sets it up
    PipelineOptions options =
        PipelineOptionsFactory.fromArgs(
                KafkaModelPipeline.DIRECT_RUNNER_OPTIONS.entrySet().stream()
                    .map(o -> "--" + o.getKey() + "=" + o.getValue())
                    .toArray(String[]::new))
            .create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    // all the records read before the watermark moves (a backlog, or a partition that has not
    // spoken yet): the keyed stage then releases each key's events one timer after another
    List<SourceRecord> backlog = new ArrayList<>();
    for (long offset = 0; offset < (long) KEYS * ROUNDS; offset++) {
      backlog.add(order(schema, offset));
    }
    PCollection<SourceRecord> records =
        p.apply(
            "Records",
            TestStream.create(SourceRecordCoder.of(schema))
                .addElements(
                    backlog.get(0), backlog.subList(1, backlog.size()).toArray(new SourceRecord[0]))
                .advanceWatermarkToInfinity());
    SourceResult source =
        new SourceResult(
            p,
            new TupleTag<>("records"),
            records,
            new TupleTag<>("quarantined"),
            p.apply("Undecodable", Create.empty(BadRecord.getCoder(p))));
    ModelPipeline.Outputs out = KafkaModelPipeline.outputs(model, source, null, List.of(0));
    SENT.clear();
    KafkaModelPipeline.writeTopics(
        out, KafkaConnection.plaintext("127.0.0.1:1"), new Recording(out.sinks().topic()), null);
    p.run().waitUntilFinish();

    // per key, the causing events' offsets in the order they were sent: each key's events come
    // from one partition in rising event time, so log order, emission order and offset order agree
    Map<Long, List<Long>> sentOffsets = new TreeMap<>();
    List<String> sent;
    synchronized (SENT) {
      sent = new ArrayList<>(SENT);
    }
    for (String line : sent) {
      String[] kv = line.split("\t", 2);
      long key = JSON.readTree(kv[0]).get("customer_id").asLong();
      JsonNode value = JSON.readTree(kv[1]);
      String event = value.get(ModelSinks.EVENT_FIELD).asText();
      sentOffsets
          .computeIfAbsent(key, x -> new ArrayList<>())
          .add(Long.parseLong(event.substring(event.indexOf('-') + 1)));
    }
    assertEquals(
        KEYS * ROUNDS, sent.size(), "one changelog record per event on the topic: " + sent);
    Map<Long, List<Long>> misordered = new TreeMap<>();
    sentOffsets.forEach(
        (key, offsets) -> {
          List<Long> sorted = new ArrayList<>(offsets);
          Collections.sort(sorted);
          if (!sorted.equals(offsets)) {
            misordered.put(key, offsets);
          }
        });
    assertEquals(
        Map.of(),
        misordered,
        "keys whose changelog records were sent out of emission order (causing offsets as sent)");
  }

  /** Offset {@code o}: key {@code o % KEYS}, ordered 10 minutes after the previous round. */
  private static Instant orderedAt(long offset) {
    return Instant.parse("2026-08-30T10:00:00Z")
        .plus(Duration.standardMinutes(10L * (offset / KEYS)));
  }

  private static SourceRecord order(Schema schema, long offset) {
    long customer = offset % KEYS;
    int amount = (int) (offset / KEYS) + 1;
    Instant orderedAt = orderedAt(offset);
    Row row =
        Row.withSchema(schema)
            .withFieldValue("customer_id", customer)
            .withFieldValue("amount", new BigDecimal(amount))
            .withFieldValue("ordered_at", orderedAt)
            .build();
    return SourceRecord.of(0, offset, new Instant(0), row);
  }

  /**
   * Producers standing in for the broker: a record reaches the topic (is appended to {@link #SENT},
   * tab between key and value) when its producer flushes, some milliseconds after it was sent, as
   * over a network — so records of one key sent by two producers at once may land in either order,
   * as they do on a broker, while each producer keeps its own order (one connection, idempotent).
   */
  private static final class Recording
      implements SerializableFunction<Map<String, Object>, Producer<String, String>> {
    private final String topic;

    Recording(String topic) {
      this.topic = topic;
    }

    @Override
    public Producer<String, String> apply(Map<String, Object> config) {
      return new MockProducer<>(false, new StringSerializer(), new StringSerializer()) {
        private final List<String> inFlight = new ArrayList<>();

        @Override
        public synchronized Future<RecordMetadata> send(
            ProducerRecord<String, String> record, Callback callback) {
          if (record.topic().equals(topic)) {
            inFlight.add(record.key() + "\t" + record.value());
          }
          return super.send(record, callback);
        }

        @Override
        public void flush() {
          List<String> landing;
          synchronized (this) {
            landing = new ArrayList<>(inFlight);
            inFlight.clear();
          }
          if (!landing.isEmpty()) {
            try {
              Thread.sleep(ThreadLocalRandom.current().nextInt(20, 200)); // the network
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            SENT.addAll(landing);
          }
          synchronized (this) {
            while (completeNext()) {
              // acknowledged
            }
          }
        }
      };
    }
  }

  private DeclaredModel project() throws Exception {
    write(
        "sources.yml",
        String.join(
            "\n",
            "sources:",
            "  orders:",
            "    connector: kafka",
            "    topic: orders",
            "    schema:",
            "      customer_id: int64",
            "      amount: decimal(12,2)",
            "      ordered_at: timestamp",
            "    event_time: ordered_at",
            "    watermark: 5m",
            ""));
    write(
        "streamform.yml",
        String.join("\n", "models:", "  customer_metrics:", "    key: [customer_id]", ""));
    write(
        "models/customer_metrics.sql",
        "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') GROUP BY"
            + " customer_id\n");
    return DeclaredModel.of(Project.load(dir), "customer_metrics");
  }

  private void write(String relative, String text) throws Exception {
    Path f = dir.resolve(relative);
    Files.createDirectories(f.getParent());
    Files.writeString(f, text);
  }
}
