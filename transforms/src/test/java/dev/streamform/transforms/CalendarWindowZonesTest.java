package dev.streamform.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.transforms.windows.CalendarWindow;
import dev.streamform.transforms.windows.WindowedAggregate;
import java.time.DayOfWeek;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.apache.beam.sdk.transforms.windowing.CalendarWindows;
import org.joda.time.DateTimeZone;
import org.junit.jupiter.api.Test;

/**
 * The zone of a calendar window built in Java (docs/semantics.md §6, calendar windows): an IANA
 * zone, as a declaration's {@code time_zone} must be; a fixed offset is refused as {@code check}
 * refuses it; the name as given is the name the window's identity hashes (ADR 0175).
 */
class CalendarWindowZonesTest {

  @Test
  void aFixedOffsetIsRefusedNamingTheOffsetAndTheFix() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> CalendarWindow.days(ZoneOffset.ofHours(-4)));
    assertThat(
        e.getMessage(),
        is(
            "CalendarWindow.days: '-04:00' is a fixed offset from UTC, not a time zone: a local"
                + " day follows its region's clock changes; give the region's IANA zone, e.g."
                + " ZoneId.of(\"America/New_York\"), or ZoneId.of(\"UTC\")"));
    IllegalArgumentException weeks =
        assertThrows(
            IllegalArgumentException.class,
            () -> CalendarWindow.weeks(ZoneId.of("GMT+2"), DayOfWeek.MONDAY));
    assertThat(weeks.getMessage(), containsString("'GMT+02:00' is a fixed offset from UTC"));
  }

  @Test
  void beamsCalendarWindowsInAFixedOffsetAreRefusedAsWritten() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                WindowedAggregate.of(
                    CalendarWindows.days(1).withTimeZone(DateTimeZone.forOffsetHours(-4))));
    assertThat(
        e.getMessage(),
        containsString(
            "WindowedAggregate.of(CalendarWindows.days(1)): '-04:00' is a fixed offset from UTC"));
    IllegalArgumentException months =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                WindowedAggregate.of(
                    CalendarWindows.months(1).withTimeZone(DateTimeZone.forOffsetHours(2))));
    assertThat(
        months.getMessage(),
        containsString(
            "WindowedAggregate.of(CalendarWindows.months(1)): '+02:00' is a fixed offset"));
  }

  @Test
  void utcAsAnOffsetIsUtcAndAnIanaNameIsKeptAsGiven() {
    assertThat(CalendarWindow.days(ZoneOffset.UTC).zoneId(), is("UTC"));
    assertThat(CalendarWindow.months(ZoneId.of("Etc/GMT+4")).zoneId(), is("Etc/GMT+4"));
    // an alias is hashed as written, as a declaration's time_zone is
    assertThat(CalendarWindow.days(ZoneId.of("US/Eastern")).zoneId(), is("US/Eastern"));
    // Beam's CalendarWindows hold a Joda zone, which names an alias by its main zone
    assertThat(
        WindowedAggregate.of(CalendarWindows.days(1).withTimeZone(DateTimeZone.forID("US/Eastern")))
            .calendar()
            .zoneId(),
        is("America/New_York"));
  }
}
