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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The receipts project (test-streams/fixtures/decisions/receipts): its fixtures, worked out by
 * hand, pass on the DirectRunner with the decision counts, and on the Flink runner at parallelism 2
 * (both fixtures in one job), with the same routed rows and identities as on the DirectRunner.
 */
class DecisionFixturesTest {
  static final Path RECEIPTS = FixtureProjects.under("fixtures/decisions/receipts");
  static final Path RETRIED = FixtureProjects.under("fixtures/decisions/retried_receipts");

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
            "offline_uploads (model receipt_risk)\nPASS\n6 events processed\n"
                + "10 decisions emitted\n4 revised\n2 late, revising\n2 dead-lettered\n"));
    assertThat(
        output,
        containsString(
            "reconciled (model receipt_risk_reconciled)\nPASS\n6 events processed\n"
                + "6 decisions emitted\n2 reconciled\n2 dead-lettered\n"));
  }

  /**
   * With {@code late_updates_state: true} a late receipt is applied to feature state, yet it is
   * late, not processed too: each event of the fixture is on exactly one count line — processed,
   * late (revising, reconciled, ignored), dead-lettered or a duplicate — as {@code streamform run}
   * counts it (decided + late + dead-lettered + duplicates = lines read).
   */
  @Test
  void aLateEventThatUpdatesStateIsCountedOnceAsLate(@TempDir Path tmp) throws Exception {
    FixtureVerdict uploads =
        StreamformFixtures.inProject(RECEIPTS).run("fixtures/offline_uploads.yml");
    uploads.assertPassed();
    assertCountsAddUp(uploads, 10);
    assertThat(uploads.render(), containsString("PASS\n6 events processed\n"));

    // the same receipts with their ids, r1 and the late r7 uploaded again: two duplicates
    Path p = FixtureProjects.copy(RETRIED.toAbsolutePath(), tmp);
    String written = FixtureProjects.read(RETRIED.resolve("fixtures/uploads.yml"));
    int expect = written.indexOf("\nexpect:");
    String repeats =
        """
          - event: { receipt_id: "r1", merchant_id: 7, amount: 100.00, occurred_at: "2026-08-30T10:00:00Z", received_at: "2026-08-30T10:00:00Z" }
          - event: { receipt_id: "r7", merchant_id: 7, amount: 60.00,  occurred_at: "2026-08-30T10:05:00Z", received_at: "2026-08-30T11:02:00Z" }
        """;
    FixtureProjects.write(
        p,
        "fixtures/retried.yml",
        written.substring(0, expect + 1)
            + repeats
            + written.substring(expect + 1)
            + "duplicates:\n  - { receipt_id: \"r1\" }\n  - { receipt_id: \"r7\" }\n");
    FixtureVerdict retried = StreamformFixtures.inProject(p).run("fixtures/retried.yml");
    retried.assertPassed();
    assertCountsAddUp(retried, 12);
    assertThat(
        retried.render(),
        containsString(
            "6 events processed\n10 decisions emitted\n4 revised\n2 late, revising\n"
                + "2 dead-lettered\n2 duplicates dropped\n"));
  }

  private static final Pattern COUNT =
      Pattern.compile(
          "(?m)^(\\d+) (?:events? processed|late, revising|reconciled|ignored \\(late\\)"
              + "|dead-lettered|duplicates? dropped|late events? dropped|events? quarantined)$");

  /** The report's count lines of events add up to the fixture's {@code events}, each once. */
  private static void assertCountsAddUp(FixtureVerdict v, int events) {
    assertThat(
        v.fixture().name(),
        v.fixture().given().stream().filter(g -> g.event().isPresent()).count(),
        is((long) events));
    int counted = 0;
    Matcher m = COUNT.matcher(v.render());
    while (m.find()) {
      counted += Integer.parseInt(m.group(1));
    }
    assertThat("the counts of\n" + v.render(), counted, is(events));
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
