package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A window's edge is reached when {@code W >= edge} (docs/semantics.md §6.10): a watermark that
 * stops exactly at a window's end publishes its revision 1 there and then, without a later record.
 *
 * <p>On Kafka the source never ends, so a watermark item at 11:00 as the last record of a quiet
 * topic left the clock's output watermark at exactly 11:00. The windows' tick was set at the edge
 * itself, and an event-time timer fires only once the watermark is past its time, so revision 1
 * waited for the next record (the audit of the revision sink: "every record's effect waits for the
 * next one"). Here the stream's next record is held ({@link HeldLastRecordRun}) while the runner's
 * watermark is already past 11:00, so only the clock's hold at {@code W_p} = 11:00 keeps the
 * windows' watermark: revision 1 of both windows must come before that record is let go.
 */
class WindowEdgeReachedTest {
  @Test
  void aWatermarkExactlyAtAWindowsEndPublishesItsRevisionOneWithoutALaterRecord() {
    // the runner's watermark goes past 11:00; the held record (11:40) keeps it at 11:30 after
    HeldLastRecordRun run =
        HeldLastRecordRun.start(
            new SeedStreams()
                .event(7, "120", "10:05")
                .event(7, "80", "10:40")
                .event(8, "45.50", "10:50")
                .watermark(0, Instant.parse("2026-08-30T11:00:00Z"))
                .event(7, "1", "11:40"),
            Instant.parse("2026-08-30T11:30:00Z"));
    try {
      // W_p = 11:00 = the windows' end: revision 1 of 7's and 8's [10:00, 11:00) is due now
      Awaitility.await("revision 1 of both windows at W 11:00, the next record held")
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertEquals(2, run.counter(StreamformMetrics.REVISIONS)));
    } finally {
      run.release();
    }
    run.finish();
    // the end of input: 7's [11:00, 12:00) too, and all three final
    assertEquals(3, run.counter(StreamformMetrics.REVISIONS));
    assertEquals(3, run.counter(StreamformMetrics.WINDOWS_FINALIZED));
  }
}
