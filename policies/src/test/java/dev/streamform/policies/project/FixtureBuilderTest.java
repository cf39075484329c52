package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A fixture built in Java refuses what a fixture file refuses at load, with the same kind of
 * message: what is wrong and what to pass instead (docs/decisions/0090).
 */
class FixtureBuilderTest {
  private static final Instant T = Instant.parse("2026-08-30T10:00:00Z");

  @Test
  void aWatermarkFinerThanAMillisecondIsRefusedNamingTheMillisecondToPass() {
    Fixture.Builder b =
        Fixture.builder("f", "m").event(0, Map.of("ordered_at", T)).event(0, Map.of());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> b.watermark(Optional.empty(), T.plusNanos(500_000)));
    assertThat(
        e.getMessage(),
        is(
            "fixture 'f', given item 3: watermark '2026-08-30T10:00:00.000500Z' is finer than a"
                + " millisecond: Streamform keeps event time to the millisecond (records read"
                + " from files and Kafka are floored to it) — pass"
                + " Instant.parse(\"2026-08-30T10:00:00.000Z\") (the instant truncated to"
                + " ChronoUnit.MILLIS)"));
    // the refused item was not added; a whole millisecond, and zeros past it, are accepted
    Fixture f =
        b.watermark(Optional.of(1), T.plusMillis(1))
            .watermark(Optional.empty(), Instant.parse("2026-08-30T10:00:00.002000Z"))
            .build();
    assertThat(f.given().size(), is(4));
  }

  @Test
  void anEventTimeFinerThanAMillisecondIsRefusedNamingTheMillisecondToPass() {
    // a fixture file refuses the value at its key ("event 2, key 'ordered_at': ... — write
    // ordered_at: ..."); the builder names the item, the event and the key the same way
    Fixture.Builder b = Fixture.builder("f", "m").event(0, Map.of("ordered_at", T));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> b.event(1, Map.of("amount", 5, "ordered_at", T.plusNanos(1_500_000))));
    assertThat(
        e.getMessage(),
        is(
            "fixture 'f', given item 2: event 2, key 'ordered_at': '2026-08-30T10:00:00.001500Z'"
                + " is finer than a millisecond: Streamform keeps event time to the millisecond"
                + " (records read from files and Kafka are floored to it) — pass"
                + " Instant.parse(\"2026-08-30T10:00:00.001Z\") (the instant truncated to"
                + " ChronoUnit.MILLIS)"));
    // the refused event was not added nor numbered; a whole millisecond, and zeros past it, are
    // accepted
    Fixture f =
        b.event(1, Map.of("ordered_at", T.plusMillis(1)))
            .event(0, Map.of("ordered_at", Instant.parse("2026-08-30T10:00:00.002000Z")))
            .build();
    assertThat(f.given().size(), is(3));
    assertThat(f.given().get(2).eventNumber(), is(3));
  }

  /**
   * An event's string that is not storable text is refused as a fixture file refuses it at its line
   * (docs/decisions/0105, 0093), naming the item, the event and the key; a surrogate pair is one
   * character and accepted.
   */
  @Test
  void aStringThatIsNotTextIsRefusedNamingTheKey() {
    Fixture.Builder b = Fixture.builder("f", "m").event(0, Map.of("note", "\ud83d\ude00"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> b.event(0, Map.of("note", "n\u0000")));
    assertThat(
        e.getMessage(),
        is(
            "fixture 'f', given item 2: event 2, key 'note': contains U+0000 (NUL) at character"
                + " 2, which no sink can store as text — remove U+0000 from note"));
    e = assertThrows(IllegalArgumentException.class, () -> b.event(0, Map.of("note", "\udfff")));
    assertThat(
        e.getMessage(),
        is(
            "fixture 'f', given item 2: event 2, key 'note': contains an unpaired UTF-16"
                + " surrogate (\\udfff) at character 1, which is not Unicode text — give note the"
                + " whole character (both halves of its surrogate pair, e.g. \\ud83d\\ude00) or"
                + " remove the half"));
    assertThat(b.build().given().size(), is(1));
  }
}
