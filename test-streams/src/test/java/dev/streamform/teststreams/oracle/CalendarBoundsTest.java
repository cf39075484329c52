package dev.streamform.teststreams.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.transforms.windows.CalendarWindow;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The oracle's calendar windows (docs/semantics.md §6, calendar windows; ADR 0214): a window starts
 * at the earliest local midnight of its first day and is the one that contains the instant, as the
 * engine's {@link CalendarWindow} works it out on its own.
 */
class CalendarBoundsTest {

  /**
   * Havana, 2026-11-01: the clocks go back at 01:00 CDT (05:00Z) to 00:00 CST, so local midnight
   * happens twice, at 04:00Z and at 05:00Z. The day starts at the first: one window for both
   * instants, to the midnight of Nov 2 (05:00Z).
   */
  @Test
  void aDayWhoseMidnightHappensTwiceIsOneWindowFromTheFirst() {
    WindowPolicy.Calendar havana = days("America/Havana");
    assertEquals(
        "2026-11-01T04:00:00Z 2026-11-02T05:00:00Z", window(havana, "2026-11-01T04:30:00Z"));
    assertEquals(
        "2026-11-01T04:00:00Z 2026-11-02T05:00:00Z", window(havana, "2026-11-01T05:30:00Z"));
    // the Azores, 2026-10-25: 01:00 -00:00 (01:00Z) back to 00:00 -01:00
    WindowPolicy.Calendar azores = days("Atlantic/Azores");
    assertEquals(
        "2026-10-25T00:00:00Z 2026-10-26T01:00:00Z", window(azores, "2026-10-25T01:30:00Z"));
  }

  /**
   * St. John's, 2010-11-07: the clocks went back at 00:01 NDT (02:31Z) to 23:01 NST of Nov 6, so
   * 02:40Z reads Nov 6 after Nov 7 began at 02:30Z: it is in Nov 7's window, which contains it.
   */
  @Test
  void anInstantAfterAFallBackAcrossMidnightIsInTheDayThatHasBegun() {
    WindowPolicy.Calendar stJohns = days("America/St_Johns");
    assertEquals(
        "2010-11-06T02:30:00Z 2010-11-07T02:30:00Z", window(stJohns, "2010-11-07T02:20:00Z"));
    assertEquals(
        "2010-11-07T02:30:00Z 2010-11-08T03:30:00Z", window(stJohns, "2010-11-07T02:30:00Z"));
    assertEquals(
        "2010-11-07T02:30:00Z 2010-11-08T03:30:00Z", window(stJohns, "2010-11-07T02:40:00Z"));
  }

  /**
   * Every zone's clock changes from 1900 to 2040 (a millisecond either side and half an hour
   * after), days, weeks and months: the oracle's window is the engine's.
   */
  @Test
  void theOraclesWindowsAreTheEnginesAroundEveryClockChange() {
    long from = Instant.parse("1900-01-01T00:00:00Z").getEpochSecond();
    long to = Instant.parse("2040-01-01T00:00:00Z").getEpochSecond();
    Set<ZoneRules> seen = new HashSet<>();
    int checked = 0;
    for (String name : ZoneId.getAvailableZoneIds()) {
      ZoneId zone = ZoneId.of(name);
      if (!seen.add(zone.getRules())) {
        continue; // an alias, or a zone with the same clock changes: the same windows
      }
      List<Object[]> pairs =
          List.of(
              new Object[] {
                new WindowPolicy.Calendar(ChronoUnit.DAYS, zone, DayOfWeek.MONDAY),
                CalendarWindow.days(zone)
              },
              new Object[] {
                new WindowPolicy.Calendar(ChronoUnit.WEEKS, zone, DayOfWeek.SUNDAY),
                CalendarWindow.weeks(zone, DayOfWeek.SUNDAY)
              },
              new Object[] {
                new WindowPolicy.Calendar(ChronoUnit.MONTHS, zone, DayOfWeek.MONDAY),
                CalendarWindow.months(zone)
              });
      for (ZoneOffsetTransition change : zone.getRules().getTransitions()) {
        if (change.toEpochSecond() < from || change.toEpochSecond() >= to) {
          continue;
        }
        for (long d : new long[] {-1, 1, 1_800_000}) {
          long t = change.toEpochSecond() * 1000 + d;
          for (Object[] pair : pairs) {
            WindowPolicy.Calendar oracle = (WindowPolicy.Calendar) pair[0];
            long[] engine = ((CalendarWindow) pair[1]).windowOf(t);
            Instant start = oracle.startOf(Instant.ofEpochMilli(t));
            assertEquals(
                Instant.ofEpochMilli(engine[0]) + " " + Instant.ofEpochMilli(engine[1]),
                start + " " + oracle.endOf(start),
                name + " " + oracle.unit() + " at " + Instant.ofEpochMilli(t));
            checked++;
          }
        }
      }
    }
    System.out.println("oracle calendar windows: " + checked + " instants, the engine's");
  }

  private static WindowPolicy.Calendar days(String zone) {
    return new WindowPolicy.Calendar(ChronoUnit.DAYS, ZoneId.of(zone), DayOfWeek.MONDAY);
  }

  private static String window(WindowPolicy.Calendar calendar, String t) {
    Instant start = calendar.startOf(Instant.parse(t));
    return start + " " + calendar.endOf(start);
  }
}
