package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.dedup.Deduplicate;
import dev.streamform.transforms.windows.WindowedAggregate;
import java.time.Duration;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.awaitility.Awaitility;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A late event waiting in the log-order duplicate detection holds the windows downstream no earlier
 * than the watermark it arrived at (docs/semantics.md §6, §7): it is passed on at that time ({@code
 * LogOrder.timestampOf}), and every edge it must come before is later than it.
 *
 * <p>It held them at its event time: on Kafka, a late correction that was a quiet topic's last
 * record held back revision 1 of every window that ended between its event time and the watermark,
 * of every key, until a later record moved the watermark (found by a read-only audit of
 * determinism). Here the next record is held ({@link HeldLastRecordRun}) while the runner's
 * watermark is past 11:00: revision 1 of 7's [10:00, 11:00) is due at {@code W} 11:00 and must come
 * before that record is let go, as it does without the duplicate detection.
 */
class LateEventWaitingForItsIdTest {
  @Test
  void aWaitingLateEventDoesNotHoldBackAnotherKeysRevisionOne() {
    HeldLastRecordRun run =
        HeldLastRecordRun.start(
            new SeedStreams()
                .event(7, "120", "10:05")
                .watermark(0, Instant.parse("2026-08-30T11:00:00Z"))
                // late for [10:00, 11:00) (W_p 11:00), within its lateness: waits for W > 11:00
                .event(8, "45", "10:20")
                .event(7, "1", "11:40"), // held
            Instant.parse("2026-08-30T11:30:00Z"),
            events ->
                events
                    // each event's own time is its id here: the stream has no id column
                    .apply(
                        "Dedup",
                        Deduplicate.byId("ordered_at", org.joda.time.Duration.standardHours(2)))
                    .events()
                    .apply(
                        "Windows",
                        WindowedAggregate.of(
                                FixedWindows.of(org.joda.time.Duration.standardHours(1)))
                            .forModel("hourly_revenue")
                            .by("customer_id")
                            .aggregating(Aggregation.sum("amount").as("revenue"))
                            .withAllowedLateness(org.joda.time.Duration.standardHours(24))));
    try {
      Awaitility.await("revision 1 of 7's [10:00, 11:00) at W 11:00, the next record held")
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertEquals(1, run.counter(StreamformMetrics.REVISIONS)));
    } finally {
      run.release();
    }
    run.finish();
    // then 8's [10:00, 11:00) (its first revision, late) and 7's [11:00, 12:00)
    assertEquals(3, run.counter(StreamformMetrics.REVISIONS));
  }
}
