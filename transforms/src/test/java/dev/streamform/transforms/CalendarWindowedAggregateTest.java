package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.core.digest.RevisionIdentity;
import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.windows.CalendarWindow;
import dev.streamform.transforms.windows.TooLateEvent;
import dev.streamform.transforms.windows.WindowRevision;
import dev.streamform.transforms.windows.WindowedAggregate;
import dev.streamform.transforms.windows.WindowedResult;
import java.math.BigDecimal;
import java.time.DayOfWeek;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.windowing.CalendarWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.DateTimeConstants;
import org.joda.time.DateTimeZone;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Calendar windows (docs/semantics.md §6.22 to §6.24) in {@link WindowedAggregate}: the 25-hour day
 * 2026-10-25 in Europe/Berlin, worked out by hand, and the boundaries of {@link CalendarWindow}
 * against Beam's own {@link CalendarWindows} (Joda's zone rules) over two years.
 */
class CalendarWindowedAggregateTest {

  private static WindowedAggregate dailyBerlin() {
    return WindowedAggregate.of(
            CalendarWindows.days(1).withTimeZone(DateTimeZone.forID("Europe/Berlin")))
        .forModel("daily_revenue")
        .by("customer_id")
        .aggregating(Aggregation.sum("amount").as("revenue"))
        .withAllowedLateness(Duration.standardHours(2));
  }

  static String line(WindowRevision r) {
    return r.windowLocal()
        + " ["
        + r.windowStart()
        + ", "
        + r.windowEnd()
        + ") "
        + r.status().yamlName()
        + " r"
        + r.revision()
        + " "
        + r.key().getValue(0)
        + " "
        + ((BigDecimal) r.values().getValue(0)).stripTrailingZeros().toPlainString();
  }

  /**
   * Bound 5m. The local day 2026-10-25 is [10-24T22:00Z, 10-25T23:00Z): 25 hours. 10 @00:30 local
   * and 20 @23:30 local (22:30Z, which a UTC day would put in 10-25 too, but 10 @22:30Z on 10-24 it
   * would not) are on time; 5 @00:10 local on the 26th moves W to 23:05Z past the end: revision 1 =
   * 30. A refund -4 @23:50 local arrives at W = 23:05Z, a correction: revision 2 = 26. The
   * watermark 10-26T02:00Z passes end + 2h: final 26, and the 26th's day is not over. A refund
   * -1 @12:00 local on the 25th is then too late. The end of input closes the 26th: 5.
   */
  @Test
  void theTwentyFiveHourDayInBerlinIsOneWindowJudgedAtItsRealEnd() {
    SeedStreams s =
        new SeedStreams()
            .event(0, 7, "10", "2026-10-24T22:30:00Z")
            .event(0, 7, "20", "2026-10-25T22:30:00Z")
            .event(0, 7, "5", "2026-10-25T23:10:00Z")
            .event(0, 7, "-4", "2026-10-25T22:50:00Z")
            .watermark(0, Instant.parse("2026-10-26T02:00:00Z"))
            .event(0, 7, "-1", "2026-10-25T10:00:00Z");
    Pipeline p = SeedStreams.pipeline();
    PCollection<SourceRecord> records = p.apply(s.testStream());
    WindowedResult result =
        records
            .apply(EventTimeExtraction.from("ordered_at"))
            .events()
            .apply(
                SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5))
                    .keepingLateEvents()
                    .withContiguousOffsets()
                    .withPartitions(0))
            .events()
            .apply(dailyBerlin());
    String day25 = "2026-10-25 [2026-10-24T22:00:00.000Z, 2026-10-25T23:00:00.000Z) ";
    String day26 = "2026-10-26 [2026-10-25T23:00:00.000Z, 2026-10-26T23:00:00.000Z) ";
    PAssert.that(
            result
                .revisions()
                .apply(
                    "Lines",
                    MapElements.into(TypeDescriptors.strings())
                        .via(CalendarWindowedAggregateTest::line)))
        .containsInAnyOrder(
            day25 + "on_time r1 7 30",
            day25 + "corrected r2 7 26",
            day25 + "final r2 7 26",
            day26 + "on_time r1 7 5",
            day26 + "final r1 7 5");
    PAssert.that(
            result
                .tooLate()
                .apply(
                    "Late",
                    MapElements.into(TypeDescriptors.strings())
                        .via((TooLateEvent e) -> e.windowStart() + " " + e.watermark())))
        .containsInAnyOrder("2026-10-24T22:00:00.000Z 2026-10-26T02:00:00.000Z");
    String id =
        RevisionIdentity.logicalWindowId(
            "daily_revenue",
            Map.of("customer_id", 7L),
            java.time.Instant.parse("2026-10-24T22:00:00Z"),
            java.time.Instant.parse("2026-10-25T23:00:00Z"),
            "Europe/Berlin");
    PAssert.that(
            result
                .revisions()
                .apply(
                    "Ids",
                    MapElements.into(TypeDescriptors.strings())
                        .via((WindowRevision r) -> r.windowLocal() + " " + r.logicalWindowId())))
        .satisfies(
            ids -> {
              ids.forEach(
                  line -> {
                    if (line.startsWith("2026-10-25 ")) {
                      assertEquals(
                          "2026-10-25 " + id, line, "the zone is in the window's identity");
                    }
                  });
              return null;
            });
    p.run().waitUntilFinish();
  }

  /**
   * The local days whose midnight daylight saving skips, in 2026 and 2027 (tzdata): Santiago the
   * first Sunday of September, Havana the second Sunday of March, Beirut the last Sunday of March,
   * Cairo the last Friday of April, each at 00:00 to 01:00.
   */
  static final Map<String, List<String>> SKIPPED_MIDNIGHTS =
      Map.of(
          "America/Santiago", List.of("2026-09-06", "2027-09-05"),
          "America/Havana", List.of("2026-03-08", "2027-03-14"),
          "Asia/Beirut", List.of("2026-03-29", "2027-03-28"),
          "Africa/Cairo", List.of("2026-04-24", "2027-04-30"));

  /**
   * Every hour of 2026 and 2027 in eight zones: our java.time windows = Beam's Joda windows, but
   * for a window that starts on a day whose midnight is skipped (ADR 0021): both start at that
   * day's first local time (01:00), but Beam ends it one Joda day later, at 01:00 of the next day,
   * an hour into the next window (which Beam starts at its midnight), where ours ends at the next
   * local midnight — a day of 23 hours, and windows that never overlap.
   */
  @Test
  void boundariesAgreeWithBeamsCalendarWindows() {
    for (String zone :
        List.of(
            "Europe/Berlin",
            "America/New_York",
            "Asia/Kolkata",
            "Australia/Adelaide",
            "America/Santiago",
            "America/Havana",
            "Asia/Beirut",
            "Africa/Cairo")) {
      DateTimeZone joda = DateTimeZone.forID(zone);
      ZoneId local = ZoneId.of(zone);
      List<Object[]> pairs =
          List.of(
              new Object[] {CalendarWindows.days(1).withTimeZone(joda), CalendarWindow.days(local)},
              new Object[] {
                CalendarWindows.weeks(1, DateTimeConstants.MONDAY).withTimeZone(joda),
                CalendarWindow.weeks(local, DayOfWeek.MONDAY)
              },
              new Object[] {
                CalendarWindows.weeks(1, DateTimeConstants.SUNDAY).withTimeZone(joda),
                CalendarWindow.weeks(local, DayOfWeek.SUNDAY)
              },
              new Object[] {
                CalendarWindows.months(1).withTimeZone(joda), CalendarWindow.months(local)
              });
      for (Object[] pair : pairs) {
        @SuppressWarnings("unchecked")
        org.apache.beam.sdk.transforms.windowing.PartitioningWindowFn<Object, IntervalWindow> beam =
            (org.apache.beam.sdk.transforms.windowing.PartitioningWindowFn<Object, IntervalWindow>)
                pair[0];
        CalendarWindow ours = (CalendarWindow) pair[1];
        assertEquals(ours, WindowedAggregate.of(beam).calendar(), "read from Beam's " + beam);
        java.util.Set<String> differing = new java.util.TreeSet<>();
        for (long t = Instant.parse("2026-01-01T00:00:00Z").getMillis();
            t < Instant.parse("2028-01-01T00:00:00Z").getMillis();
            t += 3_600_000L - 1) {
          IntervalWindow w = beam.assignWindow(new Instant(t));
          long[] mine = ours.windowOf(t);
          String firstDay =
              java.time.Instant.ofEpochMilli(mine[0]).atZone(local).toLocalDate().toString();
          if (w.end().getMillis() != mine[1]
              && SKIPPED_MIDNIGHTS.getOrDefault(zone, List.of()).contains(firstDay)) {
            // the difference ADR 0021 describes: same start (01:00), ours ends at the next
            // local midnight, Beam's an hour later (01:00 of the next day)
            differing.add(firstDay);
            assertEquals(
                java.time.LocalDate.parse(firstDay).atTime(1, 0).atZone(local).toInstant(),
                java.time.Instant.ofEpochMilli(mine[0]),
                ours.describe()
                    + " at "
                    + new Instant(t)
                    + ": starts at 01:00, the first local time");
            assertEquals(
                w.start().getMillis() + " " + (w.end().getMillis() - 3_600_000L),
                mine[0] + " " + mine[1],
                ours.describe() + " at " + new Instant(t) + ": Beam's ends an hour later");
            continue;
          }
          assertEquals(
              w.start().getMillis() + " " + w.end().getMillis(),
              mine[0] + " " + mine[1],
              ours.describe() + " at " + new Instant(t));
        }
        // every window that starts on a skipped midnight's day differs, and only those
        java.util.Set<String> starting = new java.util.TreeSet<>();
        for (String day : SKIPPED_MIDNIGHTS.getOrDefault(zone, List.of())) {
          long first =
              java.time.LocalDate.parse(day).atTime(1, 0).atZone(local).toInstant().toEpochMilli();
          if (ours.windowOf(first)[0] == first) {
            starting.add(day);
          }
        }
        assertEquals(
            starting, differing, ours.describe() + ": the windows that differ from Beam's");
      }
    }
  }
}
