package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureAccept;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ADR 0174: a scoring model's source may have columns named like the keys a decision row gives
 * itself ({@code event}, {@code route}, {@code score}, {@code revision}, {@code state_revision}).
 * In an {@code expect:} row those keys mean the row's own; the source's columns are given as {@code
 * <source>.<column>} — on a decision's row and on a dead letter's alike.
 */
class DecisionRowNamesTest {
  private static final FixtureRunner DIRECT = FixtureRunner.on(RunnerChoice.direct());

  @TempDir Path dir;

  /** The latest_log_order project (source tx, model m_lat) with columns score and event added. */
  private Path project() {
    Path p = FixtureProjects.copy(FixtureProjects.under("fixtures/scoring/latest_log_order"), dir);
    FixtureProjects.replace(
        p, "sources.yml", "amt: int64", "amt: int64\n      score: int64\n      event: string");
    return p;
  }

  private FixtureVerdict judge(Path p, String rows) throws Exception {
    FixtureProjects.write(
        p,
        "fixtures/names.yml",
        """
        model: m_lat
        given:
          - event: { id: x1, k: 1, amt: 10, score: 7, event: click, t: "2026-08-30T10:00:00Z", recv: "2026-08-30T10:00:00Z" }
          - event: { id: z2, k: 1, amt: 20, score: 8, event: view, t: "2026-08-30T10:20:00Z" }
        expect:
        """
            + rows);
    Project project = Project.load(p);
    Fixture f = Fixture.load(project, p.resolve("fixtures/names.yml"));
    DeclaredModel model = DeclaredModel.of(project, "m_lat");
    FixtureOutcome direct = DIRECT.run(model, f);
    return FixtureVerdict.judge(f, model, direct);
  }

  @Test
  void theSourcesColumnsNamedLikeTheRowsOwnKeysAreGivenByTheSourcesName() throws Exception {
    FixtureVerdict v =
        judge(
            project(),
            """
              - { event: 1, route: scored, tx.score: 7, tx.event: click, spend: 0, n: 0, score: 0.0, revision: 1 }
              - { event: 2, route: dead_lettered, amt: 20, tx.score: 8, tx.event: view }
            """);
    v.assertPassed();
  }

  @Test
  void aWrongValueOfAQualifiedColumnFailsTheRowNamingIt() throws Exception {
    FixtureVerdict v =
        judge(
            project(),
            """
              - { event: 1, route: scored, spend: 0, n: 0, score: 0.0 }
              - { event: 2, route: dead_lettered, tx.score: 9 }
            """);
    assertThat(v.render(), containsString("`tx.score` is 8, expected 9"));
  }

  @Test
  void theRowsOwnKeyMeansItselfAndTheFailureSaysHowToGiveTheColumn() throws Exception {
    FixtureVerdict v =
        judge(
            project(),
            """
              - { event: 1, route: scored, spend: 0, n: 0, score: 0.0 }
              - { event: 2, route: dead_lettered, score: 8 }
            """);
    String report = v.render();
    assertThat(
        report,
        containsString(
            "`score` is null, expected 8.0 (the row's own `score`; the source's column of that name"
                + " is written `tx.score`)"));
    // the routed side shows the event's column qualified, beside the decision's own score
    assertThat(report, containsString("tx.score=7"));
    assertThat(report.lines().toList(), not(hasItem(containsString(" score=7"))));
  }

  @Test
  void aDeadLettersReasonIsGivenAsItsCodeOrAsTextItsDescriptionContains() throws Exception {
    Path p = project();
    judge(
            p,
            """
              - { event: 1, route: scored, spend: 0, n: 0, score: 0.0 }
              - { event: 2, route: dead_lettered, reason: clock_skew }
            """)
        .assertPassed();
    judge(
            p,
            """
              - { event: 1, route: scored, spend: 0, n: 0, score: 0.0 }
              - { event: 2, route: dead_lettered, reason: "`recv` is missing" }
            """)
        .assertPassed();
    String report =
        judge(
                p,
                """
                  - { event: 1, route: scored, spend: 0, n: 0, score: 0.0 }
                  - { event: 2, route: dead_lettered, reason: no_key_value }
                """)
            .render();
    assertThat(
        report,
        containsString(
            "`reason` is clock_skew (partition 0 offset 1: arrival column `recv` is missing"));
    assertThat(report, containsString("which neither is nor contains \"no_key_value\""));
    assertThat(report, containsString("reason=clock_skew"));
  }

  @Test
  void aSourceColumnAFeatureHidesIsGivenByTheSourcesName() throws Exception {
    Path p = project();
    FixtureProjects.write(
        p,
        "models/m_lat.sql",
        "SELECT k, SUM(amt) AS amt, COUNT(*) AS n FROM source('tx') GROUP BY k\n");
    FixtureProjects.write(p, "models/lin.yml", "bias: 0\nweights: { amt: 1, n: 100 }\n");
    judge(
            p,
            """
              - { event: 1, route: scored, amt: 0, tx.amt: 10, n: 0, score: 0.0 }
              - { event: 2, route: dead_lettered, tx.amt: 20 }
            """)
        .assertPassed();
    String report =
        judge(
                p,
                """
                  - { event: 1, route: scored, amt: 10, n: 0, score: 0.0 }
                  - { event: 2, route: dead_lettered }
                """)
            .render();
    assertThat(
        report,
        containsString(
            "`amt` is 0.0, expected 10 (the feature `amt`; the source's column of that name is"
                + " written `tx.amt`)"));
    assertThat(report, containsString("tx.amt=10"));
  }

  @Test
  void lateAndQuarantinedRowsOfAScoringFixtureAreRefusedForExpectRows() throws Exception {
    Path p = project();
    FixtureProjects.write(
        p,
        "fixtures/sections.yml",
        """
        model: m_lat
        given:
          - event: { id: x1, k: 1, amt: 10, t: "2026-08-30T10:00:00Z", recv: "2026-08-30T10:00:00Z" }
        expect:
          - { event: 1, route: scored }
        late:
          - { id: x1 }
        quarantined:
          - { id: zzz }
        """);
    Project project = Project.load(p);
    InvalidProjectException e =
        assertThrows(
            InvalidProjectException.class,
            () -> Fixture.load(project, p.resolve("fixtures/sections.yml")));
    assertThat(
        e.getMessage(),
        containsString(
            "a scoring model's fixture lists its events by route under expect:, in delivery order"
                + " (a late event is a row of its route), so late: rows are never compared"));
    assertThat(
        e.getMessage(),
        containsString(
            "move each row to expect:, e.g. - { event: <its number>, route: dead_lettered, reason:"
                + " no_key_value }, and remove quarantined:"));
  }

  @Test
  void acceptWritesAScoringFixturesDeadLettersAsExpectRowsOnly() throws Exception {
    Path p = project();
    judge(p, "  - { event: 1, route: scored }\n");
    Project project = Project.load(p);
    Fixture f = Fixture.load(project, p.resolve("fixtures/names.yml"));
    DeclaredModel model = DeclaredModel.of(project, "m_lat");
    FixtureAccept.Written written = FixtureAccept.write(project, f, model, DIRECT.run(model, f));
    assertThat(written.message(), containsString("accepted: wrote 2 expect: rows to "));
    assertThat(written.roundTrips(), is(true));
    String text = Files.readString(p.resolve("fixtures/names.yml"));
    assertThat(text, containsString("route: dead_lettered"));
    assertThat(text, not(containsString("quarantined:")));
    assertThat(text, not(containsString("late:")));
  }
}
