package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.replay.Repeats;
import dev.streamform.teststreams.replay.ReplayOrders;
import dev.streamform.transforms.PlantedDefect;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code replay-orders} with repeats and a restore (docs/semantics.md §11) on the retried receipts
 * project: no repeat makes a decision in any arrival order, and every order stopped with a Flink
 * savepoint after 5 events and restored from it decides as order 1 does uninterrupted — and the
 * judge catches a conflict taken for a duplicate, and a restore that loses the keyed state.
 */
class ReplayRepeatsAndRestoreTest {
  static final Path RETRIED = FixtureProjects.under("fixtures/decisions/retried_receipts");

  private final StringWriter out = new StringWriter();

  private ReplayOrders.Result replay(ReplayOrders.Options options) throws Exception {
    Project project = Project.load(RETRIED);
    Fixture fixture = Fixture.load(project, RETRIED.resolve("fixtures/uploads.yml"));
    return ReplayOrders.run(
        DeclaredModel.of(project, "receipt_risk"),
        fixture,
        options,
        FixtureRunner.on(RunnerChoice.direct()),
        new PrintWriter(out, true));
  }

  @Test
  void noRepeatMakesADecisionInAnyArrivalOrder() throws Exception {
    ReplayOrders.Result result =
        replay(ReplayOrders.Options.orders(3, 7).withDelayedPartitions(true).withDuplicates(true));
    String o = out.toString();
    assertThat(o, result.permitted(), is(true));
    assertThat(o, result.runs(), is(5));
    assertThat(
        o,
        containsString(
            "  0-1, an exact repeat of 0-0 (before the middle)\n"
                + "  0-3, a repeat of 0-2 with another merchant_id (before the middle)\n"));
    assertThat(o, containsString("partition 1 delayed): identical to order 1\n"));
    assertThat(o, containsString("repeats: in every order, no repeat made a decision"));
  }

  @Test
  void aConflictTakenForADuplicateIsNotPermitted() throws Exception {
    ReplayOrders.Result result;
    try (PlantedDefect.Scope s = PlantedDefect.plant(PlantedDefect.DEDUP_CONFLICT_AS_DUPLICATE)) {
      result = replay(ReplayOrders.Options.orders(1, 7).withDuplicates(true));
    }
    String o = out.toString();
    assertThat(o, result.permitted(), is(false));
    assertThat(
        o,
        containsString(
            "  repeat 0-3, a repeat of 0-2 with another merchant_id (before the middle): dropped as"
                + " a duplicate — a repeat with another payload is dead-lettered as an event_id"
                + " conflict   (not permitted)\n"));
  }

  @Test
  void everyOrderRestoredFromASavepointWithRepeatsAndADelayedPartitionDecidesAsOrderOne()
      throws Exception {
    ReplayOrders.Result result =
        replay(
            ReplayOrders.Options.orders(1, 7)
                .withDelayedPartitions(true)
                .withDuplicates(true)
                .withRestoreAt(5));
    String o = out.toString();
    assertThat(o, result.permitted(), is(true));
    assertThat(o, result.runs(), is(6));
    assertThat(
        o,
        containsString(
            "  0-5, an exact repeat of 0-4 (after the restore)\n"
                + "  0-6, a repeat of 0-2 with another merchant_id (after the restore)\n"));
    assertThat(o, containsString("order 3 restored after 5 events: identical to order 1\n"));
    assertThat(o, not(containsString("not permitted")));
  }

  @Test
  void aRestoreAfterOneEventRepeatsThatEventTwiceAfterIt() throws Exception {
    // after one event only 0-0 is read before the cut, and it is within duplicates_within (2h)
    // there: both repeats after the restore are of it, the exact one and the conflicting one
    ReplayOrders.Result result =
        replay(ReplayOrders.Options.orders(1, 7).withDuplicates(true).withRestoreAt(1));
    String o = out.toString();
    assertThat(
        o,
        containsString(
            "  0-1, an exact repeat of 0-0 (after the restore)\n"
                + "  0-2, a repeat of 0-0 with another merchant_id (after the restore)\n"));
    assertThat(o, not(containsString("repeat after the cut")));
    assertThat(o, result.permitted(), is(true));
    assertThat(o, containsString("repeats: in every run, no repeat made a decision"));
  }

  @Test
  void aRestoreThatLosesTheKeyedStateIsNotPermitted() throws Exception {
    ReplayOrders.Result result;
    try (PlantedDefect.Scope s = PlantedDefect.plant(PlantedDefect.RESTORE_DROPS_KEYED_STATE)) {
      result = replay(ReplayOrders.Options.orders(1, 7).withDuplicates(true).withRestoreAt(5));
    }
    String o = out.toString();
    assertThat(o, result.permitted(), is(false));
    assertThat(o, containsString("order 1 (as written): identical to order 1\n"));
    assertThat(o, containsString("order 1 restored after 5 events: "));
    // the duplicate detection forgot 0-4: its exact repeat after the restore was decided
    assertThat(
        o,
        containsString(
            "  repeat 0-5, an exact repeat of 0-4 (after the restore): routed scored r1, revised r2"
                + " — a repeat makes no decision; applied to key [8]'s feature state   (not"
                + " permitted)\n"));
    // and decisions read a state without the events before the savepoint
    assertThat(o, containsString("  event 0-9 scored r1: feature spend_1h 220.0 -> 70.0"));
  }

  @Test
  void repeatsThatDoNotFitBeforeTheCutAreCountedInWords() throws Exception {
    // the middle of two events is after the second: only the first's exact repeat fits before it
    // (its conflicting one would be the third item), so one repeat is left out; of one event, the
    // middle is after it, and neither fits
    Project project = Project.load(RETRIED);
    DeclaredModel model = DeclaredModel.of(project, "receipt_risk");
    Fixture two = receipts(2);
    Fixture one = receipts(1);
    Repeats.Plan ofTwo = Repeats.add(two, model.declaredSource(), 0);
    Repeats.Plan ofOne = Repeats.add(one, model.declaredSource(), 0);
    assertThat(
        ofTwo.skipped().toString(),
        ofTwo
            .skipped()
            .contains("1 repeat before the cut: too few events with an id fit before it"),
        is(true));
    assertThat(
        ofOne.skipped().toString(),
        ofOne
            .skipped()
            .contains("2 repeats before the cut: too few events with an id fit before it"),
        is(true));
  }

  /** The first {@code n} receipts of uploads.yml's merchant 7, on partition 0. */
  private static Fixture receipts(int n) {
    Fixture.Builder b = Fixture.builder("receipts", "receipt_risk");
    for (int i = 1; i <= n; i++) {
      Instant t = Instant.parse("2026-08-30T10:00:00Z").plusSeconds(600L * i);
      b.event(
          0,
          Map.of(
              "receipt_id",
              "r" + i,
              "merchant_id",
              7L,
              "amount",
              new BigDecimal("10.00"),
              "occurred_at",
              t,
              "received_at",
              t));
    }
    return b.build();
  }
}
