package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * {@code windows_live} counts the windows that hold state, read while the stream is held between
 * two items — above zero mid-stream, not only 0 at its end (a counter that never moved would pass
 * that).
 */
class WindowsLiveTest {
  @Test
  void windowsLiveIsTheOpenWindowsMidStreamAndZeroOnceFinal() {
    // two keys' [10:00, 11:00) with 24h of lateness: revision 1 at W 11:00 keeps both open; the
    // last record (11:20) is held while the runner's watermark is past W 11:00
    HeldLastRecordRun run =
        HeldLastRecordRun.start(
            new SeedStreams()
                .event(7, "1", "10:05")
                .event(8, "2", "10:10")
                .watermark(0, Instant.parse("2026-08-30T11:00:00Z"))
                .event(7, "3", "11:20"),
            Instant.parse("2026-08-30T11:00:00Z"));
    try {
      // revision 1 of both windows [10:00, 11:00) at W 11:00, the last record held: both open
      Awaitility.await("windows_live while the stream's last record is held")
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(() -> assertEquals(2, run.counter(StreamformMetrics.WINDOWS_LIVE)));
    } finally {
      run.release();
    }
    run.finish();
    // the end of input finalized all three windows (7 and 8 at 10:00, 7 at 11:00)
    assertEquals(3, run.counter(StreamformMetrics.WINDOWS_FINALIZED));
    assertEquals(0, run.counter(StreamformMetrics.WINDOWS_LIVE));
  }
}
