package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.oracle.WindowPolicy;
import dev.streamform.teststreams.oracle.WindowedOracle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every windowed fixture of the seed projects (test-streams/fixtures/time) gives the same records,
 * too-late rows, quarantine and counts on the DirectRunner as the plain-Java reference {@link
 * WindowedOracle}, and the reference's answer passes the fixture's hand-written expectations too:
 * the expectations, the oracle and the Beam transforms agree.
 */
class WindowedOracleAgreementTest {

  @Test
  void everyWindowedSeedFixtureAgreesWithTheOracle() throws Exception {
    FixtureRunner direct = FixtureRunner.on(RunnerChoice.direct());
    List<String> checked = new ArrayList<>();
    for (Path dir : FixtureSuite.projectsAt(FixtureProjects.TIME)) {
      Project project = Project.load(dir);
      for (Path file : Fixture.filesOf(project)) {
        Fixture fixture = Fixture.load(project, file);
        DeclaredModel model = DeclaredModel.of(project, fixture.model());
        if (!model.windowed()) {
          continue;
        }
        FixtureOutcome beam = direct.run(model, fixture);
        FixtureOutcome oracle = WindowedOracle.of(model).outcome(fixture);
        String where = dir.getFileName() + "/" + file.getFileName();
        assertEquals(oracle.canonical(), beam.canonical(), where + ": DirectRunner vs oracle");
        assertEquals(
            List.of(
                oracle.processed,
                oracle.revisionsEmitted(),
                oracle.windowsFinalized(),
                oracle.late.size(),
                oracle.quarantined.size()),
            List.of(
                beam.processed,
                beam.revisionsEmitted(),
                beam.windowsFinalized(),
                beam.late.size(),
                beam.quarantined.size()),
            where + ": processed, revisions, finalized, late, quarantined");
        FixtureVerdict.judge(fixture, model, oracle).assertPassed();
        checked.add(where);
      }
    }
    // hourly-revenue (2), hopping-revenue, two-partitions, early-results
    assertThat(checked.toString(), checked.size(), greaterThanOrEqualTo(5));
  }

  @Test
  void theOracleOfADeclaredModelTakesItsWindowPolicyFromStreamformYml() throws Exception {
    WindowPolicy early = oracleOf("early-results", "hourly_revenue").policy();
    assertEquals(
        new WindowPolicy(
            "hourly_revenue",
            Duration.ofHours(1),
            Duration.ofHours(1),
            Duration.ofMinutes(10),
            2,
            1),
        early);
    WindowPolicy hopping = oracleOf("hopping-revenue", "hopping_revenue").policy();
    assertEquals(
        new WindowPolicy(
            "hopping_revenue",
            Duration.ofHours(1),
            Duration.ofMinutes(30),
            Duration.ofMinutes(15),
            0,
            1),
        hopping);
  }

  private static WindowedOracle oracleOf(String project, String model) throws Exception {
    return WindowedOracle.of(
        DeclaredModel.of(Project.load(FixtureProjects.TIME.resolve(project)), model));
  }
}
