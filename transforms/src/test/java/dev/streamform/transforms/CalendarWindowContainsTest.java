package dev.streamform.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.transforms.windows.CalendarWindow;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The calendar window of an instant contains it (docs/semantics.md §6, calendar windows; ADR 0214):
 * where the clocks fall back across midnight, an instant whose local date is the previous day's
 * belongs to the day that has begun.
 */
class CalendarWindowContainsTest {

  /**
   * St. John's, 2010-11-07: at 00:01 NDT (02:31Z) the clocks went back to 23:01 NST of Nov 6, so
   * 02:40Z reads Nov 6 23:10 after Nov 7 began at 02:30Z.
   */
  @Test
  void anInstantAfterTheFallBackAcrossMidnightIsInTheDayThatHasBegun() {
    CalendarWindow days = CalendarWindow.days(ZoneId.of("America/St_Johns"));
    assertEquals("2010-11-06T02:30:00Z 2010-11-07T02:30:00Z", window(days, "2010-11-07T02:20:00Z"));
    assertEquals("2010-11-07T02:30:00Z 2010-11-08T03:30:00Z", window(days, "2010-11-07T02:30:00Z"));
    assertEquals("2010-11-07T02:30:00Z 2010-11-08T03:30:00Z", window(days, "2010-11-07T02:40:00Z"));
    assertEquals("2010-11-07", days.localLabel(days.windowOf(at("2010-11-07T02:40:00Z"))[0]));
  }

  /**
   * Every zone, 1900 to 2040, days, weeks and months: instants around each clock change and one a
   * year fall in a window that contains them, and the next window starts where it ends.
   */
  @Test
  void everyZonesWindowsContainTheirInstantsFrom1900To2040() {
    long started = System.nanoTime();
    long from = at("1900-01-01T00:00:00Z");
    long to = at("2040-01-01T00:00:00Z");
    int checked = 0;
    Set<ZoneRules> seen = new HashSet<>();
    for (String name : ZoneId.getAvailableZoneIds()) {
      ZoneId zone = ZoneId.of(name);
      if (!seen.add(zone.getRules())) {
        continue; // an alias, or a zone with the same clock changes: the same windows
      }
      List<Long> instants = new ArrayList<>();
      for (ZoneOffsetTransition c : zone.getRules().getTransitions()) {
        long at = c.toEpochSecond() * 1000;
        if (at >= from && at < to) {
          for (long d : new long[] {-1, 1, 1_800_000}) {
            instants.add(at + d);
          }
        }
      }
      for (long t = from; t < to; t += 1_831 * 86_400_000L + 7 * 3_600_000L) {
        instants.add(t);
      }
      for (CalendarWindow w :
          List.of(
              CalendarWindow.days(zone),
              CalendarWindow.weeks(zone, DayOfWeek.MONDAY),
              CalendarWindow.months(zone))) {
        for (long t : instants) {
          long[] window = w.windowOf(t);
          if (window[0] > t || t >= window[1]) {
            throw new AssertionError(
                w.describe()
                    + ": "
                    + Instant.ofEpochMilli(t)
                    + " got ["
                    + Instant.ofEpochMilli(window[0])
                    + ", "
                    + Instant.ofEpochMilli(window[1])
                    + "), which does not contain it");
          }
          assertEquals(window[1], w.windowOf(window[1])[0], w.describe() + " after " + t);
          checked++;
        }
      }
    }
    System.out.println(
        "calendar windows: "
            + checked
            + " instants checked in "
            + (System.nanoTime() - started) / 1_000_000
            + " ms");
    assertTrue(
        checked > 100_000,
        checked + " instants checked in " + (System.nanoTime() - started) / 1_000_000 + " ms");
  }

  private static String window(CalendarWindow w, String t) {
    long[] window = w.windowOf(at(t));
    return Instant.ofEpochMilli(window[0]) + " " + Instant.ofEpochMilli(window[1]);
  }

  private static long at(String t) {
    return Instant.parse(t).toEpochMilli();
  }
}
