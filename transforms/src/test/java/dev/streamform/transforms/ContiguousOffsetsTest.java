package dev.streamform.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.logging.CapturedWarnings;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.testing.PAssert;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 16: {@link SourceClock#withContiguousOffsets()} holds items back until the offset before
 * them came — in bounded state, counted, and never dropping what still waits when the input ends.
 */
class ContiguousOffsetsTest {
  static final SourceClock FIVE =
      SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5)).withContiguousOffsets();

  private static List<SourceRecord> log() {
    return new SeedStreams()
        .event(0, 42, "10", Scenarios.iso("10:00:00"))
        .event(0, 42, "20", Scenarios.iso("10:10:00"))
        .event(0, 42, "1", Scenarios.iso("10:11:00"))
        .event(0, 42, "2", Scenarios.iso("10:12:00"))
        .items();
  }

  @Test
  void waitingItemsAndDuplicateOffsetsAreCounted() {
    List<SourceRecord> log = log();
    Pipeline p = SeedStreams.pipeline();
    // 2 and 3 wait for 1; 3 again while it waits, 0 again after it was judged: two duplicates
    Scenario s =
        Scenario.of(
            p,
            "reordered",
            Scenarios.pick(log, 0, 2, 3, 3, 1, 0),
            FIVE,
            Scenarios.customerMetrics());
    PAssert.that(s.changelog)
        .containsInAnyOrder(
            "p0/0 insert 42 10", "p0/1 update 42 30", "p0/2 update 42 31", "p0/3 update 42 33");
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertThat(Scenario.counter(result, StreamformMetrics.OFFSETS_BUFFERED), equalTo(2L));
    assertThat(Scenario.counter(result, StreamformMetrics.DUPLICATES), equalTo(2L));
  }

  @Test
  void aGapThatNeverClosesFailsTheRunNamingTheMissingOffset() {
    String message = failure(FIVE);
    assertThat(
        message,
        containsString("partition 0 ended with 2 item(s) (offsets 2..3) waiting for offset 1"));
  }

  /** Before issue 16 a clock without event time dropped the waiting items silently. */
  @Test
  void aGapThatNeverClosesFailsTheRunWithoutEventTimeToo() {
    String message = failure(SourceClock.inArrivalOrder().withContiguousOffsets());
    assertThat(
        message,
        containsString("partition 0 ended with 2 item(s) (offsets 2..3) waiting for offset 1"));
  }

  @Test
  void moreWaitingItemsThanTheBufferAllowsFailTheRun() {
    String message = failure(FIVE.withOffsetBuffer(1));
    assertThat(
        message,
        containsString(
            "partition 0 has 1 item(s) waiting for offset 1, the most withOffsetBuffer(1) allows,"
                + " and offset 3 came too"));
  }

  /**
   * ADR 0126: a clock judging in arrival order that sees an offset behind one it judged (a bounded
   * log, such as a TestStream, that the runner reordered) counts it and logs a warning, once per
   * partition, that names the partition, both offsets and the fix, withContiguousOffsets().
   */
  @Test
  void anOffsetBehindOneJudgedInArrivalOrderIsWarnedAboutNamingTheFix() {
    List<SourceRecord> log = log();
    Pipeline p = SeedStreams.pipeline();
    SourceClock arrival = SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5));
    // 2 comes before 1, then 0 again: two items behind a later offset, one warning
    Scenario.of(
        p, "arrival", Scenarios.pick(log, 0, 2, 1, 3, 0), arrival, Scenarios.customerMetrics());
    int before = CapturedWarnings.all().size();
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertThat(Scenario.counter(result, StreamformMetrics.OUT_OF_ORDER), equalTo(2L));
    List<String> warnings = CapturedWarnings.all().subList(before, CapturedWarnings.all().size());
    assertThat(warnings.toString(), warnings.size(), equalTo(1));
    assertThat(
        warnings.get(0),
        containsString(
            "SourceClock: partition 0 delivered offset 1 after offset 2, so its items are judged"
                + " in the order the runner delivered them"));
    assertThat(warnings.get(0), containsString(".withContiguousOffsets()"));
    assertThat(warnings.get(0), containsString("TestStream"));
  }

  @Test
  void theBufferMustHoldAtLeastOneItem() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> FIVE.withOffsetBuffer(0));
    assertThat(e.getMessage(), containsString("1 or more"));
  }

  /** Delivers offsets 0, 2, 3 of the log (1 never comes) and returns why the run failed. */
  private static String failure(SourceClock clock) {
    List<SourceRecord> log = log();
    Pipeline p = SeedStreams.pipeline();
    Scenario.of(p, "gap", Scenarios.pick(log, 0, 2, 3), clock, Scenarios.customerMetrics());
    Pipeline.PipelineExecutionException e =
        assertThrows(Pipeline.PipelineExecutionException.class, () -> p.run().waitUntilFinish());
    Throwable cause = e;
    StringBuilder all = new StringBuilder();
    while (cause != null) {
      all.append(cause.getMessage()).append('\n');
      cause = cause.getCause();
    }
    return all.toString();
  }
}
