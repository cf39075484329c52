package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.decisions.LateAction;
import dev.streamform.transforms.decisions.LinearScorer;
import dev.streamform.transforms.decisions.ScoreEvents;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.WindowedAggregate;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What a runner's UI shows of each transform reads as the declarations do: durations as {@code
 * 10m}, words rather than raw milliseconds or booleans.
 */
class DisplayDataTest {

  /** Every item as key -> value, after checking that it is text and not a bare number or flag. */
  private static Map<String, String> shown(PTransform<?, ?> transform) {
    Map<String, String> items = new TreeMap<>();
    for (DisplayData.Item item : DisplayData.from(transform).items()) {
      String value = String.valueOf(item.getValue());
      assertEquals(DisplayData.Type.STRING, item.getType(), item.getKey() + " = " + value);
      assertTrue(
          !value.matches("-?\\d+") && !value.equals("true") && !value.equals("false"),
          item.getKey() + " shows a raw number or flag: " + value);
      items.put(item.getKey(), value);
    }
    return items;
  }

  @Test
  void keyedChangelogShowsItsRetentionAsADuration() {
    Map<String, String> items =
        shown(
            KeyedChangelog.by("customer_id", "region")
                .aggregating(
                    Aggregation.sum("amount").as("total_spend"),
                    Aggregation.countAll().as("orders"))
                .withRetention(Duration.standardMinutes(10)));
    assertEquals("10m", items.get("retention"));
    assertEquals("customer_id, region", items.get("key"));
    assertEquals("sum(amount) as total_spend, count(*) as orders", items.get("aggregates"));
    assertEquals(
        "30d",
        shown(KeyedChangelog.by("k").withRetention(Duration.standardDays(30))).get("retention"));
  }

  @Test
  void clockAndExtractionShowWords() {
    Map<String, String> clock =
        shown(
            SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                .withContiguousOffsets()
                .withIdleness(Duration.standardSeconds(90))
                .keepingLateEvents());
    assertEquals("5m", clock.get("watermark"));
    assertEquals("90s", clock.get("idleAfter"));
    assertEquals("keep", clock.get("lateEvents"));
    assertEquals("event time", clock.get("clock"));
    shown(SourceClock.inArrivalOrder());
    assertEquals(
        "ordered_at", shown(EventTimeExtraction.from("ordered_at")).get("eventTimeColumn"));
  }

  /**
   * The windows show their key and aggregates as the changelog does, as a declaration reads them —
   * not Java's list brackets ({@code [sum(amount) as revenue]}).
   */
  @Test
  void windowsShowKeyAndAggregatesAsDeclared() {
    Map<String, String> items = new TreeMap<>();
    DisplayData.from(
            WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
                .forModel("hourly")
                .by("merchant_id", "region")
                .aggregating(
                    Aggregation.sum("amount").as("revenue"), Aggregation.countAll().as("orders")))
        .items()
        .forEach(i -> items.put(i.getKey(), String.valueOf(i.getValue())));
    assertEquals("sum(amount) as revenue, count(*) as orders", items.get("aggregates"));
    assertEquals("merchant_id, region", items.get("key"));
  }

  /** A clock's first offsets and partitions read as words and numbers, not Java's map or list. */
  @Test
  void clockShowsFirstOffsetsAndPartitionsAsDeclared() {
    Map<String, String> clock =
        shown(
            SourceClock.forBoundedOutOfOrderness(Duration.millis(1500))
                .withContiguousOffsets(Map.of(2, 5L, 0, 1200L))
                .withPartitions(0, 1, 2));
    assertEquals(
        "offset order, contiguous from 1200 in partition 0, 5 in partition 2 and 0 in the"
            + " others, at most 100000 waiting per partition",
        clock.get("order"));
    assertEquals("0, 1, 2", clock.get("partitions"));
    assertEquals(
        "offset order, contiguous from 0, at most 100000 waiting per partition",
        shown(SourceClock.forBoundedOutOfOrderness(Duration.ZERO).withContiguousOffsets())
            .get("order"));
  }

  /**
   * ScoreEvents reads as its declaration too (ADR 0111): durations as {@code 10m}, the late policy
   * in words, the features as {@code sum(amount) as spend_1h}, a label on every item; only the
   * generation is a number.
   */
  @Test
  void scoreEventsShowsItsDeclarationInWordsWithLabels() {
    ScoreEvents scoring =
        ScoreEvents.forModel("receipt_risk")
            .by("merchant_id", "region")
            .withFeatures(
                Aggregation.sum("amount").as("spend_1h"), Aggregation.countAll().as("receipts_1h"))
            .over(Duration.standardHours(1))
            .scoredBy(LinearScorer.of(Map.of("amount", 0.01), 0, "test-model"))
            .withLateness(Duration.standardMinutes(10))
            .onLateEvents(LateAction.REVISE)
            .lateEventsUpdateState(true)
            .withMaxClockSkew(Duration.standardMinutes(5), "received_at");
    Map<String, String> items = scoringShown(scoring);
    assertEquals("sum(amount) as spend_1h, count(*) as receipts_1h", items.get("features"));
    assertEquals("merchant_id, region", items.get("key"));
    assertEquals("1h", items.get("range"));
    assertEquals("10m", items.get("lateness"));
    assertEquals("revise", items.get("lateAction"));
    assertEquals("applied to the key's state", items.get("lateUpdatesState"));
    assertEquals("5m ahead of received_at", items.get("maxClockSkew"));
    assertEquals(
        "not applied to the key's state",
        scoringShown(ScoreEvents.forModel("m").by("k")).get("lateUpdatesState"));
    assertEquals(
        "5m ahead of the ingest time",
        scoringShown(ScoreEvents.forModel("m").withMaxClockSkew(Duration.standardMinutes(5), null))
            .get("maxClockSkew"));
  }

  /** Like {@link #shown}, but the generation is a number, and every item must have a label. */
  private static Map<String, String> scoringShown(ScoreEvents scoring) {
    Map<String, String> items = new TreeMap<>();
    for (DisplayData.Item item : DisplayData.from(scoring).items()) {
      String value = String.valueOf(item.getValue());
      assertTrue(item.getLabel() != null, item.getKey() + " = " + value + " has no label");
      if (!item.getKey().equals("generation")) {
        assertEquals(DisplayData.Type.STRING, item.getType(), item.getKey() + " = " + value);
        assertTrue(
            !value.matches("-?\\d+") && !value.equals("true") && !value.equals("false"),
            item.getKey() + " shows a raw number or flag: " + value);
      }
      items.put(item.getKey(), value);
    }
    return items;
  }
}
