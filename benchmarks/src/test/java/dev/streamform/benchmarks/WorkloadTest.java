package dev.streamform.benchmarks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThan;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The only benchmark code that runs in {@code mvn verify} (a second or two): the workload is
 * deterministic and has the promised shape, and the oracle's state census works on it.
 */
class WorkloadTest {
  static final int EVENTS = 20_000;

  @Test
  void sameSeedSameEventsInContiguousPartitionOrder() {
    Workload a = Workload.generate(EVENTS, 2, 1);
    Workload b = Workload.generate(EVENTS, 2, 1);
    assertThat(Arrays.equals(a.eventTime, b.eventTime), equalTo(true));
    assertThat(Arrays.equals(a.customerId, b.customerId), equalTo(true));
    for (int p = 0; p < a.partitions; p++) {
      for (int o = 0; o < a.byPartition[p].length; o++) {
        int i = a.byPartition[p][o];
        assertThat(a.offset[i], equalTo((long) o));
        assertThat(a.partition[i], equalTo(p));
      }
    }
  }

  @Test
  void aboutOnePercentIsLateAndRetentionShrinksTheState() throws Exception {
    Workload w = Workload.of(EVENTS, 2, 7);
    DeclaredModel model = DeclaredModel.of(Project.load(Path.of("project")), "customer_metrics");
    FixtureOutcome outcome = OracleLoop.run(w, model);
    double late = outcome.late.size() / (double) EVENTS;
    assertThat(late, allOf(greaterThan(0.005), lessThan(0.015)));
    long[] live = OracleLoop.liveKeys(w, outcome);
    assertThat(live[1], greaterThan(8_000L)); // 20k events over 10k keys touch most of them
    assertThat(live[0], allOf(greaterThan(0L), lessThan(live[1] / 2)));
  }

  /**
   * The benchmark's "= oracle" check compares values, not only counts: streamform on the
   * DirectRunner gives the oracle's late count, changelog count, inserts and values digest on a
   * small workload, and the same pipeline summing with MAX (a planted bug that keeps every count
   * the old check compared) does not. State is measured in the pipeline: every key freed by the end
   * of input (keys_live 0).
   */
  @Test
  void streamformMatchesTheOraclesValuesAndAPlantedRetentionDoesNot() throws Exception {
    Workload w = Workload.of(2_000, 2, 7);
    DeclaredModel model = DeclaredModel.of(Project.load(Path.of("project")), "customer_metrics");
    java.util.Map<String, Long> expected = OracleLoop.counters(OracleLoop.run(w, model));
    java.util.Map<String, Long> actual =
        BeamPipelines.run(BeamPipelines.streamform(BeamPipelines.direct(), w, model));
    for (String c :
        java.util.List.of("late_events_dropped", "outputs", "inserts", "values_digest")) {
      assertThat(c, actual.get(c), equalTo(expected.get(c)));
    }
    assertThat(actual.get("keys_expired"), equalTo(actual.get("inserts")));
    assertThat(actual.get("keys_live"), equalTo(0L));

    // a planted bug that keeps every count: MAX where the model says SUM
    java.util.Map<String, Long> planted =
        BeamPipelines.run(
            BeamPipelines.streamform(
                BeamPipelines.direct(),
                w,
                model,
                dev.streamform.transforms.changelog.Aggregation.max("amount").as("total_spend")));
    for (String c : java.util.List.of("late_events_dropped", "outputs", "inserts")) {
      assertThat(c, planted.get(c), equalTo(expected.get(c)));
    }
    assertThat(planted.get("values_digest").equals(expected.get("values_digest")), equalTo(false));
  }
}
