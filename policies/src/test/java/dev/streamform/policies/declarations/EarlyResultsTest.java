package dev.streamform.policies.declarations;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EarlyResultsTest {

  @Test
  void none() {
    EarlyResults none = EarlyResults.parse("none");
    assertThat(none, is(EarlyResults.none()));
    assertThat(none.kind(), is(EarlyResults.Kind.NONE));
    assertThat(none.isNone(), is(true));
    assertThat(none.yamlText(), is("none"));
    assertThrows(IllegalStateException.class, none::everyEvents);
    assertThrows(IllegalStateException.class, none::everyInterval);
  }

  @Test
  void everyNEvents() {
    EarlyResults e = EarlyResults.parse("every 100 events");
    assertThat(e.kind(), is(EarlyResults.Kind.EVERY_EVENTS));
    assertThat(e.everyEvents(), is(100));
    assertThat(e.yamlText(), is("every 100 events"));
    assertThat(EarlyResults.parse("  Every  1 event ").everyEvents(), is(1));
    assertThat(EarlyResults.parse("every 1 events").yamlText(), is("every 1 event"));
    assertThrows(IllegalStateException.class, e::everyInterval);
  }

  @Test
  void everyProcessingTimeInterval() {
    EarlyResults e = EarlyResults.parse("every 60s");
    assertThat(e.kind(), is(EarlyResults.Kind.EVERY_INTERVAL));
    assertThat(e.everyInterval(), is(Duration.ofMinutes(1)));
    assertThat(e.yamlText(), is("every 1m"));
    assertThrows(IllegalStateException.class, e::everyEvents);
  }

  @ParameterizedTest
  @CsvSource({"none", "every 3 events", "every 1 event", "every 30s", "every 2h"})
  void yamlTextReadsBack(String text) {
    assertThat(
        EarlyResults.parse(EarlyResults.parse(text).yamlText()), is(EarlyResults.parse(text)));
    assertThat(EarlyResults.parse(text).yamlText(), is(text));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "every 0 events | 'every 0 events': N must be a whole number from 1",
        "every -1 events | 'every -1 events': N must be a whole number from 1",
        "every 1.5 events | 'every 1.5 events': N must be a whole number from 1",
        "every 3 | 'every 3' says neither events nor a unit of time; write every 3 events or every"
            + " 3s",
        "every 3 evnts | 'every 3 evnts' is not none, every N events (N a whole number from 1) or"
            + " every <duration> (did you mean every 3 events?)",
        "every 3 event | 'every 3 event' is not none, every N events (N a whole number from 1) or"
            + " every <duration> (did you mean every 3 events?)",
        "every 5 m | 'every 5 m' is not none, every N events (N a whole number from 1) or every"
            + " <duration> (did you mean every 5m?)",
        "every 0s | 'every 0s': the interval must be longer than 0s",
        "sometimes | 'sometimes' is not none, every N events (N a whole number from 1) or every"
            + " <duration>",
        "every | 'every' is not none, every N events (N a whole number from 1) or every <duration>"
      })
  void refuses(String text, String message) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> EarlyResults.parse(text));
    assertThat(e.getMessage(), is(message));
  }

  @Test
  void refusesAnEmptyIntervalOrCountInCode() {
    assertThrows(IllegalArgumentException.class, () -> EarlyResults.everyEvents(0));
    assertThrows(IllegalArgumentException.class, () -> EarlyResults.everyInterval(Duration.ZERO));
  }
}
