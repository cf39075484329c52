package dev.streamform.policies.time;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.util.Date;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TimestampsTest {
  private static final Instant TEN = Instant.parse("2026-08-30T10:00:00Z");

  @ParameterizedTest
  @ValueSource(
      strings = {
        "2026-08-30T10:00:00Z",
        "2026-08-30T10:00:00.000Z",
        "2026-08-30t10:00:00z",
        "2026-08-30T12:00:00+02:00",
        "2026-08-30T05:30:00-04:30",
        "1788084000000",
        " 2026-08-30T10:00:00Z "
      })
  void readsRfc3339InstantsAndEpochMillis(String text) {
    assertThat(Timestamps.parse(text), is(TEN));
  }

  @Test
  void readsAFractionToTheMillisecond() {
    assertThat(Timestamps.parse("2026-08-30T10:00:00.123Z"), is(TEN.plusMillis(123)));
    // digits past the millisecond that are all zeros say nothing finer
    assertThat(Timestamps.parse("2026-08-30T10:00:00.123000Z"), is(TEN.plusMillis(123)));
    assertThat(Timestamps.parse("2026-08-30T10:00:00.000000000Z"), is(TEN));
  }

  /**
   * Streamform's event time is Beam's, to the millisecond: a fixture's finer instant could never be
   * acknowledged as written, so it is refused with the millisecond to write (ADR 0090).
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "2026-08-30T10:00:00.0001Z",
        "2026-08-30T10:00:00.000100Z",
        "2026-08-30T10:00:00.000000001Z",
        "2026-08-30T12:00:00.0009+02:00"
      })
  void strictRefusesAFractionFinerThanAMillisecond(String text) {
    Timestamps.FinerThanAMillisecond e =
        assertThrows(Timestamps.FinerThanAMillisecond.class, () -> Timestamps.parse(text));
    assertThat(
        e.getMessage(),
        is(
            "'"
                + text
                + "' is finer than a millisecond: Streamform keeps event time to the millisecond"
                + " (records read from files and Kafka are floored to it)"));
    assertThat(e.millisecond(), is("2026-08-30T10:00:00.000Z"));
    assertThat(e.fix("ordered_at"), is("write ordered_at: \"2026-08-30T10:00:00.000Z\""));
  }

  @Test
  void strictRefusesAJavaInstantFinerThanAMillisecond() {
    assertThrows(Timestamps.FinerThanAMillisecond.class, () -> Timestamps.parse(TEN.plusNanos(1)));
  }

  @Test
  void lenientFloorsAFractionFinerThanAMillisecond() {
    assertThat(Timestamps.parseLenient("2026-08-30T10:00:00.0009Z"), is(TEN));
    assertThat(Timestamps.parseLenient("2026-08-30T10:00:00.123456"), is(TEN.plusMillis(123)));
    assertThat(
        Timestamps.parseLenient("1969-12-31T23:59:59.9995Z"),
        is(Instant.parse("1969-12-31T23:59:59.999Z")));
    // floored before the range check: the last millisecond's microseconds are in range
    assertThat(Timestamps.parseLenient("9999-12-31T23:59:59.9995Z"), is(Timestamps.MAX));
  }

  @Test
  void readsYamlNumbersAndDates() {
    assertThat(Timestamps.parse(1788084000000L), is(TEN));
    assertThat(Timestamps.parse(0), is(Instant.EPOCH));
    assertThat(Timestamps.parse(Date.from(TEN)), is(TEN));
  }

  @Test
  void refusesABareTimeOfDay() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Timestamps.parse("10:00:00"));
    assertThat(
        e.getMessage(),
        is(
            "'10:00:00' is a time of day without a date; give a full RFC 3339"
                + " instant such as 2026-08-30T10:00:00Z"));
  }

  /**
   * A timestamp in the right form whose fields cannot be (February 30, hour 25, an offset of 25
   * hours) says which field, as yaml.md promises ({@code is not a valid timestamp (<detail>)}), not
   * that it is no timestamp (found by a read-only audit of clocks).
   */
  @Test
  void saysWhichFieldOfAnImpossibleTimestampIsOutOfRange() {
    for (String[] c :
        new String[][] {
          {"2026-02-30T10:00:00Z", "Invalid date 'FEBRUARY 30'"},
          {"2026-08-30T25:00:00Z", "Invalid value for HourOfDay (valid values 0 - 23): 25"},
          {
            "2026-08-30T10:00:00+25:00",
            "Value out of range: Hour[0-23], Minute[0-59], Second[0-59]"
          },
        }) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> Timestamps.parse(c[0]), c[0]);
      assertThat(
          e.getMessage(),
          is(
              "'"
                  + c[0]
                  + "' is not a valid timestamp ("
                  + c[1]
                  + "); give an RFC 3339 instant such as 2026-08-30T10:00:00Z"));
    }
  }

  @Test
  void refusesADateAlone() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Timestamps.parse("2026-08-30"));
    assertThat(
        e.getMessage(),
        is(
            "'2026-08-30' is a date without a time; give a full RFC 3339"
                + " instant such as 2026-08-30T10:00:00Z"));
  }

  @Test
  void strictRefusesAMissingZone() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Timestamps.parse("2026-08-30T10:00:00"));
    assertThat(
        e.getMessage(),
        is(
            "'2026-08-30T10:00:00' has no time zone; give an RFC 3339 instant"
                + " such as 2026-08-30T10:00:00Z (add Z for UTC)"));
  }

  @Test
  void lenientReadsAMissingZoneAsUtc() {
    assertThat(Timestamps.parseLenient("2026-08-30T10:00:00"), is(TEN));
    assertThat(Timestamps.parseLenient("2026-08-30T10:00:00.5"), is(TEN.plusMillis(500)));
    assertThat(Timestamps.parseLenient("2026-08-30T10:00:00Z"), is(TEN));
    assertThrows(IllegalArgumentException.class, () -> Timestamps.parseLenient("10:00:00"));
  }

  @Test
  void refusesOtherValues() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Timestamps.parse("yesterday"));
    assertThat(
        e.getMessage(),
        is(
            "'yesterday' is not a timestamp; give an RFC 3339 instant such as"
                + " 2026-08-30T10:00:00Z or integer epoch milliseconds"));
    assertThrows(IllegalArgumentException.class, () -> Timestamps.parse("2026-13-45T10:00:00Z"));
    assertThrows(IllegalArgumentException.class, () -> Timestamps.parse(1.5));
    assertThrows(IllegalArgumentException.class, () -> Timestamps.parse(null));
  }

  @Test
  void formatsInUtc() {
    assertThat(Timestamps.format(TEN), is("2026-08-30T10:00:00Z"));
  }

  /**
   * A leap second (RFC 3339 allows second 60) is read as the last millisecond of the second before
   * it, which keeps it after every earlier instant and in the same minute, day and window (ADR
   * 0128); by fixtures, records (with or without a zone) and punctuations alike.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "2016-12-31T23:59:60Z",
        "2016-12-31T23:59:60.5Z",
        "2016-12-31T23:59:60.999999Z",
        "2017-01-01T00:59:60+01:00",
        "2016-12-31T18:29:60-05:30"
      })
  void aLeapSecondIsTheLastMillisecondOfTheSecondBeforeIt(String text) {
    Instant last = Instant.parse("2016-12-31T23:59:59.999Z");
    assertThat(Timestamps.parse(text), is(last));
    assertThat(Timestamps.parseLenient(text), is(last));
  }

  @Test
  void aLeapSecondWithoutAZoneIsReadInUtcByRecords() {
    assertThat(
        Timestamps.parseLenient("2016-12-31T23:59:60"),
        is(Instant.parse("2016-12-31T23:59:59.999Z")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"2016-12-31T10:00:60Z", "2016-12-31T23:59:60+01:00"})
  void secondSixtyElsewhereThanTheEndOfAUtcDayIsRefusedSayingWhy(String text) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Timestamps.parse(text));
    assertThat(
        e.getMessage(),
        is(
            "'"
                + text
                + "' is not a valid timestamp (second 60 is a leap second, which comes only at"
                + " 23:59:60 UTC, the end of a UTC day); give an RFC 3339 instant such as"
                + " 2026-08-30T10:00:00Z"));
  }
}
