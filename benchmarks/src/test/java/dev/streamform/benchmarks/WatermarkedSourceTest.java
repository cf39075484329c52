package dev.streamform.benchmarks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThan;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Project;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Flink benchmark source has a watermark, so retention frees state during the run, and the live
 * state is measured from the pipeline's own {@code keys_live} counter (issue 22): on the embedded
 * Flink runner at parallelism 2, streamform over 20,000 events equals the oracle in values, applied
 * on arrival (what run builds) and in log order; in log order state is freed while the input is
 * read — the last live-keys sample, taken from the pipeline's own counter while it runs, is far
 * below the keys ever inserted (without a watermark the hand-over would apply nothing before the
 * end, and the samples would stay at 0); and the windowed model equals the windowed oracle in
 * values. The on-arrival path's live keys are measured by the benchmark against the oracle's (ADR
 * 0066), not bounded here: they trail by the keys touched during the watermark's lag, which grows
 * as the pipeline gets faster (the bound here failed at 7,337 against 7,049 once the key check was
 * folded into the event-time step).
 */
class WatermarkedSourceTest {
  @Test
  void retentionWorksDuringTheRunAndLiveStateIsMeasuredInThePipeline() throws Exception {
    Workload w = Workload.of(20_000, 2, 11);
    Project project = Project.load(Path.of("project"));
    DeclaredModel model = DeclaredModel.of(project, "customer_metrics");
    Path target = Files.createDirectories(Path.of("target"));
    BeamPipelines.flinkConfDir = LiveMetrics.confDir(target.toAbsolutePath());

    Map<String, Long> expected = OracleLoop.counters(OracleLoop.run(w, model));
    // what run builds on Flink (applied on arrival): the oracle's values
    Map<String, Long> onArrival =
        BeamPipelines.run(BeamPipelines.streamform(BeamPipelines.flink(2), w, model));
    for (String c : List.of("late_events_dropped", "outputs", "inserts", "values_digest")) {
      assertThat("on arrival: " + c, onArrival.get(c), equalTo(expected.get(c)));
    }
    // every key life freed by its tick by the end of the bounded input: a tick that fires before
    // its key's deadline is moved to it, and at the end of input every tick left fires
    assertThat(
        "on arrival: keys_expired",
        onArrival.get("keys_expired"),
        equalTo(onArrival.get("inserts")));
    assertThat("on arrival: keys_live", onArrival.get("keys_live"), equalTo(0L));
    // the log-order path frees state as the runner's watermark passes, as the oracle does; the
    // on-arrival path's live keys trail by the keys touched during the watermark's lag, which
    // grows with the pipeline's speed (ADR 0066), so the bound below is checked on log order
    LiveMetrics.Sampler sampler = new LiveMetrics.Sampler();
    Map<String, Long> actual =
        BeamPipelines.run(BeamPipelines.streamform(BeamPipelines.flink(2), w, model, false));
    List<long[]> samples = sampler.stop();
    for (String c : List.of("late_events_dropped", "outputs", "inserts", "values_digest")) {
      assertThat("log order: " + c, actual.get(c), equalTo(expected.get(c)));
    }
    assertThat("samples taken while reading", samples.size(), greaterThan(2));
    long[] last = samples.get(samples.size() - 1);
    long inserts = actual.get("inserts");
    // with retention 1h over ~5.5h of events, state is freed as the watermark moves: the live keys
    // the pipeline counts stay near the oracle's ~3,200, far below the 14,000-odd lives inserted
    assertThat(last[1], greaterThan(1_000L));
    assertThat(last[1], lessThan(inserts / 2));
    assertThat("state bytes measured", actual.get("state_bytes_per_key"), greaterThan(8L));

    DeclaredModel hourly = DeclaredModel.of(project, "hourly_revenue");
    Map<String, Long> windowedExpected =
        OracleLoop.windowedCounters(OracleLoop.runWindowed(w, hourly));
    Map<String, Long> windowed =
        BeamPipelines.run(BeamPipelines.streamformWindowed(BeamPipelines.flink(2), w, hourly));
    for (String c :
        List.of(
            "outputs",
            "window_revisions",
            "windows_finalized",
            "window_late_rows",
            "values_digest")) {
      assertThat(c, windowed.get(c), equalTo(windowedExpected.get(c)));
    }
  }
}
