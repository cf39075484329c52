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
  void readsAFraction() {
    assertThat(Timestamps.parse("2026-08-30T10:00:00.123456Z"), is(TEN.plusNanos(123_456_000)));
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
}
