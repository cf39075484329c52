package dev.streamform.benchmarks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Project;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 31's prototype ({@link NativeStage}, the changelog contract as native Flink operators)
 * against the oracle, differentially: several seeds and partition counts, each workload long enough
 * (1 event a second, retention 1h) that keys expire by the watermark during the run and late events
 * are dropped. Every answer the benchmark checks must equal the oracle's, values included.
 */
class NativeStageTest {
  @Test
  void equalsTheOracleOverSeedsAndPartitionCounts() throws Exception {
    DeclaredModel model = DeclaredModel.of(Project.load(Path.of("project")), "customer_metrics");
    BeamPipelines.flinkConfDir =
        LiveMetrics.confDir(Files.createDirectories(Path.of("target")).toAbsolutePath());
    List<String> differences = new ArrayList<>();
    int compared = 0;
    for (long seed : new long[] {1, 7, 31}) {
      for (int partitions : new int[] {1, 2, 3}) {
        Workload w = Workload.of(12_000, partitions, seed);
        Map<String, Long> expected = OracleLoop.counters(OracleLoop.run(w, model));
        Map<String, Long> actual = NativeStage.run(w, model.recordSchema(), 2);
        for (String c : Benchmarks.CHANGELOG_CHECK) {
          compared++;
          if (!expected.get(c).equals(actual.get(c))) {
            differences.add(
                "seed "
                    + seed
                    + ", "
                    + partitions
                    + " partitions: "
                    + c
                    + " "
                    + actual.get(c)
                    + " (oracle "
                    + expected.get(c)
                    + ")");
          }
        }
        assertThat(
            "late events in the workload", expected.get("late_events_dropped"), greaterThan(0L));
        assertThat(
            "keys expired while reading", actual.get("keys_expired_before_end"), greaterThan(0L));
      }
    }
    System.out.println("sf-native against the oracle: " + compared + " answers compared");
    assertThat(differences, equalTo(List.of()));
  }
}
