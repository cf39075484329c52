package dev.streamform.teststreams.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.core.time.WindowStatus;
import dev.streamform.policies.declarations.Connector;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.policies.sql.ModelQuery;
import dev.streamform.policies.sql.ModelSql;
import dev.streamform.teststreams.oracle.WindowedOutcome.Late;
import dev.streamform.teststreams.oracle.WindowedOutcome.Row;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The windowed oracle against docs/semantics.md §6, every expectation worked out by hand in the
 * comments beside the items. Rows are written as {@code status revision[<-predecessor] start-end
 * key values {partition:min..max#count}}, times on 2026-08-30 as {@code HH:mm}, other days as
 * {@code MM-dd HH:mm}. Events are numbered {@code <partition>-<offset>}; a watermark item takes an
 * offset in every partition it applies to.
 */
class WindowedOracleTest {
  private static final SourceDeclaration ORDERS = orders();
  private static final String HOURLY_REVENUE =
      "SELECT merchant_id, SUM(amount) AS revenue, COUNT(*) AS orders FROM source('orders')"
          + " GROUP BY merchant_id";
  private static final WindowPolicy HOURLY =
      WindowPolicy.tumbling("hourly_revenue", Duration.ofHours(1));

  @Test
  void hourlyRevenueSeed() {
    WindowPolicy policy = HOURLY.withAllowedLateness(Duration.ofHours(24));
    Items given =
        new Items()
            .order(7, "10.00", "10:05") // 0-0 on time (W0 undefined); W0 := 10:00
            .order(7, "20.00", "10:40") // 0-1 on time (10:00 < 11:00); W0 := 10:35
            .order(8, "5.00", "10:50") //  0-2 on time; W0 := 10:45
            .watermark("11:00") //         0-3 W = 11:00 >= end: revision 1 of both keys
            .order(7, "-4.00", "10:20") // 0-4 refund: 11:00 <= W0 < 08-31 11:00, a correction
            .watermark("08-31 11:00") //   0-5 W = end + 24h: final
            .order(7, "-1.00", "10:30"); // 0-6 refund too late: W0 >= end + 24h
    WindowedOutcome out = run(HOURLY_REVENUE, policy, given);
    assertEquals(
        List.of(
            "on_time 1 10:00-11:00 merchant_id=7 revenue=30 orders=2 {0:0..1#2}",
            "on_time 1 10:00-11:00 merchant_id=8 revenue=5 orders=1 {0:2..2#1}",
            "corrected 2<-1 10:00-11:00 merchant_id=7 revenue=26 orders=3 {0:0..4#3}",
            "final 2<-1 10:00-11:00 merchant_id=7 revenue=26 orders=3 {0:0..4#3}",
            "final 1 10:00-11:00 merchant_id=8 revenue=5 orders=1 {0:2..2#1}"),
        rows(out));
    assertEquals(List.of("0-6 10:00 lost to 08-31 11:00"), late(out));
    assertSame(given.items().get(6), out.late().get(0).item());
    assertCounts(out, 4, 3, 2, 1, 0);
  }

  @Test
  void earlyResultsEveryTwoOnTimeEvents() {
    WindowPolicy policy = HOURLY.withAllowedLateness(Duration.ofHours(1)).withEarlyResultsEvery(2);
    Items given =
        new Items()
            .order(7, "1", "10:00") //  0-0 7's 1st on-time event
            .order(7, "2", "10:10") //  0-1 7's 2nd: preview 3 / 2
            .order(8, "5", "10:15") //  0-2 8's 1st
            .order(7, "3", "10:20") //  0-3 7's 3rd
            .order(7, "4", "10:25") //  0-4 7's 4th: preview 10 / 4 (offsets 0, 1, 3, 4)
            .watermark("11:00") //      0-5 revision 1 of 7 and 8
            .order(7, "6", "10:30") //  0-6 correction: revision 2, no preview (not on time)
            .order(7, "7", "10:35"); // 0-7 correction: revision 3, still no preview
    //                              end of input: finals at 12:00, key 7 then 8
    WindowedOutcome out = run(HOURLY_REVENUE, policy, given);
    assertEquals(
        List.of(
            "early 0 10:00-11:00 merchant_id=7 revenue=3 orders=2 {0:0..1#2}",
            "early 0 10:00-11:00 merchant_id=7 revenue=10 orders=4 {0:0..4#4}",
            "on_time 1 10:00-11:00 merchant_id=7 revenue=10 orders=4 {0:0..4#4}",
            "on_time 1 10:00-11:00 merchant_id=8 revenue=5 orders=1 {0:2..2#1}",
            "corrected 2<-1 10:00-11:00 merchant_id=7 revenue=16 orders=5 {0:0..6#5}",
            "corrected 3<-2 10:00-11:00 merchant_id=7 revenue=23 orders=6 {0:0..7#6}",
            "final 3<-2 10:00-11:00 merchant_id=7 revenue=23 orders=6 {0:0..7#6}",
            "final 1 10:00-11:00 merchant_id=8 revenue=5 orders=1 {0:2..2#1}"),
        rows(out));
    assertCounts(out, 7, 4, 2, 0, 0);
  }

  @Test
  void hoppingEventInTwoWindowsTooLateForOneCorrectionForTheOther() {
    WindowPolicy policy =
        WindowPolicy.hopping("hourly_revenue", Duration.ofHours(1), Duration.ofMinutes(30))
            .withAllowedLateness(Duration.ofMinutes(30));
    Items given =
        new Items()
            // 0-0 in [10:00,11:00) and [10:30,11:30), on time in both (W0 undefined); W0 := 10:35
            .order(7, "10", "10:40")
            // 0-1 in [09:30,10:30): 10:30 <= W0 10:35 < 11:00, a correction, and W = 10:35 >= 10:30
            //     with no revision yet, so revision 1 corrected at once; in [10:00,11:00) on time
            .order(7, "1", "10:10")
            // 0-2 W = 11:30. Edges by time: 11:00 final [09:30) (start 09:30 first) and revision 1
            //     of [10:00); 11:30 final [10:00) and revision 1 of [10:30)
            .watermark("11:30")
            // 0-3 [10:00,11:00): W0 11:30 >= 11:00 + 30m, too late; [10:30,11:30): 11:30 <= W0 <
            //     12:00, a correction: revision 2
            .order(7, "100", "10:45");
    //   end of input: final [10:30)
    WindowedOutcome out = run(HOURLY_REVENUE, policy, given);
    assertEquals(
        List.of(
            "corrected 1 09:30-10:30 merchant_id=7 revenue=1 orders=1 {0:1..1#1}",
            "final 1 09:30-10:30 merchant_id=7 revenue=1 orders=1 {0:1..1#1}",
            "on_time 1 10:00-11:00 merchant_id=7 revenue=11 orders=2 {0:0..1#2}",
            "final 1 10:00-11:00 merchant_id=7 revenue=11 orders=2 {0:0..1#2}",
            "on_time 1 10:30-11:30 merchant_id=7 revenue=10 orders=1 {0:0..0#1}",
            "corrected 2<-1 10:30-11:30 merchant_id=7 revenue=110 orders=2 {0:0..3#2}",
            "final 2<-1 10:30-11:30 merchant_id=7 revenue=110 orders=2 {0:0..3#2}"),
        rows(out));
    assertEquals(List.of("0-3 10:00 lost to 11:30"), late(out));
    // the event of 0-3 was accepted by one window, so it counts as processed and as late once
    assertCounts(out, 3, 4, 3, 1, 0);
  }

  @Test
  void partitionBehindHoldsCorrectionsUntilTheMinimumPassesTheEnd() {
    WindowPolicy policy = HOURLY.withAllowedLateness(Duration.ofHours(1));
    Items given =
        new Items()
            .order(0, 7, "1", "10:10") //  0-0 on time; W0 := 10:05 (W undefined: W1 is)
            .order(1, 7, "2", "10:20") //  1-0 on time; W1 := 10:15, W = 10:05
            .watermark(0, "11:00") //      0-1 W0 = 11:00, W = 10:15
            .order(0, 7, "4", "10:30") //  0-2 correction (W0 = end), W < end: held
            .order(0, 8, "8", "10:40") //  0-3 correction of a window without on-time events: held
            .watermark(1, "11:00") //      1-1 W = 11:00: 7 revision 1 then its held correction;
            //                                  8's held correction is its revision 1, corrected
            .order(1, 7, "16", "10:50"); // 1-2 correction after revision 2: revision 3 at once
    //                                  end of input: finals at 12:00, key 7 then 8
    assertEquals(
        List.of(
            "on_time 1 10:00-11:00 merchant_id=7 revenue=3 orders=2 {0:0..0#1, 1:0..0#1}",
            "corrected 2<-1 10:00-11:00 merchant_id=7 revenue=7 orders=3 {0:0..2#2, 1:0..0#1}",
            "corrected 1 10:00-11:00 merchant_id=8 revenue=8 orders=1 {0:3..3#1}",
            "corrected 3<-2 10:00-11:00 merchant_id=7 revenue=23 orders=4 {0:0..2#2, 1:0..2#2}",
            "final 3<-2 10:00-11:00 merchant_id=7 revenue=23 orders=4 {0:0..2#2, 1:0..2#2}",
            "final 1 10:00-11:00 merchant_id=8 revenue=8 orders=1 {0:3..3#1}"),
        rows(run(HOURLY_REVENUE, policy, given)));
  }

  @Test
  void oneAdvancePassingBothEdgesGivesRevisionOneHeldCorrectionsThenFinal() {
    WindowPolicy policy = HOURLY.withAllowedLateness(Duration.ofMinutes(30));
    Items given =
        new Items()
            .order(0, 7, "1", "10:10") //  0-0 on time; W0 := 10:05
            .order(1, 7, "2", "10:20") //  1-0 on time; W1 := 10:15
            .watermark(0, "11:10") //      0-1 W0 = 11:10, W = 10:15
            .order(0, 7, "4", "10:30") //  0-2 correction (11:00 <= 11:10 < 11:30), held
            .order(0, 7, "8", "10:40") //  0-3 correction, held
            .watermark("12:00") //         0-4, 1-1 W = 12:00 passes 11:00 and 11:30 at once
            .order(1, 7, "16", "10:50"); // 1-2 W1 = 12:00 >= 11:30: too late
    WindowedOutcome out = run(HOURLY_REVENUE, policy, given);
    assertEquals(
        List.of(
            "on_time 1 10:00-11:00 merchant_id=7 revenue=3 orders=2 {0:0..0#1, 1:0..0#1}",
            "corrected 2<-1 10:00-11:00 merchant_id=7 revenue=7 orders=3 {0:0..2#2, 1:0..0#1}",
            "corrected 3<-2 10:00-11:00 merchant_id=7 revenue=15 orders=4 {0:0..3#3, 1:0..0#1}",
            "final 3<-2 10:00-11:00 merchant_id=7 revenue=15 orders=4 {0:0..3#3, 1:0..0#1}"),
        rows(out));
    assertEquals(List.of("1-2 10:00 lost to 12:00"), late(out));
    assertCounts(out, 4, 3, 1, 1, 0);
  }

  @Test
  void endOfInputFinalizesEveryOpenWindow() {
    WindowPolicy policy = HOURLY.withAllowedLateness(Duration.ofHours(24));
    Items given =
        new Items()
            .order(7, "1", "10:10") //           0-0 on time; W0 := 10:05
            .order(Map.of("merchant_id", 9L, "amount", new BigDecimal("2"))) // 0-1 no time
            .order(8, "2", "11:20"); //          0-2 on time; W0 := 11:15 >= 11:00: 7's revision 1
    // end of input, by edge time: 8's revision 1 (12:00), 7's final (08-31 11:00), 8's final
    WindowedOutcome out = run(HOURLY_REVENUE, policy, given);
    assertEquals(
        List.of(
            "on_time 1 10:00-11:00 merchant_id=7 revenue=1 orders=1 {0:0..0#1}",
            "on_time 1 11:00-12:00 merchant_id=8 revenue=2 orders=1 {0:2..2#1}",
            "final 1 10:00-11:00 merchant_id=7 revenue=1 orders=1 {0:0..0#1}",
            "final 1 11:00-12:00 merchant_id=8 revenue=2 orders=1 {0:2..2#1}"),
        rows(out));
    assertEquals(1, out.quarantined().size());
    assertEquals("0-1", out.quarantined().get(0).eventId());
    assertEquals("no value for event-time column `ordered_at`", out.quarantined().get(0).reason());
    assertCounts(out, 2, 2, 2, 0, 1);
  }

  @Test
  void aLiveTopicHasNoEndOfInputSoOnlyTheItemsOwnWatermarkFires() {
    WindowPolicy policy = HOURLY.withAllowedLateness(Duration.ofMinutes(30));
    Items given =
        new Items()
            .order(7, "1", "10:10") //  0-0 on time; W0 := 10:05
            .order(8, "2", "11:20") //  0-1 on time; W0 := 11:15: 7's revision 1 (end 11:00)
            .watermark("11:30") //      0-2 W = 11:30 = end + 30m: 7's final; 8's window open
            .order(8, "3", "11:50"); // 0-3 on time; W0 stays 11:45 < 12:00: nothing fires
    ModelQuery query;
    try {
      query = ModelSql.parse(HOURLY_REVENUE);
    } catch (dev.streamform.policies.sql.SqlModelException e) {
      throw new AssertionError(e);
    }
    WindowedOracle oracle = WindowedOracle.of(ORDERS, query, policy);
    assertEquals(
        List.of(
            "on_time 1 10:00-11:00 merchant_id=7 revenue=1 orders=1 {0:0..0#1}",
            "final 1 10:00-11:00 merchant_id=7 revenue=1 orders=1 {0:0..0#1}"),
        rows(oracle.runUnended(given.items())));
    // with the end of the input, 8's window emits its revision 1 and final as well
    assertEquals(4, oracle.run(given.items()).rows().size());
  }

  @Test
  void undefinedPartitionWatermarkMeansOnTime() {
    Items given =
        new Items()
            .order(0, 8, "1", "15:00") //  0-0 on time; W0 := 14:55
            .order(1, 7, "2", "10:00") //  1-0 W1 undefined: on time, however far W0 is ahead
            .order(0, 7, "4", "10:30"); // 0-1 W0 = 14:55 >= 11:00 + 0: too late
    WindowedOutcome out = run(HOURLY_REVENUE, HOURLY, given);
    assertEquals(
        List.of(
            "on_time 1 10:00-11:00 merchant_id=7 revenue=2 orders=1 {1:0..0#1}",
            "final 1 10:00-11:00 merchant_id=7 revenue=2 orders=1 {1:0..0#1}",
            "on_time 1 15:00-16:00 merchant_id=8 revenue=1 orders=1 {0:0..0#1}",
            "final 1 15:00-16:00 merchant_id=8 revenue=1 orders=1 {0:0..0#1}"),
        rows(out));
    assertEquals(List.of("0-1 10:00 lost to 14:55"), late(out));
  }

  @Test
  void edgesAreInclusiveAndWindowsJudgeByTheirEndNotByTheEventTime() {
    WindowPolicy policy = HOURLY.withAllowedLateness(Duration.ofMinutes(30));
    Items given =
        new Items()
            .watermark("10:30") //                 0-0 W0 = 10:30
            .order(
                7, "1", "10:20") //             0-1 t < W0 (late in §2 terms), but W0 < end: on time
            .order(7, "2", "10:30") //             0-2 t == W0: on time
            .watermark("11:00") //                 0-3 W = end: revision 1
            .order(7, "4", "11:00") //             0-4 t == W0, window [11:00,12:00): on time
            .order(7, "8", "10:59:59.999") //      0-5 W0 == end: a correction
            .watermark("11:29:59.999") //          0-6
            .order(7, "16", "10:10") //            0-7 W0 just below end + 30m: a correction
            .watermark("11:30") //                 0-8 W = end + 30m: final
            .order(7, "32", "10:50"); //           0-9 W0 == end + 30m: too late
    //                                         end of input: [11:00) revision 1 and final
    WindowedOutcome out = run(HOURLY_REVENUE, policy, given);
    assertEquals(
        List.of(
            "on_time 1 10:00-11:00 merchant_id=7 revenue=3 orders=2 {0:1..2#2}",
            "corrected 2<-1 10:00-11:00 merchant_id=7 revenue=11 orders=3 {0:1..5#3}",
            "corrected 3<-2 10:00-11:00 merchant_id=7 revenue=27 orders=4 {0:1..7#4}",
            "final 3<-2 10:00-11:00 merchant_id=7 revenue=27 orders=4 {0:1..7#4}",
            "on_time 1 11:00-12:00 merchant_id=7 revenue=4 orders=1 {0:4..4#1}",
            "final 1 11:00-12:00 merchant_id=7 revenue=4 orders=1 {0:4..4#1}"),
        rows(out));
    assertEquals(List.of("0-9 10:00 lost to 11:30"), late(out));
    assertCounts(out, 5, 4, 2, 1, 0);
  }

  @Test
  void watermarkItemWithoutPartitionCreatesNone() {
    // Events only on partition 1: W = W1. Were partition 0 counted, W would stay undefined until
    // the end of input and the [10:00) window's revision 1 would come after the last preview.
    Items given =
        new Items()
            .watermark("09:00") //         1-0 (only partition 1 is the fixture's; W1 = 09:00)
            .order(1, 7, "1", "10:10") //  1-1 preview [10:00); W1 := 10:05
            .order(
                1, 7, "2",
                "11:20") //  1-2 preview [11:00); W1 := 11:15 = W: [10:00) revision 1, final
            .order(1, 7, "4", "11:30"); // 1-3 preview [11:00) 6 / 2
    WindowedOutcome out = run(HOURLY_REVENUE, HOURLY.withEarlyResultsEvery(1), given);
    assertEquals(
        List.of(
            "early 0 10:00-11:00 merchant_id=7 revenue=1 orders=1 {1:1..1#1}",
            "early 0 11:00-12:00 merchant_id=7 revenue=2 orders=1 {1:2..2#1}",
            "on_time 1 10:00-11:00 merchant_id=7 revenue=1 orders=1 {1:1..1#1}",
            "final 1 10:00-11:00 merchant_id=7 revenue=1 orders=1 {1:1..1#1}",
            "early 0 11:00-12:00 merchant_id=7 revenue=6 orders=2 {1:2..3#2}",
            "on_time 1 11:00-12:00 merchant_id=7 revenue=6 orders=2 {1:2..3#2}",
            "final 1 11:00-12:00 merchant_id=7 revenue=6 orders=2 {1:2..3#2}"),
        rows(out));
  }

  @Test
  void whereFilteredEventsAdvanceTheClockButAreInNoWindowAndNotProcessed() {
    // SQL filters rows before it groups them: WHERE comes before the windows.
    String query =
        "SELECT merchant_id, SUM(amount) AS revenue, COUNT(*) AS orders FROM source('orders')"
            + " WHERE amount < 100 GROUP BY merchant_id";
    Items given =
        new Items()
            .order(7, "1", "10:10") //    0-0 on time; W0 := 10:05
            .order(8, "500", "11:30") //  0-1 filtered: no window for 8, not processed, but
            //                                W0 := 11:25 = W: 7's [10:00) revision 1 and final
            .order(7, "2", "10:50") //    0-2 W0 = 11:25 >= 11:00 + 0: too late, a late row
            .order(7, "900", "10:30"); // 0-3 filtered: no late row although W0 is past its window
    WindowedOutcome out = run(query, HOURLY, given);
    assertEquals(
        List.of(
            "on_time 1 10:00-11:00 merchant_id=7 revenue=1 orders=1 {0:0..0#1}",
            "final 1 10:00-11:00 merchant_id=7 revenue=1 orders=1 {0:0..0#1}"),
        rows(out));
    assertEquals(List.of("0-2 10:00 lost to 11:25"), late(out));
    assertCounts(out, 1, 1, 1, 1, 0);
  }

  @Test
  void identityFollowsTheRevisionIdentityTestVectors() {
    // RevisionIdentityTest's vectors: window of hourly_revenue {merchant_id: 7}, 2026-08-30
    // 10:00-11:00; generation 1; values {revenue: 30.50, orders: 3}.
    Items given =
        new Items().order(7, "10.00", "10:05").order(7, "20.00", "10:10").order(7, "0.50", "10:15");
    WindowedOutcome out = run(HOURLY_REVENUE, HOURLY, given);
    Row revision = out.rows().get(0);
    Row last = out.rows().get(1);
    assertEquals(WindowStatus.ON_TIME, revision.status());
    assertEquals(
        "63f859c63e35403012fad180f0e51c7ceef796cd726b773a95f7df60ec46904b",
        revision.logicalWindowId());
    assertEquals(
        "95dbe384decc86d458ba30b9e59b81cde90638d99e4e5ea7f4e73f218b0df281",
        revision.projectionId());
    assertEquals(
        "04d964cac68690b4d9f19ebf4de5cc38f44712cbb388fa91d2565c71e58d4f35",
        revision.aggregateDigest());
    assertEquals(WindowStatus.FINAL, last.status());
    assertEquals(revision.aggregateDigest(), last.aggregateDigest());
    assertEquals(revision.projectionId(), last.projectionId());
  }

  @Test
  void generationChangesProjectionIdOnlyAndEqualValuesHaveEqualDigests() {
    Items given =
        new Items()
            .order(7, "5.00", "10:05") // rows 0, 1: revision 1 and final of 7's [10:00)
            .order(
                8, "5", "10:10") //    rows 2, 3: the same values for 8 (5 and 5.00 are one value)
            .order(7, "0", "11:05"); //   W0 := 11:00; rows 4, 5: 7's [11:00), revenue 0
    WindowedOutcome one = run(HOURLY_REVENUE, HOURLY, given);
    WindowedOutcome two = run(HOURLY_REVENUE, HOURLY.withGeneration(2), given);
    Row seven = one.rows().get(0);
    Row eight = one.rows().get(2);
    assertEquals("merchant_id=7", show(seven.key()));
    assertEquals("merchant_id=8", show(eight.key()));
    assertEquals(seven.aggregateDigest(), eight.aggregateDigest());
    assertNotEquals(seven.logicalWindowId(), eight.logicalWindowId());
    Row nextHour = one.rows().get(4);
    assertEquals("11:00", time(nextHour.windowStart()));
    assertNotEquals(seven.aggregateDigest(), nextHour.aggregateDigest());
    assertNotEquals(seven.logicalWindowId(), nextHour.logicalWindowId());
    for (int i = 0; i < one.rows().size(); i++) {
      Row a = one.rows().get(i);
      Row b = two.rows().get(i);
      assertEquals(a.logicalWindowId(), b.logicalWindowId());
      assertNotEquals(a.projectionId(), b.projectionId());
      assertEquals(a.aggregateDigest(), b.aggregateDigest());
    }
  }

  @Test
  void identityKeyIsNamedAsTheQueryOutputsIt() {
    String query =
        "SELECT merchant_id AS merchant, SUM(amount) AS revenue FROM source('orders')"
            + " GROUP BY merchant_id";
    WindowedOutcome out = run(query, HOURLY, new Items().order(7, "1", "10:05"));
    Row row = out.rows().get(0);
    assertEquals("merchant=7", show(row.key()));
    assertEquals(
        dev.streamform.core.digest.RevisionIdentity.logicalWindowId(
            "hourly_revenue", Map.of("merchant", 7L), at("10:00"), at("11:00")),
        row.logicalWindowId());
  }

  @Test
  void windowStartsAreMultiplesOfEveryFromTheEpoch() {
    WindowPolicy hopping = WindowPolicy.hopping("m", Duration.ofHours(1), Duration.ofMinutes(20));
    assertEquals(
        List.of("09:40", "10:00", "10:20"), times(hopping.windowStartsOf(at("10:39:59.999"))));
    assertEquals(List.of("10:00", "10:20", "10:40"), times(hopping.windowStartsOf(at("10:40"))));
    assertEquals(List.of("10:00"), times(HOURLY.windowStartsOf(at("10:59:59.999"))));
    assertEquals(
        List.of(Instant.parse("1969-12-31T23:00:00Z")),
        HOURLY.windowStartsOf(Instant.parse("1969-12-31T23:59:59Z")));
    assertThrows(
        IllegalArgumentException.class,
        () -> WindowPolicy.hopping("m", Duration.ofHours(1), Duration.ofMinutes(25)));
    assertThrows(IllegalArgumentException.class, () -> HOURLY.withGeneration(0));
    assertThrows(IllegalArgumentException.class, () -> HOURLY.withEarlyResultsEvery(-1));
    assertThrows(
        IllegalArgumentException.class, () -> HOURLY.withAllowedLateness(Duration.ofMinutes(-1)));
  }

  // --- helpers ---------------------------------------------------------------------------------

  private static SourceDeclaration orders() {
    Map<String, ColumnType> schema = new LinkedHashMap<>();
    schema.put("merchant_id", ColumnType.INT64);
    schema.put("amount", ColumnType.decimal(12, 2));
    schema.put("ordered_at", ColumnType.TIMESTAMP);
    return SourceDeclaration.builder()
        .setName("orders")
        .setConnector(Connector.FILE)
        .setPath("orders.jsonl")
        .setSchema(schema)
        .setEventTime("ordered_at")
        .setWatermark(Duration.ofMinutes(5))
        .build();
  }

  private static WindowedOutcome run(String sql, WindowPolicy policy, Items given) {
    try {
      ModelQuery query = ModelSql.parse(sql);
      return WindowedOracle.of(ORDERS, query, policy).run(given.items());
    } catch (dev.streamform.policies.sql.SqlModelException e) {
      throw new AssertionError(e);
    }
  }

  private static void assertCounts(
      WindowedOutcome out, int processed, int revisions, int finalized, int late, int quarantined) {
    assertEquals(
        List.of(processed, revisions, finalized, late, quarantined),
        List.of(
            out.eventsProcessed(),
            out.revisionsEmitted(),
            out.windowsFinalized(),
            out.lateEventsDropped(),
            out.eventsQuarantined()),
        "processed, revisions, finalized, late, quarantined");
  }

  /** The given items of a test, as a fixture file would list them. */
  private static final class Items {
    private final Fixture.Builder fixture = Fixture.builder("test", "hourly_revenue");

    Items order(long merchant, String amount, String time) {
      return order(0, merchant, amount, time);
    }

    Items order(int partition, long merchant, String amount, String time) {
      Map<String, Object> event = new LinkedHashMap<>();
      event.put("merchant_id", merchant);
      event.put("amount", new BigDecimal(amount));
      event.put("ordered_at", at(time));
      fixture.event(partition, event);
      return this;
    }

    Items order(Map<String, Object> event) {
      fixture.event(0, event);
      return this;
    }

    /** A watermark item without partition: it holds for every partition. */
    Items watermark(String time) {
      fixture.watermark(Optional.empty(), at(time));
      return this;
    }

    Items watermark(int partition, String time) {
      fixture.watermark(Optional.of(partition), at(time));
      return this;
    }

    List<Fixture.Given> items() {
      return fixture.build().given();
    }
  }

  /** {@code HH:mm[:ss.SSS]} on 2026-08-30, or {@code MM-dd HH:mm} on another day of 2026. */
  private static Instant at(String time) {
    String date = time.contains(" ") ? "2026-" + time.substring(0, 5) : "2026-08-30";
    String clock = time.contains(" ") ? time.substring(6) : time;
    return Instant.parse(date + "T" + (clock.length() == 5 ? clock + ":00" : clock) + "Z");
  }

  private static String time(Instant t) {
    String day = DateTimeFormatter.ofPattern("MM-dd ").withZone(ZoneOffset.UTC).format(t);
    String clock =
        DateTimeFormatter.ofPattern("HH:mm:ss.SSS")
            .withZone(ZoneOffset.UTC)
            .format(t)
            .replaceFirst(":00\\.000$", "");
    return (day.equals("08-30 ") ? "" : day) + clock;
  }

  private static List<String> times(List<Instant> instants) {
    return instants.stream().map(WindowedOracleTest::time).collect(Collectors.toList());
  }

  private static List<String> rows(WindowedOutcome out) {
    List<String> shown = new ArrayList<>();
    for (Row r : out.rows()) {
      String offsets =
          r.offsets().entrySet().stream()
              .map(
                  e ->
                      e.getKey()
                          + ":"
                          + e.getValue().min()
                          + ".."
                          + e.getValue().max()
                          + "#"
                          + e.getValue().count())
              .collect(Collectors.joining(", ", "{", "}"));
      shown.add(
          r.status().yamlName()
              + " "
              + r.revision()
              + r.predecessor().map(p -> "<-" + p).orElse("")
              + " "
              + time(r.windowStart())
              + "-"
              + time(r.windowEnd())
              + " "
              + show(r.key())
              + " "
              + show(r.values())
              + " "
              + offsets);
    }
    return shown;
  }

  private static List<String> late(WindowedOutcome out) {
    List<String> shown = new ArrayList<>();
    for (Late l : out.late()) {
      shown.add(l.eventId() + " " + time(l.windowStart()) + " lost to " + time(l.watermark()));
    }
    return shown;
  }

  private static String show(Map<String, Object> values) {
    return values.entrySet().stream()
        .map(
            e ->
                e.getKey()
                    + "="
                    + (e.getValue() instanceof BigDecimal
                        ? ((BigDecimal) e.getValue()).stripTrailingZeros().toPlainString()
                        : String.valueOf(e.getValue())))
        .collect(Collectors.joining(" "));
  }
}
