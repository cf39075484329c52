package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.oracle.ScoringOracle;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * ADR 0113: a fixture event without its declared arrival column is dead-lettered with a reason that
 * names the column, on the stage and in the scoring oracle alike (it was judged against the epoch:
 * {@code ... ahead of its arrival 1970-01-01T00:00:00.000Z}).
 */
class MissingArrivalFixtureTest {
  static final Path PROJECT = LatestAvailableLogOrderTest.PROJECT;

  @Test
  void anEventWithoutItsArrivalColumnIsDeadLetteredNamingIt() throws Exception {
    FixtureVerdict verdict =
        StreamformFixtures.inProject(PROJECT).run("fixtures/missing_arrival.yml");
    assertThat(verdict.render(), verdict.passed(), is(true));
    String canonical = verdict.outcome().canonical();
    assertThat(
        canonical,
        containsString(
            "partition 0 offset 1: arrival column `recv` is missing, so its clock skew cannot be"
                + " judged; give the record its `recv`"));
    Project project = Project.load(PROJECT);
    Fixture fixture = Fixture.load(project, PROJECT.resolve("fixtures/missing_arrival.yml"));
    DeclaredModel model = DeclaredModel.of(project, fixture.model());
    FixtureOutcome oracle = ScoringOracle.of(model).run(fixture);
    assertEquals(
        FixtureRunner.on(RunnerChoice.direct()).run(model, fixture).canonical(),
        oracle.canonical());
  }
}
