package dev.streamform.transforms.decisions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.extraction.ExtractionResult;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * {@link ScoreEvents} on the receipts story, every answer worked out by hand below. Source: 5m
 * watermark, late events kept, partitions 0 and 1; features over 1h: spend (sum of amount) and
 * count; score = 0.01 amount + 0.001 spend_1h + 0.1 receipts_1h; lateness 10m; skew bound 5m
 * against {@code received_at}.
 *
 * <pre>
 * p0: e1 m7 100 @10:00 (A -)      W0 9:55     p1: e4 m7 40 @10:10 (A -)      W1 10:05
 *     e2 m7  50 @10:20 (A 9:55)   W0 10:15        e6 m7 30 @10:30 (A 10:05)  W1 10:25
 *     e3 m8  80 @10:25 (A 10:15)  W0 10:20        e5 m7 20 @10:36 received 10:30: skew 6m, dead
 * watermark 11:00 on both
 * p0: e7 m7 60 @10:05 (A 11:00 >= 10:15: late)    p1: e9 m8 25 @10:15 (A 11:00: late)
 *     e8 m7 15 @10:55 (A 11:00 < 11:05: on time, its partition past 10:55: decided at once)
 *     p1: e10 m8 without occurred_at: quarantined
 * </pre>
 *
 * As of occurrence, m7 (applied in log order, each edge t once every event that arrived below t is
 * applied): e1 at 10:00 reads nothing (score 1.0, state revision 3: e1, e4, e2 applied); e4 at
 * 10:10 reads e1 (100, 1: 0.4 + 0.1 + 0.1 = 0.6, rev 4); e2 at 10:20 reads e1, e4 (140, 2: 0.84);
 * e6 at 10:30 reads e1, e4, e2 (190, 3: 0.79); e8 at once reads e1, e4, e2, e6 — not e7, which
 * arrived at 11:00 >= 10:55 (220, 4: 0.77, rev 6). The late e7 revises the decisions in [10:05,
 * 11:05) decided before it: e4 (e1 + e7 = 160, 2: 0.76), e2 (200, 3: 1.0), e6 (250, 4: 0.95). m8:
 * e3 reads nothing (0.8), the late e9 revises it (25, 1: 0.925).
 */
class DecisionScoringTest {
  static final Schema RECEIPTS =
      Schema.builder()
          .addNullableField("merchant_id", Schema.FieldType.INT64)
          .addNullableField("amount", Schema.FieldType.DECIMAL)
          .addNullableField("occurred_at", Schema.FieldType.STRING)
          .addNullableField("received_at", Schema.FieldType.DATETIME)
          .build();

  private final List<TimestampedValue<SourceRecord>> first = new ArrayList<>();
  private final List<TimestampedValue<SourceRecord>> second = new ArrayList<>();
  private final Map<Integer, Long> offsets = new HashMap<>();

  private static Instant at(String hhmm) {
    return Instant.parse("2026-08-30T" + hhmm + ":00Z");
  }

  private void event(
      List<TimestampedValue<SourceRecord>> batch,
      int p,
      long merchant,
      String amount,
      String occurred,
      String received) {
    Row row =
        Row.withSchema(RECEIPTS)
            .addValues(
                merchant,
                new BigDecimal(amount),
                occurred == null ? null : at(occurred).toString(),
                at(received).toDateTime())
            .build();
    batch.add(
        TimestampedValue.of(
            SourceRecord.of(p, offsets.merge(p, 1L, Long::sum) - 1, new Instant(0), row),
            occurred == null ? new Instant(0) : at(occurred)));
  }

  private void watermark(List<TimestampedValue<SourceRecord>> batch, int p, String hhmm) {
    batch.add(
        TimestampedValue.of(
            SourceRecord.punctuation(
                p, offsets.merge(p, 1L, Long::sum) - 1, new Instant(0), at(hhmm)),
            at(hhmm)));
  }

  private TestStream<SourceRecord> receipts() {
    event(first, 0, 7, "100", "10:00", "10:00");
    event(first, 0, 7, "50", "10:20", "10:21");
    event(first, 0, 8, "80", "10:25", "10:25");
    event(first, 1, 7, "40", "10:10", "10:12");
    event(first, 1, 7, "30", "10:30", "10:31");
    event(first, 1, 7, "20", "10:36", "10:30");
    watermark(first, 0, "11:00");
    watermark(first, 1, "11:00");
    event(second, 0, 7, "60", "10:05", "11:02");
    event(second, 0, 7, "15", "10:55", "11:03");
    event(second, 1, 8, "25", "10:15", "11:04");
    event(second, 1, 8, "5", null, "11:05");
    @SuppressWarnings("unchecked")
    TestStream<SourceRecord> s =
        TestStream.create(SourceRecordCoder.of(RECEIPTS))
            .addElements(
                first.get(0), first.subList(1, first.size()).toArray(new TimestampedValue[0]))
            .advanceWatermarkTo(at("11:00"))
            .addElements(
                second.get(0), second.subList(1, second.size()).toArray(new TimestampedValue[0]))
            .advanceWatermarkToInfinity();
    return s;
  }

  static ScoreEvents receiptRisk() {
    return ScoreEvents.forModel("receipt_risk")
        .by("merchant_id")
        .withFeatures(
            Aggregation.sum("amount").as("spend_1h"), Aggregation.countAll().as("receipts_1h"))
        .over(Duration.standardHours(1))
        .scoredBy(
            LinearScorer.of(
                Map.of("amount", 0.01, "spend_1h", 0.001, "receipts_1h", 0.1), 0, "test-model"))
        .withLateness(Duration.standardMinutes(10))
        .onLateEvents(LateAction.REVISE)
        .lateEventsUpdateState(true)
        .withMaxClockSkew(Duration.standardMinutes(5), "received_at");
  }

  static String line(Decision d) {
    return d.eventId()
        + " m"
        + d.key().getValue(0)
        + " "
        + d.route()
        + " r"
        + d.revision()
        + " score "
        + d.score()
        + " spend "
        + d.features().get("spend_1h")
        + " n "
        + d.features().get("receipts_1h").longValue()
        + " state "
        + d.stateRevision()
        + " cutoff "
        + d.stateCutoff().toString().substring(11, 16)
        + " scored "
        + d.scoredAt().toString().substring(11, 16)
        + (d.supersedes() == null
            ? ""
            : " supersedes " + d.supersedes().substring(0, 8) + " by " + d.revisedBy());
  }

  private Pipeline pipeline() {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    return Pipeline.create(options);
  }

  @Test
  void asOfOccurrenceWithRevisions() {
    Pipeline p = pipeline();
    ExtractionResult extracted = p.apply(receipts()).apply(EventTimeExtraction.from("occurred_at"));
    DecisionResult result =
        extracted
            .events()
            .apply(
                SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                    .keepingLateEvents()
                    .withContiguousOffsets()
                    .withPartitions(0, 1))
            .events()
            .apply(receiptRisk().withQuarantine(extracted.quarantined()));
    PAssert.that(
            result
                .decisions()
                .apply(
                    "Lines",
                    MapElements.into(TypeDescriptors.strings())
                        .via(d -> line(d).replaceAll(" supersedes \\w+", " supersedes"))))
        .containsInAnyOrder(
            "0-0 m7 scored r1 score 1.0 spend 0.0 n 0 state 3 cutoff 10:00 scored 10:00",
            "1-0 m7 scored r1 score 0.6 spend 100.0 n 1 state 4 cutoff 10:10 scored 10:10",
            "0-1 m7 scored r1 score 0.84 spend 140.0 n 2 state 4 cutoff 10:20 scored 10:20",
            "1-1 m7 scored r1 score 0.79 spend 190.0 n 3 state 4 cutoff 10:30 scored 10:30",
            "1-0 m7 revised r2 score 0.76 spend 160.0 n 2 state 5 cutoff 11:00 scored 11:00"
                + " supersedes by 0-4",
            "0-1 m7 revised r2 score 1.0 spend 200.0 n 3 state 5 cutoff 11:00 scored 11:00"
                + " supersedes by 0-4",
            "1-1 m7 revised r2 score 0.95 spend 250.0 n 4 state 5 cutoff 11:00 scored 11:00"
                + " supersedes by 0-4",
            "0-5 m7 scored r1 score 0.77 spend 220.0 n 4 state 6 cutoff 10:55 scored 11:00",
            "0-2 m8 scored r1 score 0.8 spend 0.0 n 0 state 1 cutoff 10:25 scored 10:25",
            "0-2 m8 revised r2 score 0.925 spend 25.0 n 1 state 2 cutoff 11:00 scored 11:00"
                + " supersedes by 1-4");
    PAssert.that(result.decisions())
        .satisfies(
            all -> {
              Map<String, Decision> byId = new HashMap<>();
              all.forEach(d -> byId.put(d.decisionId(), d));
              for (Decision d : all) {
                if (d.supersedes() != null) {
                  Decision old = byId.get(d.supersedes());
                  assertEquals(
                      d.eventId(),
                      old.eventId(),
                      "a revision supersedes a decision of the same event");
                  assertEquals(d.revision() - 1, old.revision());
                }
                assertEquals("test-model", d.modelDigest());
                assertEquals(64, d.decisionId().length());
              }
              assertEquals(10, byId.size(), "every decision has its own id");
              return null;
            });
    PAssert.that(
            result
                .deadLetters()
                .apply(
                    "Dead",
                    MapElements.into(TypeDescriptors.strings())
                        .via(d -> d.reason() + " " + d.eventId())))
        .containsInAnyOrder("CLOCK_SKEW 1-2", "MALFORMED_TIMESTAMP null");
    PAssert.that(result.reconciliations()).empty();
    PAssert.that(result.ignored()).empty();
    p.run().waitUntilFinish();
  }

  @Test
  void lateEventsReconciledWithoutUpdatingState() {
    Pipeline p = pipeline();
    DecisionResult result =
        p.apply(receipts())
            .apply(EventTimeExtraction.from("occurred_at"))
            .events()
            .apply(
                SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                    .keepingLateEvents()
                    .withContiguousOffsets()
                    .withPartitions(0, 1))
            .events()
            .apply(receiptRisk().onLateEvents(LateAction.RECONCILE).lateEventsUpdateState(false));
    // Without the late events in state, e8 reads the same (e7 arrived after its cutoff anyway) but
    // its state revision is 5, not 6; nothing is revised; e7 names the three decisions it touches.
    PAssert.that(
            result
                .decisions()
                .apply(
                    "Routes",
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            d ->
                                d.eventId()
                                    + " "
                                    + d.route()
                                    + " "
                                    + d.score()
                                    + " state "
                                    + d.stateRevision())))
        .containsInAnyOrder(
            "0-0 scored 1.0 state 3",
            "1-0 scored 0.6 state 4",
            "0-1 scored 0.84 state 4",
            "1-1 scored 0.79 state 4",
            "0-5 scored 0.77 state 5",
            "0-2 scored 0.8 state 1");
    PAssert.that(
            result
                .reconciliations()
                .apply(
                    "Late",
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            r ->
                                r.eventId()
                                    + " "
                                    + r.route()
                                    + " "
                                    + r.affectedDecisions().size())))
        .containsInAnyOrder("0-4 reconciled 3", "1-4 reconciled 1");
    PAssert.that(result.stateUpdates())
        .satisfies(
            updates -> {
              updates.forEach(u -> assertTrue(!u.late(), "late events are not applied"));
              return null;
            });
    p.run().waitUntilFinish();
  }

  @Test
  void lateEventsIgnoredButAppliedToState() {
    Pipeline p = pipeline();
    DecisionResult result =
        p.apply(receipts())
            .apply(EventTimeExtraction.from("occurred_at"))
            .events()
            .apply(
                SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                    .keepingLateEvents()
                    .withContiguousOffsets()
                    .withPartitions(0, 1))
            .events()
            .apply(receiptRisk().onLateEvents(LateAction.IGNORE).lateEventsUpdateState(true));
    // e7 is applied (state revision 5) but arrived after p0 passed 10:55: e8 still reads 220 over
    // 4,
    // at state revision 6; nothing is revised; each late event names the decisions it would change.
    PAssert.that(
            result
                .decisions()
                .apply(
                    "Routes",
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            d ->
                                d.eventId()
                                    + " "
                                    + d.route()
                                    + " "
                                    + d.score()
                                    + " state "
                                    + d.stateRevision())))
        .containsInAnyOrder(
            "0-0 scored 1.0 state 3",
            "1-0 scored 0.6 state 4",
            "0-1 scored 0.84 state 4",
            "1-1 scored 0.79 state 4",
            "0-5 scored 0.77 state 6",
            "0-2 scored 0.8 state 1");
    PAssert.that(
            result
                .ignored()
                .apply(
                    "Late",
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            r ->
                                r.eventId()
                                    + " "
                                    + r.route()
                                    + " "
                                    + r.affectedDecisions().size()
                                    + " "
                                    + r.updatedState())))
        .containsInAnyOrder("0-4 ignored 3 true", "1-4 ignored 1 true");
    PAssert.that(result.reconciliations()).empty();
    PAssert.that(result.revising()).empty();
    p.run().waitUntilFinish();
  }
}
