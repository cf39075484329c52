package dev.streamform.teststreams.fuzz;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.teststreams.fixture.FixtureKind;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A difference that does not show when its trace runs alone (it showed only in its batch, or only
 * once) is said, with what reproduces it, and written as no fixture: a fixture of it would pass. A
 * fixture that is written records the session's --batch.
 */
class FuzzUnreproducedDifferenceTest {
  private static final DeclaredModel MODEL =
      FuzzProjects.model(FuzzProjects.seed("retention"), "customer_metrics");
  private static final Function<Fixture, FixtureOutcome> ORACLE = FixtureKind.of(MODEL).oracle();

  @TempDir Path dir;

  /** The oracle's outcome of no items at all: a wrong outcome for any trace with events. */
  private static FixtureOutcome nothing(Fixture f) {
    return ORACLE.apply(Fixture.builder(f.name(), f.model()).build());
  }

  @Test
  void aDifferenceSeenOnlyOnceWritesNoFixtureAndSaysHowToSeeItAgain() throws Exception {
    int[] calls = {0};
    Fuzzer.Target flaky =
        Fuzzer.Target.of("flaky", f -> ++calls[0] == 1 ? nothing(f) : ORACLE.apply(f));
    StringWriter log = new StringWriter();

    FuzzRun.Result result =
        new FuzzRun(MODEL, Fuzzer.of(MODEL, 1), new PrintWriter(log))
            .withProject(Path.of("p"))
            .run(1, 7, List.of(flaky), dir);

    assertThat(
        log.toString(),
        containsString(
            "flaky: the difference did not reproduce outside its batch: seed 7, --batch 1, trace-0"
                + " (its batch: trace-0) agrees when run alone, shrunk or whole; no fixture"
                + " written. To see it again: streamform fuzz p --model customer_metrics --traces 1"
                + " --seed 7 --batch 1\n"));
    assertThat(result.fixtures, hasSize(0));
    try (java.util.stream.Stream<Path> files = Files.list(dir)) {
      assertThat(files.count(), is(0L));
    }
    assertThat(result.allAgree(), is(false));
  }

  @Test
  void aWrittenFixtureRecordsTheBatch() throws Exception {
    Fuzzer.Target wrong = Fuzzer.Target.of("wrong", FuzzUnreproducedDifferenceTest::nothing);
    StringWriter log = new StringWriter();

    FuzzRun.Result result =
        new FuzzRun(MODEL, Fuzzer.of(MODEL, 4), new PrintWriter(log))
            .run(1, 7, List.of(wrong), dir);

    assertThat(result.fixtures, hasSize(1));
    assertThat(
        Files.readString(result.fixtures.get(0)),
        containsString("Found by `streamform fuzz` (seed 7, --batch 4, trace-0, shrunk from"));
  }
}
