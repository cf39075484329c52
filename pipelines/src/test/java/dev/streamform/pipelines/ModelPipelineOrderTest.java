package dev.streamform.pipelines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.policies.project.Project;
import dev.streamform.transforms.PlantedDefect;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.collect.LinesToFiles;
import dev.streamform.transforms.dedup.Deduplicate;
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
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Where {@link ModelPipeline#build} applies an upsert model's events on arrival (a runner that
 * keeps each key's order from the clock to the changelog: Flink, for a Kafka job), nothing keyed
 * otherwise may stand between them. Before issue 31 the duplicate detection of a source with {@code
 * event_id} was keyed by id and released each id's events by its own timer, so after it a
 * customer's events reached the changelog in no fixed order (found by the fault suite on a Flink
 * cluster at parallelism 2, {@code
 * FaultSuiteTest.duplicateIdsBeforeAndAfterACheckpointAndAcrossATaskManagerKill}), and such a model
 * fell back to log order. With {@code event_id_scope: key} the detection is keyed by the model's
 * key and judges on arrival too (ADR 0073); with the default, source-wide ids, the model still
 * applies in log order. The first test inspects the built graph, the Flink tests run the key-scoped
 * one and show what the choice guards, and that its on-arrival path answers as the log-order path
 * does.
 */
class ModelPipelineOrderTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int CUSTOMERS = 60;

  @TempDir Path dir;

  /** The source's ids: none, {@code event_id} (scoped by the source), or by the model's key. */
  enum Ids {
    NONE,
    SOURCE,
    KEY
  }

  @ParameterizedTest(name = "ids={0}")
  @EnumSource(Ids.class)
  void onArrivalOnlyWithoutADuplicateDetectionKeyedOtherwiseThanTheModel(Ids ids) throws Exception {
    DeclaredModel model = project(ids);
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    PCollection<SourceRecord> records =
        p.apply("Records", Create.empty(SourceRecordCoder.of(model.recordSchema())));
    PCollection<KV<String, String>> unreadable =
        p.apply("Unreadable", Create.empty(KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of())));

    ModelPipeline.build(
        model, records, unreadable, model.logClock().withPartitions(List.of(0, 1)), true, null);

    List<String> stages = new ArrayList<>();
    p.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            if (node.getTransform() instanceof KeyedChangelog) {
              KeyedChangelog c = (KeyedChangelog) node.getTransform();
              stages.add("changelog by " + c.keyColumns() + " on arrival " + c.arrivalOrder());
            }
            if (node.getTransform() instanceof Deduplicate) {
              Deduplicate d = (Deduplicate) node.getTransform();
              stages.add("duplicates within " + d.scope() + " on arrival " + d.arrivalOrder());
            }
            return CompositeBehavior.ENTER_TRANSFORM;
          }
        });
    List<String> expected = new ArrayList<>();
    if (ids == Ids.SOURCE) {
      // keyed by id: after it a key's events arrive in no fixed order, so log order
      expected.add("duplicates within [] on arrival false");
      expected.add("changelog by [customer_id] on arrival false");
    } else {
      if (ids == Ids.KEY) {
        expected.add("duplicates within [customer_id] on arrival true");
      }
      expected.add("changelog by [customer_id] on arrival true");
    }
    assertEquals(
        expected,
        stages,
        "on arrival only where nothing keyed otherwise than the model stands before the changelog:"
            + " with event_id_scope: key the duplicate detection is keyed by the model's key and"
            + " judges on arrival too; with source-wide ids the changelog applies in log order");
  }

  /**
   * The pipeline run as {@code streamform run} builds it for Flink ({@code appliedOnArrival}), with
   * {@code event_id_scope: key}, on an embedded Flink cluster at parallelism 2, where the defect
   * was found. Each customer has two orders with their own ids, one partition, one delivery, one
   * event time (so one stamp: log order is offset order). Keyed by id (planted: {@link
   * PlantedDefect#DEDUP_ON_ARRIVAL_BY_ID}), a customer's two orders often sit on different subtasks
   * and reach the changelog over different channels, in no fixed order, and some customers' {@code
   * insert} carries the second order. Keyed by the customer, the changelog applies them in log
   * order: {@code insert} of the first order, then {@code update} of the second, for every
   * customer.
   */
  @Test
  void withEventIdsEachCustomersOrdersAreAppliedInLogOrderOnFlinkAtParallelismTwo()
      throws Exception {
    DeclaredModel model = project(Ids.KEY);
    Schema schema = model.recordSchema();
    Instant at = Instant.parse("2026-08-30T10:00:00Z");
    List<TimestampedValue<SourceRecord>> delivery = new ArrayList<>();
    Set<String> expected = new TreeSet<>();
    for (int c = 0; c < CUSTOMERS; c++) {
      long first = 2L * c;
      delivery.add(TimestampedValue.of(order(schema, 0, first, "o" + first, c, "10.00", at), at));
      delivery.add(
          TimestampedValue.of(order(schema, 0, first + 1, "o" + (first + 1), c, "5.00", at), at));
      expected.add(c + " insert 10.00 0-" + first);
      expected.add(c + " update 15.00 0-" + (first + 1));
    }
    Path out = run(model, delivery, true, "changelog");
    Set<String> got = new TreeSet<>(LinesToFiles.read(out, "changelog"));
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

  /**
   * An {@code event_id} model with {@code event_id_scope: key} applied on arrival (as {@code run}
   * builds it for Flink) gives the changelog, duplicates and quarantine of the log-order path, both
   * on an embedded Flink cluster at parallelism 2: customers on two partitions, each with two
   * orders, an exact repeat (a duplicate), a repeat with another amount (a conflict), an id of
   * another customer's order under this customer's key (its own event, ADR 0073), a late event,
   * and, once both partitions' watermarks passed the 10-minute horizon, repeats of first orders'
   * ids (first again: processed) and exact repeats of those (duplicates of the new first). Every
   * event is in exactly one output.
   */
  @Test
  void anEventIdModelOnArrivalAnswersAsTheLogOrderPathOnFlink() throws Exception {
    DeclaredModel model = project(Ids.KEY);
    Schema schema = model.recordSchema();
    Instant t0 = Instant.parse("2026-08-30T10:00:00Z");
    Instant t1 = t0.plus(Duration.standardMinutes(30)); // W_p -> 10:25 > 10:00 + 10m
    long[] offsets = new long[2];
    List<TimestampedValue<SourceRecord>> delivery = new ArrayList<>();
    java.util.function.BiConsumer<Integer, Object[]> give =
        (p, o) -> {
          Instant t = (Instant) o[3];
          delivery.add(
              TimestampedValue.of(
                  order(schema, p, offsets[p]++, (String) o[0], (long) o[1], (String) o[2], t), t));
        };
    int[] expected = new int[4]; // processed, duplicates, quarantined, late, as given
    for (int c = 0; c < CUSTOMERS; c++) {
      int p = c % 2;
      give.accept(p, new Object[] {"a" + c, (long) c, "10.00", t0});
      expected[0]++;
      if (c % 3 == 0) {
        give.accept(p, new Object[] {"a" + c, (long) c, "10.00", t0}); // duplicate
        expected[1]++;
      }
      give.accept(p, new Object[] {"b" + c, (long) c, "5.00", t0});
      expected[0]++;
      if (c % 3 == 1) {
        give.accept(p, new Object[] {"b" + c, (long) c, "6.00", t0}); // conflict
        expected[2]++;
      }
      if (c % 5 == 2) {
        // customer c + 2 lives on the same partition: order a<c>'s id under its key
        give.accept(p, new Object[] {"a" + c, (long) (c + 2) % CUSTOMERS, "1.00", t0});
        expected[0]++;
      }
    }
    for (int p = 0; p < 2; p++) {
      give.accept(p, new Object[] {"tick" + p, 1000L + p, "0.00", t1}); // both W_p -> 10:25
      give.accept(p, new Object[] {"late" + p, 1000L + p, "0.00", t0}); // late: 10:00 < 10:25
      expected[0]++;
      expected[3]++;
    }
    for (int c = 0; c < CUSTOMERS; c += 4) {
      give.accept(c % 2, new Object[] {"a" + c, (long) c, "10.00", t1}); // past the horizon
      give.accept(c % 2, new Object[] {"a" + c, (long) c, "10.00", t1}); // its duplicate
      expected[0]++;
      expected[1]++;
    }
    Path logOrder = run(model, delivery, false, "log-order");
    Path onArrival = run(model, delivery, true, "on-arrival");
    List<String> counts = new ArrayList<>();
    for (String output : List.of("changelog", "duplicates", "quarantine", "late")) {
      Set<String> reference = new TreeSet<>(LinesToFiles.read(logOrder, output));
      Set<String> got = new TreeSet<>(LinesToFiles.read(onArrival, output));
      Set<String> unexpected = new TreeSet<>(got);
      unexpected.removeAll(reference);
      Set<String> missing = new TreeSet<>(reference);
      missing.removeAll(got);
      assertTrue(
          unexpected.isEmpty() && missing.isEmpty(),
          output
              + " on arrival differs from log order: "
              + unexpected.size()
              + " unexpected "
              + unexpected
              + "; "
              + missing.size()
              + " missing "
              + missing);
      counts.add(output + " " + got.size());
    }
    // processed + duplicates + quarantine + late = every event given, once (each applied event
    // emits one changelog record)
    assertEquals(delivery.size(), expected[0] + expected[1] + expected[2] + expected[3]);
    assertEquals(
        "changelog "
            + expected[0]
            + " duplicates "
            + expected[1]
            + " quarantine "
            + expected[2]
            + " late "
            + expected[3],
        String.join(" ", counts),
        "counts on arrival; " + delivery.size() + " events given");
  }

  /** Runs {@code delivery} through the model on embedded Flink p2; the outputs' lines in a dir. */
  private Path run(
      DeclaredModel model,
      List<TimestampedValue<SourceRecord>> delivery,
      boolean onArrival,
      String name)
      throws Exception {
    TestStream<SourceRecord> items =
        TestStream.create(SourceRecordCoder.of(model.recordSchema()))
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
            model,
            p.apply("Records", items),
            unreadable,
            model.clock().withPartitions(List.of(0, 1)),
            onArrival,
            null);
    Path into = dir.resolve(name);
    out.records()
        .apply(
            "Lines", MapElements.into(TypeDescriptors.strings()).via(ModelPipelineOrderTest::line))
        .apply("Write", ParDo.of(LinesToFiles.of(into, "changelog")));
    write(out.duplicates(), into, "duplicates");
    write(out.quarantined(), into, "quarantine");
    write(out.late(), into, "late");
    assertEquals(PipelineResult.State.DONE, p.run().waitUntilFinish());
    return into;
  }

  /** A JSON output's records as lines {@code key value}, for comparing two runs. */
  private static void write(PCollection<KV<String, String>> records, Path into, String name) {
    records
        .apply(
            name + "Lines",
            MapElements.into(TypeDescriptors.strings())
                .via((KV<String, String> r) -> r.getKey() + " " + r.getValue()))
        .apply(name + "Write", ParDo.of(LinesToFiles.of(into, name)));
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
      Schema schema,
      int partition,
      long offset,
      String id,
      long customer,
      String amount,
      Instant orderedAt) {
    Row row =
        Row.withSchema(schema)
            .withFieldValue("order_id", id)
            .withFieldValue("customer_id", customer)
            .withFieldValue("amount", new java.math.BigDecimal(amount))
            .withFieldValue("ordered_at", orderedAt)
            .build();
    return SourceRecord.of(partition, offset, orderedAt, row);
  }

  private DeclaredModel project(Ids ids) throws Exception {
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
            ids != Ids.NONE ? "    event_id: order_id" : "",
            ids != Ids.NONE ? "    duplicates_within: 10m" : "",
            ids == Ids.KEY ? "    event_id_scope: key" : "",
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
