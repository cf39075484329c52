package dev.streamform.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.SourceClock;
import dev.streamform.transforms.decisions.ScoreEvents;
import dev.streamform.transforms.dedup.Deduplicate;
import dev.streamform.transforms.windows.WindowedAggregate;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The Java API's event-time durations are capped as declared ones are (36500 days, {@code
 * Durations.MAX}; docs/decisions/0212): a longer one, added to an event time in the accepted range,
 * would leave Beam's timestamps and stop the pipeline at its first timer, so it is refused where it
 * is given, with the call and the fix named.
 */
class DurationCapTest {
  private static final Duration MAX = Duration.standardDays(36_500);
  private static final Duration OVER = MAX.plus(Duration.millis(1));

  /** Each call that takes an event-time duration, by its name in the message. */
  private static Map<String, Function<Duration, Object>> calls() {
    Map<String, Function<Duration, Object>> calls = new LinkedHashMap<>();
    calls.put("SourceClock.forBoundedOutOfOrderness", SourceClock::forBoundedOutOfOrderness);
    calls.put(
        "withMaxClockSkew",
        d -> SourceClock.forBoundedOutOfOrderness(Duration.ZERO).withMaxClockSkew(d, null));
    calls.put(
        "withIdleness", d -> SourceClock.forBoundedOutOfOrderness(Duration.ZERO).withIdleness(d));
    calls.put("withRetention", d -> KeyedChangelog.by("k").withRetention(d));
    calls.put("Deduplicate.byId", d -> Deduplicate.byId("id", d));
    calls.put(
        "withAllowedLateness",
        d ->
            WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
                .withAllowedLateness(d));
    calls.put(
        "withEarlyResultsEvery",
        d ->
            WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
                .withEarlyResultsEvery(d));
    calls.put("over", d -> ScoreEvents.forModel("m").over(d));
    calls.put("withLateness", d -> ScoreEvents.forModel("m").withLateness(d));
    calls.put(
        "ScoreEvents.withMaxClockSkew", d -> ScoreEvents.forModel("m").withMaxClockSkew(d, null));
    return calls;
  }

  @Test
  void aDurationOverTheCapIsRefusedWhereItIsGiven() {
    calls()
        .forEach(
            (name, call) -> {
              IllegalArgumentException e =
                  assertThrows(
                      IllegalArgumentException.class, () -> call.apply(OVER), name + " took it");
              assertThat(name, e.getMessage(), containsString("longer than 36500d"));
            });
  }

  @Test
  void theCapItselfIsAccepted() {
    calls().forEach((name, call) -> assertDoesNotThrow(() -> call.apply(MAX), name));
  }
}
