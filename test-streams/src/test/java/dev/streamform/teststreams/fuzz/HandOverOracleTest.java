package dev.streamform.teststreams.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.teststreams.fixture.Delivery;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.trace.TraceGenerator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The hand-over between the clock and keyed state, checked against the reference oracle the way an
 * author's pipeline meets it: generated traces (several partitions, each key in one of them,
 * disorder within and beyond the watermark, watermark items, retention edges, late events kept) fed
 * as a shuffled {@code Create.of} — a bounded source with no order and no watermark until its end —
 * and as a {@code TestStream} with one element per batch, so the runner hands each stage many small
 * bundles while its watermark moves. Every delivery, run, runner and parallelism must give exactly
 * the oracle's changelog, late events, quarantine and processed count.
 *
 * <p>Traces run several to a pipeline ({@link TraceBatch}: partitions and keys kept apart), which
 * is what keeps this within a minute on two cores. The DirectRunner runs with {@code
 * targetParallelism=12}: it splits a {@code Create.of} into that many bundles and runs that many
 * threads, so the clock's output bundles race each other through the stateless step before the
 * keyed changelog — the reordering the hand-over must survive. (With the default of 3 a large batch
 * comes in a few big bundles that seldom race; at 12 a changelog that applies events as they
 * arrive, as it did before the order-proof hand-over, fails the first shuffled round.)
 */
class HandOverOracleTest {
  private static final FixtureRunner DIRECT =
      FixtureRunner.on(RunnerChoice.direct().withBeamOptions(Map.of("targetParallelism", "12")));
  private static final FixtureRunner FLINK = FixtureRunner.on(RunnerChoice.flinkLocal(2));

  /**
   * The deliveries of one round: {@code shuffles} shuffled Create.of runs, one element per batch.
   */
  private static List<Delivery> deliveries(int shuffles) {
    List<Delivery> all = new ArrayList<>();
    for (int seed = 1; seed <= shuffles; seed++) {
      all.add(Delivery.createOfShuffled(seed));
    }
    all.add(Delivery.oneElementPerBatch());
    return all;
  }

  /** Traces {@code 0..n-1} of {@code seed}, after checking they hold what this test is about. */
  private static List<Fixture> traces(DeclaredModel model, long seed, int n) {
    TraceGenerator generator = TraceGenerator.forModel(model);
    List<Fixture> traces = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      traces.add(generator.generate(seed, i));
    }
    assertTrue(
        traces.stream().anyMatch(t -> t.given().stream().anyMatch(g -> g.partition() > 0)),
        "some trace has several partitions");
    assertTrue(
        traces.stream().anyMatch(t -> t.given().stream().anyMatch(g -> g.watermark().isPresent())),
        "some trace has watermark items");
    return traces;
  }

  /**
   * Every trace on every delivery agrees with the oracle; returns how many comparisons were made.
   */
  private static int assertAgree(
      DeclaredModel model,
      List<Fixture> traces,
      FixtureRunner runner,
      List<Delivery> deliveries,
      int batch) {
    Fuzzer fuzzer = Fuzzer.of(model, batch);
    int compared = 0;
    for (Delivery delivery : deliveries) {
      FixtureRunner fed = runner.delivering(delivery);
      String target = fed.runner().describe() + ", " + delivery.describe();
      for (Fuzzer.Verdict v :
          fuzzer.compare(traces, Fuzzer.Target.of(target, f -> fed.run(model, f)))) {
        assertEquals(
            v.oracle,
            v.actual,
            model.model().name()
                + " "
                + v.trace.name()
                + " on "
                + target
                + ": not the oracle's outcome\n"
                + FuzzRun.diff(v.oracle, v.actual));
        compared++;
      }
    }
    return compared;
  }

  @Test
  void generatedTracesAgreeWithTheOracleOnTheDirectRunnerWhateverTheDelivery() {
    DeclaredModel retention =
        FuzzProjects.model(FuzzProjects.seed("retention"), "customer_metrics");
    DeclaredModel kept =
        FuzzProjects.model(FuzzProjects.seed("late-event-kept"), "customer_metrics");
    int compared =
        assertAgree(retention, traces(retention, 19, 24), DIRECT, deliveries(3), 12)
            + assertAgree(kept, traces(kept, 190, 12), DIRECT, deliveries(1), 12);
    assertEquals(24 * 4 + 12 * 2, compared);
  }

  @Test
  void generatedTracesAgreeWithTheOracleOnFlinkAtParallelismTwo() {
    DeclaredModel retention =
        FuzzProjects.model(FuzzProjects.seed("retention"), "customer_metrics");
    int compared = assertAgree(retention, traces(retention, 1919, 8), FLINK, deliveries(1), 8);
    assertEquals(8 * 2, compared);
  }
}
