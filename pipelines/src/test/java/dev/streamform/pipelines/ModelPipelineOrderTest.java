package dev.streamform.pipelines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.policies.project.Project;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.collect.LinesToFiles;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Where {@link ModelPipeline#build} may apply an upsert model's events on arrival (a runner that
 * keeps each key's order from the clock to the changelog: Flink, for a Kafka job), it does so only
 * when nothing keyed otherwise stands between them. The duplicate detection of a source with {@code
 * event_id} is keyed by id and releases each id's events by its own timer, so after it a customer's
 * events reach the changelog in no fixed order: the changelog must then apply them in log order.
 * (Found by the fault suite on a Flink cluster at parallelism 2: records applied out of log order,
 * {@code FaultSuiteTest.duplicateIdsBeforeAndAfterACheckpointAndAcrossATaskManagerKill}.) The first
 * test inspects the built graph; the second runs it and shows what the choice guards.
 */
class ModelPipelineOrderTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int CUSTOMERS = 60;

  @TempDir Path dir;

  @ParameterizedTest(name = "event_id={0}")
  @ValueSource(booleans = {true, false})
  void onArrivalOnlyWithoutTheDuplicateDetectionBeforeTheChangelog(boolean ids) throws Exception {
    DeclaredModel model = project(ids);
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    PCollection<SourceRecord> records =
        p.apply("Records", Create.empty(SourceRecordCoder.of(model.recordSchema())));
    PCollection<KV<String, String>> unreadable =
        p.apply("Unreadable", Create.empty(KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of())));

    ModelPipeline.build(
        model, records, unreadable, model.logClock().withPartitions(List.of(0, 1)), true, null);

    List<Boolean> onArrival = new ArrayList<>();
    p.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            if (node.getTransform() instanceof KeyedChangelog) {
              onArrival.add(((KeyedChangelog) node.getTransform()).arrivalOrder());
            }
            return CompositeBehavior.ENTER_TRANSFORM;
          }
        });
    assertEquals(
        List.of(!ids),
        onArrival,
        ids
            ? "after the duplicate detection (keyed by id) the changelog applies events in log"
                + " order"
            : "straight after the clock the changelog applies events as they arrive, as asked");
  }

  /**
   * The pipeline run as {@code streamform run} builds it for Flink ({@code appliedOnArrival}), on
   * an embedded Flink cluster at parallelism 2, where the defect was found. Each customer has two
   * orders with their own ids, one partition, one delivery, one event time (so one stamp: log order
   * is offset order). The duplicate detection keys them by id, so a customer's two orders often sit
   * on different subtasks, are released by separate timers and reach the changelog over different
   * channels, in no fixed order. The changelog must still apply them in log order: {@code insert}
   * of the first order, then {@code update} of the second, for every customer. Applied on arrival,
   * some customers' {@code insert} carries the second order.
   */
  @Test
  void withEventIdsEachCustomersOrdersAreAppliedInLogOrderOnFlinkAtParallelismTwo()
      throws Exception {
    DeclaredModel model = project(true);
    Schema schema = model.recordSchema();
    Instant at = Instant.parse("2026-08-30T10:00:00Z");
    List<TimestampedValue<SourceRecord>> delivery = new ArrayList<>();
    Set<String> expected = new TreeSet<>();
    for (int c = 0; c < CUSTOMERS; c++) {
      long first = 2L * c;
      delivery.add(TimestampedValue.of(order(schema, first, c, "10.00", at), at));
      delivery.add(TimestampedValue.of(order(schema, first + 1, c, "5.00", at), at));
      expected.add(c + " insert 10.00 0-" + first);
      expected.add(c + " update 15.00 0-" + (first + 1));
    }
    TestStream<SourceRecord> items =
        TestStream.create(SourceRecordCoder.of(schema))
            .addElements(delivery.get(0), delivery.subList(1, delivery.size()).toArray(sized()))
            .advanceWatermarkToInfinity();
    FlinkPipelineOptions options = PipelineOptionsFactory.as(FlinkPipelineOptions.class);
    options.setRunner(FlinkRunner.class);
    options.setFlinkMaster("[local]");
    options.setParallelism(2);
    options.setStreaming(true);
    options.setShutdownSourcesAfterIdleMs(0L);
    Pipeline p = Pipeline.create(options);
    PCollection<KV<String, String>> unreadable =
        p.apply("Unreadable", Create.empty(KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of())));

    // the fixtures' clock: offset order restored per partition, whatever the source's fan-out
    ModelPipeline.Outputs out =
        ModelPipeline.build(
            model, p.apply("Records", items), unreadable, model.clock(), true, null);
    Path changelog = dir.resolve("changelog");
    out.records()
        .apply(
            "Lines", MapElements.into(TypeDescriptors.strings()).via(ModelPipelineOrderTest::line))
        .apply("Write", ParDo.of(new LinesToFiles(changelog, "changelog")));
    assertEquals(PipelineResult.State.DONE, p.run().waitUntilFinish());

    Set<String> got = new TreeSet<>(LinesToFiles.read(changelog, "changelog"));
    Set<String> unexpected = new TreeSet<>(got);
    unexpected.removeAll(expected);
    Set<String> missing = new TreeSet<>(expected);
    missing.removeAll(got);
    Set<String> customers = new TreeSet<>();
    unexpected.forEach(line -> customers.add(line.substring(0, line.indexOf(' '))));
    missing.forEach(line -> customers.add(line.substring(0, line.indexOf(' '))));
    assertTrue(
        unexpected.isEmpty() && missing.isEmpty(),
        "changelog records not in log order for "
            + customers.size()
            + " of "
            + CUSTOMERS
            + " customers: "
            + unexpected
            + "; missing "
            + missing);
  }

  @SuppressWarnings("unchecked")
  private static TimestampedValue<SourceRecord>[] sized() {
    return new TimestampedValue[0];
  }

  /** {@code <customer> <op> <total_spend> <event>} of a changelog record's JSON key and value. */
  private static String line(KV<String, String> record) {
    try {
      JsonNode key = JSON.readTree(record.getKey());
      JsonNode value = JSON.readTree(record.getValue());
      return key.get("customer_id").asText()
          + " "
          + value.get("op").asText()
          + " "
          + new java.math.BigDecimal(value.get("total_spend").asText()).setScale(2)
          + " "
          + value.get(ModelSinks.EVENT_FIELD).asText();
    } catch (Exception e) {
      throw new IllegalStateException("not a changelog record: " + record, e);
    }
  }

  private static SourceRecord order(
      Schema schema, long offset, long customer, String amount, Instant orderedAt) {
    Row row =
        Row.withSchema(schema)
            .withFieldValue("order_id", "o" + offset)
            .withFieldValue("customer_id", customer)
            .withFieldValue("amount", new java.math.BigDecimal(amount))
            .withFieldValue("ordered_at", orderedAt)
            .build();
    return SourceRecord.of(0, offset, orderedAt, row);
  }

  private DeclaredModel project(boolean ids) throws Exception {
    write(
        "sources.yml",
        String.join(
            "\n",
            "sources:",
            "  orders:",
            "    connector: kafka",
            "    topic: orders",
            "    schema:",
            "      order_id: string",
            "      customer_id: int64",
            "      amount: decimal(12,2)",
            "      ordered_at: timestamp",
            "    event_time: ordered_at",
            "    watermark: 5m",
            ids ? "    event_id: order_id" : "",
            ""));
    write(
        "streamform.yml",
        "models:\n  customer_metrics:\n    materialized: upsert\n    key: [customer_id]\n");
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
