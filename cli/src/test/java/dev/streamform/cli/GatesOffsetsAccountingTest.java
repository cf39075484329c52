package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The offsets gate's counts after retention deleted the start of a source partition (found by a
 * read-only review of the gates): only what is still in the log is expected, so only what the
 * revisions count there may be compared with it. A window whose events lie on both sides of the log
 * start counts events nobody can read any more; its partition's count is not checked, and said.
 */
class GatesOffsetsAccountingTest {
  private static GatesCommand.Range range(long min, long max, long count) {
    return new GatesCommand.Range(min, max, count, "w" + min, 1, "window " + min);
  }

  @Test
  void windowsWhollyBeforeTheLogStartAreNotCounted() {
    // offsets 1-2 (deleted) in one window, 3-4 in another; the log starts at 3
    GatesCommand.Accounting a =
        GatesCommand.account(
            Map.of(0, new long[] {2, 0}),
            Map.of(0, List.of(range(1, 2, 2), range(3, 4, 2))),
            Map.of("0-0", 1),
            Map.of(0, 3L),
            1);
    assertThat(a.missing() + "/" + a.duplicated(), is("0/0"));
    assertThat(a.unchecked().isEmpty(), is(true));
  }

  @Test
  void aLossIsNotHiddenByTheCountsOfDeletedEvents() {
    // offsets 3, 4, 5 retained; offset 4 reached no window but lies inside 3-5's range
    GatesCommand.Accounting a =
        GatesCommand.account(
            Map.of(0, new long[] {3, 0}),
            Map.of(0, List.of(range(1, 2, 2), range(3, 5, 2))),
            Map.of(),
            Map.of(0, 3L),
            1);
    assertThat(a.missing() + "/" + a.duplicated(), is("1/0"));
  }

  @Test
  void aWindowAcrossTheLogStartLeavesItsPartitionsCountUnchecked() {
    GatesCommand.Accounting a =
        GatesCommand.account(
            Map.of(0, new long[] {2, 0}, 1, new long[] {1, 0}),
            Map.of(0, List.of(range(0, 3, 2), range(1, 2, 2), range(4, 4, 1)), 1, List.of()),
            Map.of("1-0", 1),
            Map.of(0, 3L, 1, 0L),
            1);
    assertThat(a.missing() + "/" + a.duplicated(), is("0/0"));
    assertThat(
        a.unchecked(),
        contains(
            "partition 0 (a window holds events on both sides of its log start, offset 3: its"
                + " count includes deleted events)"));
  }
}
