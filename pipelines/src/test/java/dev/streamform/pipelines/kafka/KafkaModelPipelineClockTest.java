package dev.streamform.pipelines.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Project;
import dev.streamform.transforms.clock.SourceClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 16: the topic's partitions reach the clock of every model {@code streamform run} builds on
 * Kafka, upsert models included, so no key's state can expire before each partition has delivered
 * (see {@code QuarantinedFirstRecordTest} in transforms for what happens without). Built only: the
 * pipeline is never run, so no broker is needed.
 */
class KafkaModelPipelineClockTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "windowed={0}")
  @ValueSource(booleans = {false, true})
  void theTopicsPartitionsAreDeclaredToTheClock(boolean windowed) throws Exception {
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
        String.join(
            "\n",
            "models:",
            "  customer_metrics:",
            "    key: [customer_id]",
            windowed ? "    window: 1h" : "    retention: 10m",
            ""));
    write(
        "models/customer_metrics.sql",
        "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') GROUP BY"
            + " customer_id\n");
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    KafkaModelPipeline.build(
        p,
        DeclaredModel.of(Project.load(dir), "customer_metrics"),
        KafkaConnection.plaintext("127.0.0.1:1"),
        null,
        List.of(0, 1, 2));

    List<SourceClock> clocks = new ArrayList<>();
    p.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            if (node.getTransform() instanceof SourceClock) {
              clocks.add((SourceClock) node.getTransform());
            }
            return CompositeBehavior.ENTER_TRANSFORM;
          }
        });
    assertEquals(1, clocks.size(), "one clock in the pipeline");
    assertEquals(List.of(0, 1, 2), clocks.get(0).partitions());
  }

  private void write(String relative, String text) throws Exception {
    Path f = dir.resolve(relative);
    Files.createDirectories(f.getParent());
    Files.writeString(f, text);
  }
}
