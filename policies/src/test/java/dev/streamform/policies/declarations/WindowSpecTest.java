package dev.streamform.policies.declarations;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class WindowSpecTest {
  private static final Duration HOUR = Duration.ofHours(1);
  private static final Duration QUARTER = Duration.ofMinutes(15);

  private static Instant at(String text) {
    return Instant.parse(text);
  }

  @Test
  void tumblingWindowsAreOneSizeApartAndDoNotHop() {
    WindowSpec w = WindowSpec.tumbling(HOUR);
    assertThat(w.size(), is(HOUR));
    assertThat(w.every(), is(HOUR));
    assertThat(w.isHopping(), is(false));
    assertThat(w.yamlText(), is("1h"));
    assertThat(w.describe(), is("tumbling 1h"));
  }

  @Test
  void hoppingWindows() {
    WindowSpec w = WindowSpec.hopping(HOUR, QUARTER);
    assertThat(w.isHopping(), is(true));
    assertThat(w.yamlText(), is("{size: 1h, every: 15m}"));
    assertThat(w.describe(), is("hopping 1h every 15m"));
    assertThat(WindowSpec.hopping(HOUR, HOUR), is(WindowSpec.tumbling(HOUR)));
  }

  @Test
  void tumblingWindowsAreAlignedToTheEpochInUtc() {
    WindowSpec w = WindowSpec.tumbling(HOUR);
    assertThat(
        w.startsContaining(at("2026-08-30T10:59:59.999Z")), contains(at("2026-08-30T10:00:00Z")));
    assertThat(
        w.startsContaining(at("2026-08-30T11:00:00Z")), contains(at("2026-08-30T11:00:00Z")));
    assertThat(
        w.startsContaining(at("1969-12-31T23:30:00Z")), contains(at("1969-12-31T23:00:00Z")));
    assertThat(w.endOf(at("2026-08-30T10:00:00Z")), is(at("2026-08-30T11:00:00Z")));
  }

  @Test
  void anInstantIsInSizeOverEveryHoppingWindowsStartingAtMultiplesOfEvery() {
    WindowSpec w = WindowSpec.hopping(HOUR, QUARTER);
    assertThat(
        w.startsContaining(at("2026-08-30T10:20:00Z")),
        contains(
            at("2026-08-30T09:30:00Z"), at("2026-08-30T09:45:00Z"),
            at("2026-08-30T10:00:00Z"), at("2026-08-30T10:15:00Z")));
    assertThat(w.isStart(at("2026-08-30T10:15:00Z")), is(true));
    assertThat(w.isStart(at("2026-08-30T10:20:00Z")), is(false));
  }

  @Test
  void refusesWindowsThatLeaveGapsOrDoNotTile() {
    IllegalArgumentException longer =
        assertThrows(IllegalArgumentException.class, () -> WindowSpec.hopping(QUARTER, HOUR));
    assertThat(
        longer.getMessage(),
        is(
            "every (1h) is longer than the window's size (15m): events between windows would belong"
                + " to none"));
    IllegalArgumentException notMultiple =
        assertThrows(
            IllegalArgumentException.class, () -> WindowSpec.hopping(HOUR, Duration.ofMinutes(25)));
    assertThat(
        notMultiple.getMessage(), is("the window's size (1h) is not a multiple of every (25m)"));
    assertThrows(IllegalArgumentException.class, () -> WindowSpec.tumbling(Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> WindowSpec.tumbling(HOUR.negated()));
    assertThrows(IllegalArgumentException.class, () -> WindowSpec.tumbling(Duration.ofNanos(1)));
  }
}
