package dev.streamform.teststreams.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureStream;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.trace.Interleavings;
import dev.streamform.teststreams.trace.TraceGenerator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The oracle against the seed's hand-written fixtures, and its own arrival-order invariance. */
class OracleTest {

  static Path seed(String name) {
    for (Path p :
        new Path[] {Paths.get("fixtures/time"), Paths.get("test-streams/fixtures/time")}) {
      if (Files.isDirectory(p.resolve(name))) {
        return p.resolve(name);
      }
    }
    throw new IllegalStateException(name);
  }

  @ParameterizedTest
  @ValueSource(strings = {"late-event", "late-event-kept", "watermark-items", "retention"})
  void passesTheSeedFixtures(String name) throws Exception {
    Project project = Project.load(seed(name));
    for (Path file : Fixture.filesOf(project)) {
      Fixture fixture = Fixture.load(project, file);
      DeclaredModel model = DeclaredModel.of(project, fixture.model());
      FixtureOutcome outcome = Oracle.of(model).run(fixture);
      FixtureVerdict verdict =
          FixtureVerdict.judge(
              fixture,
              FixtureStream.compile(fixture, model),
              outcome,
              model.source(),
              model.outputColumns());
      assertTrue(verdict.passed(), verdict.render());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"late-event", "late-event-kept", "retention"})
  void perKeyResultsDoNotDependOnHowPartitionsInterleave(String name) throws Exception {
    DeclaredModel model = DeclaredModel.of(Project.load(seed(name)), "customer_metrics");
    Oracle oracle = Oracle.of(model);
    TraceGenerator generator = TraceGenerator.forModel(model);
    int multiPartition = 0;
    for (int i = 0; i < 300; i++) {
      Fixture trace = generator.generate(11, i);
      if (trace.given().stream().noneMatch(g -> g.partition() > 0)) {
        continue;
      }
      multiPartition++;
      String first = PerKey.of(model, oracle.run(Interleavings.of(trace, 0)));
      for (long order = 1; order < 6; order++) {
        assertEquals(
            first,
            PerKey.of(model, oracle.run(Interleavings.of(trace, order))),
            trace.name() + " order " + order);
      }
    }
    assertTrue(multiPartition > 100, "only " + multiPartition + " multi-partition traces");
  }
}
