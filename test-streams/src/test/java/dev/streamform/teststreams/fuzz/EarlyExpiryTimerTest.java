package dev.streamform.teststreams.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureStream;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.oracle.Oracle;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fuzzer, in batches of traces as CI runs it, catches an expiry timer that fires 1 ms early
 * ({@link PlantedBugs#earlyExpiryTimer}) on the DirectRunner and shrinks it to a fixture: possible
 * only because the fixture stream moves the runner's watermark to {@code min_p W_p} as the items
 * go, so timers fire mid-stream (with the watermark held at the start until the end, every timer
 * fires after the last event and this bug changes nothing). {@link FuzzFlinkTest} shows the same
 * on embedded Flink.
 */
class EarlyExpiryTimerTest {
  private static final FixtureRunner DIRECT = FixtureRunner.on(RunnerChoice.direct());

  @Test
  void anExpiryTimerFiringOneMillisecondEarlyIsCaughtAndShrunk(@TempDir Path dir) throws Exception {
    Path projectDir = FuzzProjects.seed("retention");
    DeclaredModel model = FuzzProjects.model(projectDir, "customer_metrics");
    Fuzzer.Target broken = Fuzzer.Target.of("direct (expiry timer 1 ms early)",
        f -> DIRECT.run(model, f, PlantedBugs.earlyExpiryTimer(model), model.outputColumns()));
    StringWriter log = new StringWriter();
    FuzzRun.Result result = new FuzzRun(model, Fuzzer.of(model, 40), new PrintWriter(log))
        .run(40, 11, List.of(broken), dir);
    System.out.println(log);

    assertFalse(result.allAgree(), log.toString());
    assertEquals(1, result.fixtures.size(), log.toString());
    Fixture fixture = Fixture.load(Project.load(projectDir), result.fixtures.get(0));
    assertTrue(fixture.given().size() <= 8, log.toString());
    // the shrunk fixture: the oracle and the real model pass it, the planted timer fails it
    assertTrue(judge(fixture, model, Oracle.of(model).run(fixture)).passed(), log.toString());
    assertTrue(judge(fixture, model, DIRECT.run(model, fixture)).passed(), log.toString());
    FixtureOutcome planted =
        DIRECT.run(model, fixture, PlantedBugs.earlyExpiryTimer(model), model.outputColumns());
    assertFalse(judge(fixture, model, planted).passed(), log.toString());
    // and what it fails on is an INSERT where the key's state had to survive
    String expected = Oracle.of(model).run(fixture).canonical();
    assertTrue(expected.contains(" update "), expected);
    assertTrue(FuzzRun.diff(expected, planted.canonical()).contains("> "), log.toString());
  }

  private static FixtureVerdict judge(Fixture fixture, DeclaredModel model, FixtureOutcome outcome) {
    return FixtureVerdict.judge(fixture, FixtureStream.compile(fixture, model), outcome,
        model.source(), model.outputColumns());
  }
}
