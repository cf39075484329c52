package dev.streamform.pipelines.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.policies.project.Project;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.dedup.Deduplicate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 16, duplicates on Kafka: a source with {@code event_id} gets {@link Deduplicate} right
 * after its clock, for upsert and windowed models alike, and its dropped duplicates are written to
 * the topic {@code <model>.duplicates} (conflicts join the quarantine topic); a source without has
 * neither the step nor the topic. Built only: the pipeline is never run, so no broker is needed.
 */
class KafkaModelPipelineDuplicatesTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "windowed={0}, event_id={1}")
  @CsvSource({"false, true", "true, true", "false, false", "true, false"})
  void aSourceWithEventIdsDropsDuplicatesAfterItsClockIntoTheirOwnTopic(
      boolean windowed, boolean ids) throws Exception {
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
            ids ? "    event_id: order_id\n    duplicates_within: 2h" : "",
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
    DeclaredModel model = DeclaredModel.of(Project.load(dir), "customer_metrics");
    ModelSinks sinks =
        KafkaModelPipeline.build(
            p, model, KafkaConnection.plaintext("127.0.0.1:1"), null, List.of(0, 1));

    List<String> order = new ArrayList<>(); // clock and duplicate steps, in topological order
    List<Deduplicate> dedups = new ArrayList<>();
    List<String> names = new ArrayList<>();
    p.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            names.add(node.getFullName());
            if (node.getTransform() instanceof SourceClock) {
              order.add("clock");
            } else if (node.getTransform() instanceof Deduplicate) {
              order.add("duplicates");
              dedups.add((Deduplicate) node.getTransform());
            }
            return CompositeBehavior.ENTER_TRANSFORM;
          }
        });
    if (ids) {
      assertEquals(List.of("clock", "duplicates"), order);
      assertEquals("order_id", dedups.get(0).idColumn());
      assertEquals(7_200_000L, dedups.get(0).horizon().getMillis());
      assertEquals(Optional.of("customer_metrics.duplicates"), sinks.duplicatesTopic());
      assertEquals(
          List.of(
              "orders",
              "customer_metrics",
              "customer_metrics.late",
              "customer_metrics.quarantine",
              "customer_metrics.duplicates"),
          sinks.topics("orders"));
      assertTrue(names.contains("Write customer_metrics.duplicates"), names.toString());
    } else {
      assertEquals(List.of("clock"), order);
      assertEquals(Optional.empty(), sinks.duplicatesTopic());
      assertTrue(names.stream().noneMatch(n -> n.contains("duplicates")), names.toString());
    }
  }

  private void write(String relative, String text) throws Exception {
    Path f = dir.resolve(relative);
    Files.createDirectories(f.getParent());
    Files.writeString(f, text);
  }
}
