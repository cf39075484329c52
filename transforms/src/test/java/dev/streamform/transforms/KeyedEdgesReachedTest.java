package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.decisions.LinearScorer;
import dev.streamform.transforms.decisions.ScoreEvents;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The other keyed stages' edges are reached when {@code W >= edge} too, as the windows' are ({@link
 * WindowEdgeReachedTest}, ADR 0098, ADR 0100): an event-time timer fires only once the watermark is
 * past its time, so a tick set at the edge itself waited for {@code W >= edge + 1ms}. In each run a
 * watermark item exactly at the edge is the stream's last record but one, and the next record is
 * held ({@link HeldLastRecordRun}) while the runner's watermark is already past it: only the
 * clock's hold at {@code W_p} keeps the stage's watermark at the edge, and what is due there must
 * happen before the record is let go.
 */
class KeyedEdgesReachedTest {
  private static final Instant RUNNER_WATERMARK = Instant.parse("2026-08-30T11:30:00Z");

  /**
   * As of occurrence, an event with time {@code t} is decided once the source watermark reaches
   * {@code t} (docs/guides/scoring-models.md: at once if its arrival watermark {@code A >= t}).
   */
  @Test
  void aWatermarkExactlyAtAnEventsTimeDecidesItWithoutALaterRecord() {
    HeldLastRecordRun run =
        HeldLastRecordRun.start(
            new SeedStreams()
                .event(7, "120", "10:05") // W_p undefined -> 10:00
                .event(7, "80", "10:40") // A = 10:00 < 10:40: awaits W 10:40; W_p -> 10:35
                .watermark(0, Instant.parse("2026-08-30T10:40:00Z"))
                .event(7, "1", "11:40"), // held
            RUNNER_WATERMARK,
            events ->
                events.apply(
                    "Score",
                    ScoreEvents.forModel("risk")
                        .by("customer_id")
                        .withFeatures(Aggregation.sum("amount").as("spend_1h"))
                        .over(org.joda.time.Duration.standardHours(1))
                        .scoredBy(LinearScorer.of(Map.of("amount", 0.01), 0, "test-model"))));
    try {
      // W = 10:40: the 10:05 event was decided at W 10:35, the 10:40 event is due now
      Awaitility.await("both decisions at W 10:40, the next record held")
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertEquals(2, run.counter(ScoreEvents.DECIDED)));
    } finally {
      run.release();
    }
    run.finish();
    assertEquals(3, run.counter(ScoreEvents.DECIDED));
  }
}
