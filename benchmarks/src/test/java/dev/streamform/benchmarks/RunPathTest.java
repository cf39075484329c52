package dev.streamform.benchmarks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;

import dev.streamform.pipelines.kafka.KafkaRecordDecoding;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.sinks.JsonRecords;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.transforms.changelog.KeyedChangelog;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.junit.jupiter.api.Test;

/**
 * Issue 31: the benchmark's row {@code streamform} is the pipeline {@code run} builds — on arrival
 * on Flink, in log order on the DirectRunner — and {@code sf-log-order} the other path; every one
 * reads Kafka records (key, partition, offset, JSON value) through the decoding {@code run}
 * applies, and a record's JSON says what the workload (and so the oracle) says. Builds the
 * pipelines' graphs only; nothing runs.
 */
class RunPathTest {
  private static final DeclaredModel MODEL = model();

  private static DeclaredModel model() {
    try {
      return DeclaredModel.of(Project.load(Path.of("project")), "customer_metrics");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** {changelog orders: true = on arrival}, then the decodings, of {@code p}'s graph. */
  private static List<Object> walk(Pipeline p) {
    List<Object> found = new ArrayList<>();
    p.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            if (node.getTransform() instanceof KeyedChangelog) {
              found.add(((KeyedChangelog) node.getTransform()).arrivalOrder());
            }
            if (node.getTransform() instanceof KafkaRecordDecoding) {
              found.add("decoding");
            }
            return CompositeBehavior.ENTER_TRANSFORM;
          }
        });
    return found;
  }

  @Test
  void theStreamformRowIsWhatRunBuildsOnEachRunnerAndTheOtherPathIsItsOwnRow() {
    Workload w = Workload.of(100, 2, 3);
    assertThat(
        "streamform on Flink: on arrival, as run builds it there",
        walk(BeamPipelines.streamform(BeamPipelines.flink(2), w, MODEL)),
        contains("decoding", true));
    assertThat(
        "streamform on the DirectRunner: log order, as run builds it there",
        walk(BeamPipelines.streamform(BeamPipelines.direct(), w, MODEL)),
        contains("decoding", false));
    assertThat(
        "sf-log-order on Flink: the other path",
        walk(BeamPipelines.streamform(BeamPipelines.flink(2), w, MODEL, false)),
        contains("decoding", false));
  }

  /** ADR 0069: the Streamform rows with {@code run}'s options, the baselines with Beam's. */
  @Test
  void theStreamformRowsRunWithTheOptionsRunSetsAndTheBaselinesWithBeamsDefaults() {
    FlinkPipelineOptions run = RunnerChoice.flinkLocal(2).options().as(FlinkPipelineOptions.class);
    FlinkPipelineOptions row = BeamPipelines.asRun(2).as(FlinkPipelineOptions.class);
    assertThat("object reuse, as run sets it", row.getObjectReuse(), equalTo(run.getObjectReuse()));
    assertThat(row.getObjectReuse(), equalTo(true));
    assertThat(row.getParallelism(), equalTo(2));
    assertThat(
        "a baseline: Beam's default",
        BeamPipelines.flink(2).as(FlinkPipelineOptions.class).getObjectReuse(),
        equalTo(false));
    assertThat(
        "the fixture suite: as streamform test runs it",
        FixtureSpeed.AS_STREAMFORM_TEST.options().as(DirectOptions.class).isEnforceImmutability(),
        equalTo(false));
  }

  @Test
  void aRecordIsTheEventsJsonAtItsPartitionAndOffsetAndDecodesToTheWorkloadsValues()
      throws Exception {
    Workload w = Workload.generate(500, 2, 5);
    JsonRecords json = JsonRecords.of(MODEL.source().schema(), MODEL.keyColumns());
    for (int i = 0; i < w.events; i++) {
      KafkaRecord<byte[], byte[]> r = WorkloadSource.record(w, i, 0L);
      assertThat(r.getPartition(), equalTo(w.partition[i]));
      assertThat(r.getOffset(), equalTo(w.offset[i]));
      assertThat(new String(r.getKV().getKey(), "UTF-8"), equalTo(Long.toString(w.customerId[i])));
      Map<String, Object> values = json.decode(r.getKV().getValue()).values();
      assertThat("event " + i, values.get("customer_id"), equalTo(w.customerId[i]));
      assertThat(
          "event " + i, ((BigDecimal) values.get("amount")).compareTo(w.amount(i)), equalTo(0));
      assertThat(
          "event " + i,
          ((java.time.Instant) values.get("ordered_at")).toEpochMilli(),
          equalTo(w.eventTime[i]));
    }
  }
}
