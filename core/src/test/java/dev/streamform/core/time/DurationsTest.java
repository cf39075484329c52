package dev.streamform.core.time;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

  @ParameterizedTest
  @CsvSource({
    "500ms, 500",
    "0s, 0",
    "10s, 10000",
    "5m, 300000",
    "2h, 7200000",
    "30d, 2592000000",
    "0ms, 0",
    "' 5m ', 300000"
  })
  void parses(String text, long millis) {
    assertThat(Durations.parse(text), is(Duration.ofMillis(millis)));
  }

  @ParameterizedTest
  @CsvSource({
    "0, 0s",
    "500, 500ms",
    "1500, 1500ms",
    "90000, 90s",
    "300000, 5m",
    "7200000, 2h",
    "2592000000, 30d",
    "5400000, 90m"
  })
  void formatsCanonically(long millis, String text) {
    assertThat(Durations.format(Duration.ofMillis(millis)), is(text));
    assertThat(Durations.parse(text), is(Duration.ofMillis(millis)));
  }

  /**
   * {@code 1d} as the whole of {@code window:} is a calendar day (ADR 0021), so a fixed day is
   * written back as {@code 24h}: its spelling can be pasted into {@code window:} and mean the same.
   * Other multiples of a day are never calendar units and keep {@code d}.
   */
  @Test
  void aFixedDayIsWritten24hAndOtherDaysKeepD() {
    assertThat(Durations.format(Duration.ofDays(1)), is("24h"));
    assertThat(Durations.format(Duration.ofHours(24)), is("24h"));
    assertThat(Durations.parse("24h"), is(Durations.parse("1d")));
    assertThat(Durations.format(Duration.ofDays(2)), is("2d"));
    assertThat(Durations.format(Duration.ofDays(7)), is("7d"));
    assertThat(Durations.format(Duration.ofHours(25)), is("25h"));
    assertThat(Durations.format(Duration.ofDays(1).plusMinutes(1)), is("1441m"));
  }

  @Test
  void refusalQuotesTheValueAndGivesExamples() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Durations.parse("5 minutes"));
    assertThat(
        e.getMessage(),
        is(
            "'5 minutes' is not a duration; write a whole number and a unit,"
                + " e.g. 500ms, 0s, 10s, 5m, 2h or 30d"));
  }

  @Test
  void aNumberNeedsAUnit() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Durations.parse("60"));
    assertThat(
        e.getMessage(),
        is(
            "'60' is not a duration (a number needs a unit); write a whole"
                + " number and a unit, e.g. 500ms, 0s, 10s, 5m, 2h or 30d"));
  }

  @Test
  void anUpperCaseUnitIsRefusedNotReadAsAnotherUnit() {
    // 1M could be a minute or a month (window: 1mo): neither is guessed
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Durations.parse("1M"));
    assertThat(
        e.getMessage(),
        is(
            "'1M' is not a duration (units are written in lower case: 1m is a minute, and a"
                + " calendar month window is window: 1mo); write a whole number and a unit, e.g."
                + " 500ms, 0s, 10s, 5m, 2h or 30d"));
    for (String upper : new String[] {"5S", "2H", "1D", "500MS", "10Ms"}) {
      IllegalArgumentException u =
          assertThrows(IllegalArgumentException.class, () -> Durations.parse(upper), upper);
      assertThat(u.getMessage(), containsString("units are written in lower case"));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "m", "1.5h", "-1s", "5w", "1h30m", "PT5M"})
  void refuses(String text) {
    assertThrows(IllegalArgumentException.class, () -> Durations.parse(text));
  }

  @Test
  void refusesOverflow() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Durations.parse("99999999999999999999d"));
    assertThat(
        e.getMessage(),
        is("'99999999999999999999d' is too long a duration: the longest is 36500d (100 years)"));
  }
}
