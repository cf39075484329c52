package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.oracle.ScoringOracle;
import dev.streamform.teststreams.replay.ReplayOrders;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ADR 0112: under {@code latest_available} a key's events reach the scorer in log order — each
 * partition's own events in offset order — on every run, so the same fixture decides the same way
 * every time and every arrival order of {@code replay-orders} decides as order 1 (the audit's p2:
 * {@code late_action: revise}, {@code late_updates_state: true}, a declared {@code event_id}, whose
 * duplicate stage hands the events over in an order of its own).
 */
class LatestAvailableLogOrderTest {
  static final Path PROJECT = FixtureProjects.under("fixtures/scoring/latest_log_order");

  /**
   * The runner's order varied from run to run: in some runs x5 (offset 3) was decided before x4
   * (offset 2) was applied, and x4 then revised it. Every run must give the fixture's rows, worked
   * out in offset order.
   */
  @Test
  void onePartitionDecidesInOffsetOrderOnEveryRun() {
    for (int run = 1; run <= 10; run++) {
      FixtureVerdict verdict =
          StreamformFixtures.inProject(PROJECT).run("fixtures/one_partition.yml");
      assertThat("run " + run + ":\n" + verdict.render(), verdict.passed(), is(true));
    }
  }

  /**
   * Every arrival order, each partition delayed included, decides as order 1: the per-partition
   * logs fix the log order (nothing the contract would merely permit, let alone what it does not).
   */
  @Test
  void everyArrivalOrderDecidesAsOrderOne() throws Exception {
    Project project = Project.load(PROJECT);
    StringWriter out = new StringWriter();
    ReplayOrders.Result result =
        ReplayOrders.run(
            DeclaredModel.of(project, "m_lat"),
            Fixture.load(project, PROJECT.resolve("fixtures/two_partitions.yml")),
            ReplayOrders.Options.orders(12, 5).withDelayedPartitions(true),
            FixtureRunner.on(RunnerChoice.direct()),
            new PrintWriter(out, true));
    String o = out.toString();
    assertThat(o, result.permitted(), is(true));
    assertThat(o, result.differingRuns(), is(0));
    assertThat(o, not(containsString("differences from order 1")));
    assertThat(
        o,
        containsString(
            "identical decisions and final feature state in every order — more than"
                + " latest_available requires (it would let what a decision read depend on arrival"
                + " order)\n"));
  }

  /**
   * The scoring oracle reads latest available in log order too, so it and the stage agree whatever
   * the delivery order — partition 1's first event delivered before partition 0's included, which
   * the oracle used to apply first, as delivered.
   */
  @Test
  void theOracleAgreesWithTheStageInLogOrder() throws Exception {
    Project project = Project.load(PROJECT);
    FixtureRunner direct = FixtureRunner.on(RunnerChoice.direct());
    for (String file :
        List.of(
            "fixtures/one_partition.yml",
            "fixtures/two_partitions.yml",
            "fixtures/partition_one_first.yml")) {
      Fixture fixture = Fixture.load(project, PROJECT.resolve(file));
      DeclaredModel model = DeclaredModel.of(project, fixture.model());
      FixtureOutcome oracle = ScoringOracle.of(model).run(fixture);
      assertEquals(direct.run(model, fixture).canonical(), oracle.canonical(), file);
    }
  }
}
