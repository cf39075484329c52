package dev.streamform.benchmarks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Project;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The live-state measure of the benchmark ({@link OracleLoop#liveKeysAt}, issue 31): after every
 * event of every partition it gives the keys the reference oracle's own changelog says are live
 * ({@link OracleLoop#liveKeys}, computed from the oracle's output, not from the workload); with one
 * partition read further than the other, the keys a stage freeing by one watermark over all
 * partitions must still hold (docs/semantics.md §3.4) exceed the keys §3.3 keeps.
 */
class LiveKeysAtTest {
  @Test
  void agreesWithTheOraclesChangelogAndSeparatesTheOneWatermarkBound() throws Exception {
    Workload w = Workload.of(20_000, 2, 7);
    DeclaredModel model = DeclaredModel.of(Project.load(Path.of("project")), "customer_metrics");
    long[] fromOracle = OracleLoop.liveKeys(w, OracleLoop.run(w, model));
    long[] all = {w.byPartition[0].length, w.byPartition[1].length};
    long[] at = OracleLoop.liveKeysAt(w, all);
    assertThat("keys live after every event", at[0], equalTo(fromOracle[0]));

    // partition 0 read 2,000 events (about 1.1 h of its event time) further than partition 1
    long[] skewed = {6_000, 4_000};
    long[] live = OracleLoop.liveKeysAt(w, skewed);
    System.out.printf(
        "live keys at reads %d/%d: %d (docs/semantics.md §3.3), %d held by one watermark (§3.4)%n",
        skewed[0], skewed[1], live[0], live[1]);
    assertThat("held by one watermark beyond the kept keys", live[1], greaterThan(live[0]));
  }
}
