package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import dev.streamform.pipelines.file.FileModelRun;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code streamform run}'s summary line of a scoring model: an event that is not late but gets no
 * decision, because its features would read state its key freed (ADR 0050), is on a count of its
 * own, so the counts add up to the lines read instead of failing the run as "a bug". The counters
 * are those of such a run, by the metric names a runner reports (a receipt of a partition that
 * trailed another by more than the range, under latest_available: 3 decided, 1 reconciled).
 */
class RunSummaryTest {

  @Test
  void anEventReconciledForFreedStateIsCountedAndShown() {
    FileModelRun.Summary summary =
        new FileModelRun.Summary(
            Map.of(
                "records_read", 4L,
                "decisions", 3L,
                "decisions_below_freed_horizon", 1L,
                "decisions_reconciled_below_horizon", 1L),
            Map.of(),
            false,
            true);
    assertThat(summary.addsUp(), is(true));
    assertThat(
        RunCommand.readLine(summary),
        is(
            "4 lines read: 3 decided (0 revisions), 1 reconciled for freed state, 0 late, 0"
                + " dead-lettered"));
  }

  @Test
  void aLateEventBelowTheHorizonIsCountedOnceOnItsLateCount() {
    // a late event below the horizon is counted late and below the horizon, not reconciled too
    FileModelRun.Summary summary =
        new FileModelRun.Summary(
            Map.of(
                "records_read", 3L,
                "decisions", 2L,
                "decisions_late", 1L,
                "decisions_below_freed_horizon", 1L),
            Map.of(),
            false,
            true);
    assertThat(summary.addsUp(), is(true));
    assertThat(
        RunCommand.readLine(summary),
        is("3 lines read: 2 decided (0 revisions), 1 late, 0 dead-lettered"));
  }
}
