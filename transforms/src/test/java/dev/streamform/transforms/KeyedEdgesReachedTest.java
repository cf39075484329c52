package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.decisions.LinearScorer;
import dev.streamform.transforms.decisions.ScoreEvents;
import dev.streamform.transforms.dedup.Deduplicate;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

  /**
   * A key's state is gone once {@code W >= latest + retention} (docs/semantics.md §3.3, inclusive);
   * the timer that frees it may do so then (§3.4): every event still to come arrives at {@code W_p
   * >= W} and finds it gone anyway.
   */
  @ParameterizedTest(name = "on arrival: {0}")
  @ValueSource(booleans = {false, true})
  void aWatermarkExactlyAtAKeysExpiryFreesItWithoutALaterRecord(boolean onArrival) {
    KeyedChangelog changelog =
        KeyedChangelog.by("customer_id")
            .aggregating(Aggregation.sum("amount").as("spend"))
            .withRetention(org.joda.time.Duration.standardMinutes(30));
    HeldLastRecordRun run =
        HeldLastRecordRun.start(
            new SeedStreams()
                .event(7, "120", "10:00") // latest(7) = 10:00: expires at W 10:30
                .watermark(0, Instant.parse("2026-08-30T10:30:00Z"))
                .event(7, "1", "11:40"), // held
            RUNNER_WATERMARK,
            events ->
                events.apply("Changelog", onArrival ? changelog.appliedOnArrival() : changelog));
    try {
      Awaitility.await("key 7 expired at W 10:30, the next record held")
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                assertEquals(1, run.counter(StreamformMetrics.EXPIRED), "keys_expired");
                assertEquals(0, run.counter(StreamformMetrics.KEYS_LIVE), "keys_live");
              });
    } finally {
      run.release();
    }
    run.finish();
    // the held event starts key 7 again (insert), and the end of input frees it once more
    assertEquals(2, run.counter(StreamformMetrics.CHANGELOG));
    assertEquals(2, run.counter(StreamformMetrics.EXPIRED));
  }

  /** An id is kept until the watermark reaches its first event's time + horizon (inclusive). */
  @ParameterizedTest(name = "on arrival: {0}")
  @ValueSource(booleans = {false, true})
  void aWatermarkExactlyAtAnIdsHorizonForgetsItWithoutALaterRecord(boolean onArrival) {
    Deduplicate byId = Deduplicate.byId("customer_id", org.joda.time.Duration.standardMinutes(30));
    HeldLastRecordRun run =
        HeldLastRecordRun.start(
            new SeedStreams()
                .event(7, "120", "10:00") // id 7 first seen at 10:00: kept until W 10:30
                .watermark(0, Instant.parse("2026-08-30T10:30:00Z"))
                .event(7, "1", "11:40"), // held
            RUNNER_WATERMARK,
            events -> events.apply("Dedup", onArrival ? byId.appliedOnArrival() : byId));
    try {
      Awaitility.await("id 7 forgotten at W 10:30, the next record held")
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertEquals(1, run.counter(StreamformMetrics.IDS_FORGOTTEN)));
    } finally {
      run.release();
    }
    run.finish();
    // the held event is id 7's first again, and the end of input forgets it once more
    assertEquals(2, run.counter(StreamformMetrics.IDS_FORGOTTEN));
  }
}
