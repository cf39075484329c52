package dev.streamform.pipelines;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Project;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
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
 * {@code FaultSuiteTest.duplicateIdsBeforeAndAfterACheckpointAndAcrossATaskManagerKill}.) Built
 * only, never run.
 */
class ModelPipelineOrderTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "event_id={0}")
  @ValueSource(booleans = {true, false})
  void onArrivalOnlyWithoutTheDuplicateDetectionBeforeTheChangelog(boolean ids) throws Exception {
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
    DeclaredModel model = DeclaredModel.of(Project.load(dir), "customer_metrics");
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

  private void write(String relative, String text) throws Exception {
    Path f = dir.resolve(relative);
    Files.createDirectories(f.getParent());
    Files.writeString(f, text);
  }
}
