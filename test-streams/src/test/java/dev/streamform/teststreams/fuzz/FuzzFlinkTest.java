package dev.streamform.teststreams.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Generated traces on embedded Flink at parallelism 2 agree with the oracle: one pipeline. */
class FuzzFlinkTest {

  @Test
  void fiftyTracesAgreeWithTheOracleAtParallelismTwo(@TempDir Path dir) throws Exception {
    assertFiftyTracesAgree(FixtureRunner.on(RunnerChoice.flinkLocal(2)), dir);
  }

  /** The same traces with the changelog applied on arrival, as {@code run} on Flink applies it. */
  @Test
  void fiftyTracesAgreeWithTheOracleOnArrivalAtParallelismTwo(@TempDir Path dir) throws Exception {
    assertFiftyTracesAgree(FixtureRunner.on(RunnerChoice.flinkLocal(2)).appliedOnArrival(), dir);
  }

  private static void assertFiftyTracesAgree(FixtureRunner runner, Path dir) throws Exception {
    DeclaredModel model = FuzzProjects.model(FuzzProjects.seed("retention"), "customer_metrics");
    StringWriter log = new StringWriter();
    FuzzRun.Result result =
        new FuzzRun(model, Fuzzer.of(model, 50), new PrintWriter(log))
            .run(50, 7, List.of(Fuzzer.Target.of(runner, model)), dir);
    assertEquals(50, result.agreeing, log.toString());
  }
}
