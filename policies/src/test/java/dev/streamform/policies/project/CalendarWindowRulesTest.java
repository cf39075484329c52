package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.WindowSpec;
import java.nio.file.Path;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Calendar windows in a time zone (docs/semantics.md §6.22 to §6.24) as streamform.yml declares
 * them.
 */
class CalendarWindowRulesTest {
  @TempDir Path dir;

  private ProjectFolder withModel(String keys) {
    return ProjectFolder.seed(dir)
        .models("models:\n  customer_metrics:\n    key: [customer_id]\n" + keys);
  }

  private ModelDeclaration loaded(String keys) throws Exception {
    return withModel(keys).load().models().get("customer_metrics");
  }

  @Test
  void aDayInBerlinLoadsAndItsWindowsRunFromLocalMidnightToLocalMidnight() throws Exception {
    WindowSpec w = loaded("    window: 1d\n    time_zone: Europe/Berlin\n").window().get();
    assertThat(w.calendarUnit(), is(Optional.of(WindowSpec.CalendarUnit.DAY)));
    assertThat(w.timeZone(), is(Optional.of(ZoneId.of("Europe/Berlin"))));
    // the last Sunday of October 2026: 25 hours, from 22:00Z (CEST midnight) to 23:00Z (CET
    // midnight)
    Instant start = w.startsContaining(Instant.parse("2026-10-25T12:00:00Z")).get(0);
    assertThat(start, is(Instant.parse("2026-10-24T22:00:00Z")));
    assertThat(w.endOf(start), is(Instant.parse("2026-10-25T23:00:00Z")));
    assertThat(w.localLabel(start), is(Optional.of("2026-10-25")));
    // the last Sunday of March 2026: 23 hours
    Instant march = w.startsContaining(Instant.parse("2026-03-29T05:00:00Z")).get(0);
    assertThat(march, is(Instant.parse("2026-03-28T23:00:00Z")));
    assertThat(w.endOf(march), is(Instant.parse("2026-03-29T22:00:00Z")));
    assertThat(w.isStart(Instant.parse("2026-03-29T00:00:00Z")), is(false));
  }

  /**
   * St. John's, 2010-11-07: the clocks went back at 00:01 to 23:01 of Nov 6, so 02:40Z reads Nov 6
   * 23:10 after Nov 7 began at 02:30Z; it is in Nov 7's window, which contains it (ADR 0214).
   */
  @Test
  void anInstantAfterAFallBackAcrossMidnightIsInTheDayThatHasBegun() throws Exception {
    WindowSpec w = loaded("    window: 1d\n    time_zone: America/St_Johns\n").window().get();
    Instant start = w.startsContaining(Instant.parse("2010-11-07T02:40:00Z")).get(0);
    assertThat(start, is(Instant.parse("2010-11-07T02:30:00Z")));
    assertThat(w.endOf(start), is(Instant.parse("2010-11-08T03:30:00Z")));
    assertThat(w.localLabel(start), is(Optional.of("2010-11-07")));
    assertThat(
        w.startsContaining(Instant.parse("2010-11-07T02:20:00Z")),
        contains(Instant.parse("2010-11-06T02:30:00Z")));
  }

  @Test
  void aDayWithoutTimeZoneIsAUtcDayAndSaysSo() throws Exception {
    WindowSpec w = loaded("    window: 1d\n").window().get();
    assertThat(w.zoneOrUtc(), is(ZoneId.of("UTC")));
    assertThat(w.timeZoneDeclared(), is(false));
    assertThat(w.describe(), is("calendar day in UTC (time_zone not declared: UTC by default)"));
  }

  @Test
  void weeksStartOnTheDeclaredDayAndMonthsAreLabelledByMonth() throws Exception {
    WindowSpec week =
        loaded("    window: 1w\n    time_zone: America/New_York\n    week_starts: sunday\n")
            .window()
            .get();
    assertThat(week.weekStarts(), is(DayOfWeek.SUNDAY));
    Instant s = week.startsContaining(Instant.parse("2026-11-04T12:00:00Z")).get(0);
    assertThat(s, is(Instant.parse("2026-11-01T04:00:00Z"))); // Sunday 1 Nov, midnight EDT
    assertThat(week.endOf(s), is(Instant.parse("2026-11-08T05:00:00Z"))); // EST after the change
    assertThat(week.localLabel(s), is(Optional.of("2026-11-01")));
    WindowSpec month = loaded("    window: 1mo\n    time_zone: Asia/Kolkata\n").window().get();
    Instant m = month.startsContaining(Instant.parse("2026-02-10T00:00:00Z")).get(0);
    assertThat(m, is(Instant.parse("2026-01-31T18:30:00Z")));
    assertThat(month.endOf(m), is(Instant.parse("2026-02-28T18:30:00Z")));
    assertThat(month.localLabel(m), is(Optional.of("2026-02")));
  }

  @Test
  void anUnknownZoneIsRefusedWithTheClosestIanaName() {
    assertThat(
        withModel("    window: 1d\n    time_zone: Europe/Berln\n").problems(),
        contains(
            "streamform.yml:5: model 'customer_metrics', key 'time_zone': 'Europe/Berln' is not an"
                + " IANA time zone name — did you mean 'Europe/Berlin'? write time_zone:"
                + " Europe/Berlin"));
    assertThat(
        withModel("    window: 1d\n    time_zone: Berlin\n").problems().get(0),
        containsString("did you mean 'Europe/Berlin'?"));
  }

  /**
   * An abbreviation is not a zone, and the zone nearest it by spelling is usually hours away (PST
   * is not CET): the refusal says it is an abbreviation and names the regions it is used for.
   */
  @Test
  void anAbbreviationIsNamedAsOneWithItsRegionsNeverAZoneNearItsSpelling() throws Exception {
    assertThat(
        withModel("    window: 1d\n    time_zone: PST\n").problems(),
        contains(
            "streamform.yml:5: model 'customer_metrics', key 'time_zone': 'PST' is a time zone"
                + " abbreviation, not a zone: a local day follows its region's clock changes,"
                + " which an abbreviation does not name — write the region's IANA name, e.g."
                + " time_zone: America/Los_Angeles (US Pacific)"));
    String[][] cases = {
      {"PST", "America/Los_Angeles"},
      {"EST", "America/New_York"},
      {"CST", "America/Chicago"},
      {"MST", "America/Denver"},
      {"HST", "Pacific/Honolulu"},
      {"BST", "Europe/London"},
      {"IST", "Asia/Kolkata"},
      {"CEST", "Europe/Berlin"},
      {"pdt", "America/Los_Angeles"},
    };
    for (String[] c : cases) {
      String problem = withModel("    window: 1d\n    time_zone: " + c[0] + "\n").problems().get(0);
      assertThat(problem, containsString("'" + c[0] + "' is a time zone abbreviation, not a zone"));
      assertThat(problem, containsString("time_zone: " + c[1]));
      assertThat(problem, not(containsString("did you mean")));
    }
    // abbreviations used for more than one region name each of them
    String ist = withModel("    window: 1d\n    time_zone: IST\n").problems().get(0);
    assertThat(ist, containsString("Asia/Kolkata (India)"));
    assertThat(ist, containsString("Europe/Dublin (Ireland)"));
    assertThat(ist, containsString("Asia/Jerusalem (Israel)"));
    // a short upper-case name that is no abbreviation gets no guess by spelling either
    for (String unknown : new String[] {"XST", "ABCDE", "QQ"}) {
      String problem =
          withModel("    window: 1d\n    time_zone: " + unknown + "\n").problems().get(0);
      assertThat(
          problem,
          containsString(
              "'"
                  + unknown
                  + "' is not an IANA time zone name — write one, e.g. time_zone: Europe/Berlin,"
                  + " America/New_York or UTC"));
    }
    // zones named by letters are zones: accepted as they are
    for (String zone : new String[] {"CET", "EET", "UTC", "GMT"}) {
      assertThat(
          zone,
          loaded("    window: 1d\n    time_zone: " + zone + "\n").window().get().zoneOrUtc(),
          is(ZoneId.of(zone)));
    }
    // a misspelt region is still a typo with its suggestion, in any case
    assertThat(
        withModel("    window: 1d\n    time_zone: europe/berln\n").problems().get(0),
        containsString("did you mean 'Europe/Berlin'?"));
    assertThat(
        withModel("    window: 1d\n    time_zone: cet\n").problems().get(0),
        containsString("did you mean 'CET'?"));
  }

  @Test
  void aFixedOffsetIsRefusedAsNoZoneAndNothingFarIsSuggested() {
    for (String offset : new String[] {"Z", "+02:00", "UTC+2", "GMT-5", "-0500"}) {
      String problem =
          withModel("    window: 1d\n    time_zone: \"" + offset + "\"\n").problems().get(0);
      assertThat(
          problem,
          containsString(
              "'"
                  + offset
                  + "' is a fixed offset from UTC, not a time zone: a local day follows its"
                  + " region's clock changes — write the region's IANA name, e.g. time_zone:"
                  + " Europe/Berlin, or time_zone: UTC"));
    }
    for (String far : new String[] {"5", "Atlantis/Poseidonis"}) {
      String problem =
          withModel("    window: 1d\n    time_zone: \"" + far + "\"\n").problems().get(0);
      assertThat(
          problem,
          containsString(
              "'"
                  + far
                  + "' is not an IANA time zone name — write one, e.g. time_zone: Europe/Berlin,"
                  + " America/New_York or UTC"));
    }
  }

  @Test
  void aZoneOnAFixedWindowNeverMovesItAndOffsetsOffItsBoundariesAreWarnedAbout() throws Exception {
    // §6.24: a fixed window stays epoch-aligned whatever the zone, so no zone is refused
    Project p = withModel("    window: 1h\n    time_zone: Asia/Kolkata\n").load(); // no problem
    assertThat(p.warnings(), hasSize(1));
    String warning = p.warnings().get(0).toString();
    assertThat(
        warning,
        containsString(
            "streamform.yml:5: model 'customer_metrics', key"
                + " 'time_zone': Asia/Kolkata has the offset +05:30, not a whole multiple of 1h"));
    assertThat(warning, containsString("Asia/Kathmandu (+05:45)"));
    assertThat(warning, containsString("this is allowed"));
    assertThat(warning, containsString("(e.g. window: 30m)"));
    WindowSpec hour = p.models().get("customer_metrics").window().get();
    assertThat(hour.timeZone(), is(Optional.of(ZoneId.of("Asia/Kolkata"))));
    assertThat(
        hour.startsContaining(Instant.parse("2026-10-25T12:34:00Z")),
        contains(Instant.parse("2026-10-25T12:00:00Z")));
    assertThat(
        withModel("    window: 1h\n    time_zone: Europe/Berlin\n").load().warnings(), is(empty()));
    assertThat(
        loaded("    window: 15m\n    time_zone: Asia/Kathmandu\n").window().get().timeZone(),
        is(Optional.of(ZoneId.of("Asia/Kathmandu"))));
    WindowSpec berlin = loaded("    window: 1h\n    time_zone: Europe/Berlin\n").window().get();
    // the zone labels, it never moves a fixed window (§6.24)
    assertThat(
        berlin.startsContaining(Instant.parse("2026-10-25T12:34:00Z")),
        contains(Instant.parse("2026-10-25T12:00:00Z")));
    assertThat(berlin.size(), is(Duration.ofHours(1)));
  }

  @Test
  void weekStartsAndTimeZoneNeedTheRightWindow() {
    assertThat(
        withModel("    window: 1d\n    week_starts: sunday\n").problems().get(0),
        containsString(
            "key 'week_starts': week_starts applies to weekly windows only (window: 1w)"));
    assertThat(
        withModel("    window: 1w\n    week_starts: sundy\n").problems().get(0),
        containsString("'sundy' is not a day of the week"));
    assertThat(
        withModel("    time_zone: Europe/Berlin\n").problems().get(0),
        containsString("key 'time_zone': time_zone applies to windowed models only"));
  }

  /** The refusal describes the window as declared, with its zone, not as if none were. */
  @Test
  void aMisplacedWeekStartsNamesTheWindowWithItsDeclaredZone() {
    List<String> problems =
        withModel("    window: 1mo\n    time_zone: Europe/Berlin\n    week_starts: saturday\n")
            .problems();
    assertThat(problems.toString(), problems.size(), is(1));
    assertThat(
        problems.get(0),
        containsString(
            "week_starts applies to weekly windows only (window: 1w), not to calendar month in"
                + " Europe/Berlin — "));
  }

  @Test
  void aMonthWithLatenessLongerThanAMonthIsAllowedButWarnedAbout() throws Exception {
    Project p =
        withModel("    window: 1mo\n    time_zone: Europe/Berlin\n    allowed_lateness: 40d\n")
            .load();
    assertThat(p.models().get("customer_metrics").allowedLateness(), is(Duration.ofDays(40)));
    assertThat(p.warnings(), hasSize(1));
    assertThat(
        p.warnings().get(0).toString(),
        containsString(
            "streamform.yml:6: model 'customer_metrics', key 'allowed_lateness': allowed_lateness"
                + " 40d is longer than a month"));
    assertThat(
        withModel("    window: 1mo\n    allowed_lateness: 7d\n").load().warnings(), is(empty()));
  }

  @Test
  void aFixtureRowMayGiveWindowLocalAndItMustBeTheLocalDateOfItsStart() throws Exception {
    String row =
        "  - { window_start: \"2026-10-24T22:00:00Z\", window_end: \"2026-10-25T23:00:00Z\","
            + " window_local: %s, customer_id: 1, total_spend: 10, revision: 1, status: on_time"
            + " }\n";
    ProjectFolder p = withModel("    window: 1d\n    time_zone: Europe/Berlin\n");
    String fixture =
        "model: customer_metrics\ngiven:\n  - event: { customer_id: 1, amount: 10,"
            + " ordered_at: \"2026-10-25T10:00:00Z\" }\nexpect:\n";
    p.write("fixtures/ok.yml", fixture + String.format(row, "2026-10-25"));
    Project project = p.load();
    Fixture.load(project, dir.resolve("fixtures/ok.yml"));
    p.write("fixtures/bad.yml", fixture + String.format(row, "2026-10-24"));
    InvalidProjectException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            InvalidProjectException.class,
            () -> Fixture.load(project, dir.resolve("fixtures/bad.yml")));
    assertThat(
        e.problems().get(0).toString(),
        containsString(
            "fixtures/bad.yml:5: expect row 1, key 'window_local': '2026-10-24' is not the local"
                + " date of window_start in Europe/Berlin"));
    assertThat(e.problems().get(0).toString(), containsString("write window_local: 2026-10-25"));
  }

  @Test
  void aMonthsWindowLocalWrittenAsItsFirstDayIsSaidToBeTheWrongForm() throws Exception {
    ProjectFolder p = withModel("    window: 1mo\n    time_zone: Europe/Berlin\n");
    p.write(
        "fixtures/month.yml",
        "model: customer_metrics\ngiven:\n  - event: { customer_id: 1, amount: 10,"
            + " ordered_at: \"2026-03-10T10:00:00Z\" }\nexpect:\n"
            + "  - { window_start: \"2026-02-28T23:00:00Z\", window_end: \"2026-03-31T22:00:00Z\","
            + " window_local: \"2026-03-01\", customer_id: 1, total_spend: 10, revision: 1,"
            + " status: on_time }\n");
    Project project = p.load();
    InvalidProjectException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            InvalidProjectException.class,
            () -> Fixture.load(project, dir.resolve("fixtures/month.yml")));
    assertThat(
        e.problems().get(0).toString(),
        containsString(
            "'2026-03-01' is the local date of window_start, but a month's window_local is the"
                + " month, YYYY-MM, in Europe/Berlin"));
    assertThat(e.problems().get(0).toString(), containsString("write window_local: 2026-03"));
  }
}
