package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureStream;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The receipts project (test-streams/fixtures/decisions/receipts): its fixtures, worked out by
 * hand, pass on the DirectRunner with the decision counts, and on the Flink runner at parallelism 2
 * (both fixtures in one job), with the same routed rows and identities as on the DirectRunner.
 */
class DecisionFixturesTest {
  static final Path RECEIPTS = FixtureProjects.under("fixtures/decisions/receipts");

  @Test
  void receiptsPassOnTheDirectRunnerWithTheirCounts() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    boolean passed =
        new FixtureSuite(
                FixtureRunner.on(RunnerChoice.direct()),
                new PrintWriter(bytes, true, StandardCharsets.UTF_8))
            .run(RECEIPTS);
    String output = bytes.toString(StandardCharsets.UTF_8);
    assertThat(output, passed, is(true));
    assertThat(
        output,
        containsString(
            "offline_uploads (model receipt_risk)\nPASS\n8 events processed\n"
                + "10 decisions emitted\n4 revised\n2 late, revising\n2 dead-lettered\n"));
    assertThat(
        output,
        containsString(
            "reconciled (model receipt_risk_reconciled)\nPASS\n6 events processed\n"
                + "6 decisions emitted\n2 reconciled\n2 dead-lettered\n"));
  }

  @Test
  void receiptsPassOnFlinkAtParallelismTwoWithTheDirectRunnersIdentities() throws Exception {
    Project project = Project.load(RECEIPTS);
    List<Fixture> fixtures = new ArrayList<>();
    List<FixtureRunner.Case> cases = new ArrayList<>();
    for (Path file : Fixture.filesOf(project)) {
      Fixture f = Fixture.load(project, file);
      fixtures.add(f);
      cases.add(FixtureRunner.Case.of(DeclaredModel.of(project, f.model()), f));
    }
    List<FixtureOutcome> flink = FixtureRunner.on(RunnerChoice.flinkLocal(2)).runTogether(cases);
    for (int i = 0; i < fixtures.size(); i++) {
      Fixture f = fixtures.get(i);
      DeclaredModel model = DeclaredModel.of(project, f.model());
      FixtureVerdict.judgeDecisions(f, FixtureStream.compile(f, model), flink.get(i))
          .assertPassed();
      FixtureOutcome direct = FixtureRunner.on(RunnerChoice.direct()).run(model, f);
      assertThat(f.name(), flink.get(i).canonical(), is(direct.canonical()));
    }
  }
}
