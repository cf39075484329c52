package dev.streamform.teststreams.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.oracle.Oracle;
import dev.streamform.teststreams.oracle.PerKey;
import dev.streamform.teststreams.trace.Interleavings;
import dev.streamform.teststreams.trace.TraceGenerator;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Generated traces on the DirectRunner agree with the oracle, whatever the partition order. */
class FuzzDirectTest {
  private static final FixtureRunner DIRECT = FixtureRunner.on(RunnerChoice.direct());

  @Test
  void twoHundredTracesAgreeWithTheOracle(@TempDir Path dir) throws Exception {
    int agreeing = 0;
    // the seed's model with retention, and a model with another schema, aggregates and WHERE
    DeclaredModel retention =
        FuzzProjects.model(FuzzProjects.seed("retention"), "customer_metrics");
    DeclaredModel sessions =
        FuzzProjects.model(FuzzProjects.sessions(dir.resolve("s")), "sessions");
    for (Object[] run : new Object[][] {{retention, 120}, {sessions, 80}}) {
      DeclaredModel model = (DeclaredModel) run[0];
      StringWriter log = new StringWriter();
      FuzzRun.Result result =
          new FuzzRun(model, Fuzzer.of(model, 40), new PrintWriter(log))
              .run(
                  (Integer) run[1],
                  2026,
                  List.of(Fuzzer.Target.of(DIRECT, model)),
                  dir.resolve("out"));
      assertTrue(result.allAgree(), log.toString());
      agreeing += result.agreeing;
    }
    assertEquals(200, agreeing);
  }

  /**
   * A source without event time: traces run together in one pipeline (the default batching) agree
   * with the oracle (found by a read-only audit of determinism: the merged fixture closed each
   * trace with a watermark item, which such a source refuses, and fuzz stopped with an internal
   * error).
   */
  @Test
  void tracesOfASourceWithoutEventTimeRunTogetherAndAgree(@TempDir Path dir) throws Exception {
    DeclaredModel model =
        FuzzProjects.model(
            Path.of("src/test/resources/report-cases/no-event-time"), "customer_metrics");
    StringWriter log = new StringWriter();
    FuzzRun.Result result =
        new FuzzRun(model, Fuzzer.of(model, 40), new PrintWriter(log))
            .run(5, 1, List.of(Fuzzer.Target.of(DIRECT, model)), dir.resolve("out"));
    assertTrue(result.allAgree(), log.toString());
    assertEquals(5, result.agreeing);
  }

  /**
   * Issue 16: traces whose events repeat (the same order again, or its id with another amount or
   * time) agree with the oracle, which judges ids on its own; the traces do hold duplicates and
   * conflicts, so the comparison covers them.
   */
  @Test
  void tracesWithRepeatedEventIdsAgreeWithTheOracle(@TempDir Path dir) throws Exception {
    DeclaredModel model =
        FuzzProjects.model(
            FuzzProjects.ordersWithIds(dir.resolve("ids"), false), "customer_metrics");
    StringWriter log = new StringWriter();
    FuzzRun.Result result =
        new FuzzRun(model, Fuzzer.of(model, 40), new PrintWriter(log))
            .run(80, 2026, List.of(Fuzzer.Target.of(DIRECT, model)), dir.resolve("out"));
    assertTrue(result.allAgree(), log.toString());
    assertEquals(80, result.agreeing);
    int duplicates = 0;
    int conflicts = 0;
    Oracle oracle = Oracle.of(model);
    TraceGenerator generator = TraceGenerator.forModel(model);
    for (int i = 0; i < 80; i++) {
      FixtureOutcome expected = oracle.run(generator.generate(2026, i));
      duplicates += expected.duplicates.size();
      conflicts +=
          (int) expected.quarantined.stream().filter(q -> q.reason.startsWith("event_id")).count();
    }
    assertTrue(duplicates >= 20, duplicates + " duplicates in 80 traces");
    assertTrue(conflicts >= 5, conflicts + " conflicts in 80 traces");
  }

  @Test
  void perKeyResultsOnTheRunnerDoNotDependOnPartitionInterleaving() {
    DeclaredModel model = FuzzProjects.model(FuzzProjects.seed("retention"), "customer_metrics");
    TraceGenerator generator = TraceGenerator.forModel(model);
    List<Fixture> orders = new ArrayList<>();
    int traces = 0;
    for (int i = 0; traces < 8; i++) {
      Fixture trace = generator.generate(5, i);
      if (trace.given().stream().anyMatch(g -> g.partition() > 0)) {
        traces++;
        for (long order = 0; order < 3; order++) {
          orders.add(Interleavings.of(trace, order));
        }
      }
    }
    // every ordering of every trace in one pipeline, then compared per key
    TraceBatch batch = TraceBatch.of(model, orders, 1);
    List<FixtureOutcome> outcomes = batch.split(DIRECT.run(model, batch.fixture()));
    for (int t = 0; t < traces; t++) {
      String first = PerKey.of(model, outcomes.get(3 * t));
      assertTrue(first.contains("key "), first);
      for (int order = 1; order < 3; order++) {
        assertEquals(
            first, PerKey.of(model, outcomes.get(3 * t + order)), orders.get(3 * t + order).name());
      }
    }
  }
}
