package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import dev.streamform.policies.declarations.EarlyResults;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.WindowSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each rule of a windowed model (docs/semantics.md §6) in {@code streamform.yml}, and the message
 * it gives.
 */
class WindowedModelRulesTest {
  @TempDir Path dir;

  private static final String CALENDAR_TOO =
      " (or 1d, 1w or 1mo for calendar days, weeks or months in time_zone)";

  private static final String BAD_DURATION =
      " is not a duration; write a whole number and a unit,"
          + " e.g. 500ms, 0s, 10s, 5m, 2h or 30d";

  /** The seed's model with {@code keys} from line 4. */
  private ProjectFolder withModel(String keys) {
    return ProjectFolder.seed(dir)
        .models("models:\n  customer_metrics:\n    key: [customer_id]\n" + keys);
  }

  private ModelDeclaration loaded(String keys) throws Exception {
    return withModel(keys).load().models().get("customer_metrics");
  }

  @Test
  void aTumblingWindowedModelLoadsWithItsDefaults() throws Exception {
    ModelDeclaration m = loaded("    window: 1h\n");
    assertThat(m.windowed(), is(true));
    assertThat(m.window(), is(Optional.of(WindowSpec.tumbling(Duration.ofHours(1)))));
    assertThat(m.allowedLateness(), is(Duration.ZERO));
    assertThat(m.earlyResults(), is(EarlyResults.none()));
    assertThat(m.generation(), is(1));
    assertThat(m.retention(), is(Optional.empty()));
  }

  @Test
  void aHoppingWindowedModelLoadsWithEveryKey() throws Exception {
    ModelDeclaration m =
        loaded(
            "    window: {size: 1h, every: 15m}\n    allowed_lateness: 10m\n"
                + "    early_results: every 3 events\n    generation: 2\n");
    assertThat(
        m.window(),
        is(Optional.of(WindowSpec.hopping(Duration.ofHours(1), Duration.ofMinutes(15)))));
    assertThat(m.allowedLateness(), is(Duration.ofMinutes(10)));
    assertThat(m.earlyResults().everyEvents(), is(3));
    assertThat(m.generation(), is(2));
  }

  @Test
  void aBlockWindowMapWithoutEveryIsTumbling() throws Exception {
    ModelDeclaration m = loaded("    window:\n      size: 2h\n    early_results: every 30s\n");
    assertThat(m.window(), is(Optional.of(WindowSpec.tumbling(Duration.ofHours(2)))));
    assertThat(m.earlyResults().everyInterval(), is(Duration.ofSeconds(30)));
  }

  @Test
  void anUpsertModelIsNotWindowedAndMayNameItsGeneration() throws Exception {
    ModelDeclaration m = loaded("    generation: 3\n");
    assertThat(m.windowed(), is(false));
    assertThat(m.generation(), is(3));
    assertThat(m.allowedLateness(), is(Duration.ZERO));
  }

  @Test
  void windowNeedsAnEventTimeSourceUpstream() {
    ProjectFolder project =
        withModel("    window: 1h\n")
            .sources(
                ProjectFolder.SOURCES.replace(
                    "    event_time: ordered_at\n    watermark: 5m\n    late_events: drop\n", ""));
    assertThat(
        project.problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window': window needs an event-time"
                + " source upstream; source 'orders' has no event_time, so there is no clock to"
                + " measure it by — add event_time: <timestamp column> to source 'orders' in"
                + " sources.yml, or remove window"));
  }

  @Test
  void earlyResultsNeedsAWindow() {
    assertThat(
        withModel("    early_results: every 3 events\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'early_results': early_results applies"
                + " to windowed models only — add window: <duration> or remove early_results"));
  }

  @Test
  void aWindowedModelHasNoRetention() {
    assertThat(
        withModel("    window: 1h\n    retention: 30d\n").problems(),
        contains(
            "streamform.yml:5: model 'customer_metrics', key 'retention': a windowed model has no"
                + " retention: a window's state lives until the window is final (its end +"
                + " allowed_lateness) — remove retention, and give allowed_lateness: <duration> to"
                + " say how long corrections are accepted"));
  }

  @Test
  void aHoppingSizeMustBeAMultipleOfEvery() {
    assertThat(
        withModel("    window: {size: 1h, every: 25m}\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window.every': the window's size (1h)"
                + " is not a multiple of every (25m) — make the size a multiple of every, e.g."
                + " window: {size: 50m, every: 25m}"));
  }

  @Test
  void everyMustNotBeLongerThanTheSize() {
    assertThat(
        withModel("    window: {size: 15m, every: 1h}\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window.every': every (1h) is longer"
                + " than the window's size (15m): events between windows would belong to none —"
                + " make every at most the size, e.g. window: {size: 1h, every: 15m}, or write"
                + " window: 15m for tumbling windows"));
  }

  @Test
  void calendarWeeksAndMonthsDoNotHop() {
    assertThat(
        withModel("    window: {size: 1w, every: 1d}\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window.size': 1w is a calendar week,"
                + " and calendar windows do not hop — write window: 1w for calendar weeks (with"
                + " time_zone and week_starts), or a fixed size, e.g. window: {size: 7d, every:"
                + " 24h}"));
    assertThat(
        withModel("    window:\n      size: 1mo\n      every: 1w\n").problems(),
        contains(
            "streamform.yml:5: model 'customer_metrics', key 'window.size': 1mo is a calendar"
                + " month, and calendar windows do not hop — write window: 1mo for calendar months"
                + " (with time_zone), or a fixed size, e.g. window: {size: 30d, every: 24h}",
            "streamform.yml:6: model 'customer_metrics', key 'window.every': 1w is a calendar week,"
                + " and calendar windows do not hop — write window: 1w for calendar weeks (with"
                + " time_zone and week_starts), or a fixed every, e.g. every: 7d"));
  }

  @Test
  void aCalendarWeekOrMonthAsTheSizeAloneNamesTheCalendarWindowNotAHop() throws Exception {
    // no every, or every equal to the size: tumbling, so the message must not speak of hopping
    assertThat(
        withModel("    window: {size: 1mo}\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window.size': 1mo is a calendar"
                + " month, not a duration: size and every are fixed durations, and calendar months"
                + " are declared as the whole value, window: 1mo — write"
                + " window: 1mo for calendar months (with time_zone), or a fixed size, e.g."
                + " window: {size: 30d}"));
    assertThat(
        withModel("    window:\n      size: 1w\n      every: 1w\n").problems(),
        contains(
            "streamform.yml:5: model 'customer_metrics', key 'window.size': 1w is a calendar week,"
                + " not a duration: size and every are fixed durations, and calendar weeks are"
                + " declared as the whole value, window: 1w — write window:"
                + " 1w for calendar weeks (with time_zone and week_starts), or a fixed size, e.g."
                + " window: {size: 7d}"));
    // a calendar every under a fixed size: the windows are fixed, only every is wrong
    assertThat(
        withModel("    window: {size: 30d, every: 1mo}\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window.every': 1mo is a calendar"
                + " month, not a duration: fixed windows start every fixed interval from the epoch"
                + " — write a fixed every, e.g. every: 30d, or window: 1mo for calendar months"
                + " (with time_zone)"));
    // 1d is also 24 hours: {size: 1d} is a fixed day, as {size: 1d, every: 1h} is (ADR 0021)
    assertThat(
        loaded("    window: {size: 1d}\n").window(),
        is(Optional.of(WindowSpec.tumbling(Duration.ofDays(1)))));
  }

  @Test
  void aWrongCaseCalendarWindowIsToldItsLowerCaseSpelling() throws Exception {
    // ADR 0083: units are lower case, and a wrong-case spelling is given the one meant; 1mo and
    // 1w are not durations, so the duration's own hint never named them
    assertThat(
        withModel("    window: 1Mo\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window': '1Mo' is not a window"
                + " (units are written in lower case: write 1mo) — write window: 1mo for calendar"
                + " months (with time_zone)"));
    assertThat(
        withModel("    window: 1MO\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window': '1MO' is not a window"
                + " (units are written in lower case: write 1mo) — write window: 1mo for calendar"
                + " months (with time_zone)"));
    assertThat(
        withModel("    window: 1W\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window': '1W' is not a window"
                + " (units are written in lower case: write 1w) — write window: 1w for calendar"
                + " weeks (with time_zone and week_starts)"));
    // the spelling meant loads
    assertThat(loaded("    window: 1mo\n").window().get().calendarUnit().isPresent(), is(true));
  }

  @Test
  void aWrongCaseCalendarSizeOrEveryInTheMapFormIsToldItsLowerCaseSpellingToo() throws Exception {
    // the map form got only "not a duration"; it is given the scalar form's hint, then what the
    // lower-case spelling would be told (a calendar unit is the whole value of window:)
    assertThat(
        withModel("    window: {size: 1Mo}\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window.size': '1Mo' (units are"
                + " written in lower case: write 1mo) is a calendar month, not a duration: size"
                + " and every are fixed durations, and calendar months are declared as the whole"
                + " value, window: 1mo — write window: 1mo for calendar months (with time_zone),"
                + " or a fixed size, e.g. window: {size: 30d}"));
    assertThat(
        withModel("    window: {size: 30d, every: 1W}\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window.every': '1W' (units are"
                + " written in lower case: write 1w) is a calendar week, not a duration: fixed"
                + " windows start every fixed interval from the epoch — write a fixed every, e.g."
                + " every: 7d, or window: 1w for calendar weeks (with time_zone and"
                + " week_starts)"));
    assertThat(
        withModel("    window: {size: 1MO, every: 15m}\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window.size': '1MO' (units are"
                + " written in lower case: write 1mo) is a calendar month, and calendar windows do"
                + " not hop — write window: 1mo for calendar months (with time_zone), or a fixed"
                + " size, e.g. window: {size: 30d, every: 15m}"));
    // a wrong-case duration keeps the duration's own hint (1D is also 24 hours)
    assertThat(
        withModel("    window: {size: 1D}\n").problems().toString(),
        containsString("(units are written in lower case: write 1d)"));
  }

  @Test
  void aCalendarSizeThatHopsKeepsItsOwnEveryInTheFixWhenAFixedSizeAllowsIt() throws Exception {
    assertThat(
        withModel("    window: {size: 1mo, every: 15m}\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window.size': 1mo is a calendar"
                + " month, and calendar windows do not hop — write window: 1mo for calendar months"
                + " (with time_zone), or a fixed size, e.g. window: {size: 30d, every: 15m}"));
    // the fix offered is itself accepted
    assertThat(
        loaded("    window: {size: 30d, every: 15m}\n").window(),
        is(Optional.of(WindowSpec.hopping(Duration.ofDays(30), Duration.ofMinutes(15)))));
    assertThat(
        withModel("    window: {size: 1w, every: 12h}\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window.size': 1w is a calendar week,"
                + " and calendar windows do not hop — write window: 1w for calendar weeks (with"
                + " time_zone and week_starts), or a fixed size, e.g. window: {size: 7d, every:"
                + " 12h}"));
    // an every the fixed size would refuse (not dividing 7d; longer than 7d; 10,080 windows an
    // event, past the most) is not offered: a day (24h) is, which each allows
    for (String every : new String[] {"5h", "10d", "1m"}) {
      assertThat(
          every,
          withModel("    window: {size: 1w, every: " + every + "}\n").problems(),
          contains(
              "streamform.yml:4: model 'customer_metrics', key 'window.size': 1w is a calendar"
                  + " week, and calendar windows do not hop — write window: 1w for calendar weeks"
                  + " (with time_zone and week_starts), or a fixed size, e.g. window: {size: 7d,"
                  + " every: 24h}"));
    }
  }

  @Test
  void aWindowCannotBeEmpty() {
    assertThat(
        withModel("    window: 0s\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window': a window cannot be 0s long"
                + " — give the window's size, e.g. window: 1h"));
  }

  @Test
  void aHoppingWindowsSizeAndEveryCannotBeEmpty() {
    assertThat(
        withModel("    window:\n      size: 0s\n      every: 0ms\n").problems(),
        contains(
            "streamform.yml:5: model 'customer_metrics', key 'window.size': a window's size cannot"
                + " be 0s — give the window's size, e.g. window: {size: 1h, every: 15m}",
            "streamform.yml:6: model 'customer_metrics', key 'window.every': a window's every"
                + " cannot be 0s — give how far apart windows start, e.g. every: 15m, or remove"
                + " every for tumbling windows"));
  }

  @Test
  void aNegativeWindow() {
    assertThat(
        withModel("    window: -1h\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window': bad duration: '-1h' is not a"
                + " duration (a duration cannot be negative); write a whole number and a unit, e.g."
                + " 500ms, 0s, 10s, 5m, 2h or 30d — e.g. window: 1h"
                + CALENDAR_TOO));
  }

  @Test
  void aMalformedWindow() {
    assertThat(
        withModel("    window: 1 hour\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window': bad duration: '1 hour'"
                + BAD_DURATION
                + " — e.g. window: 1h"
                + CALENDAR_TOO));
  }

  @Test
  void aMalformedHoppingEvery() {
    assertThat(
        withModel("    window: {size: 1h, every: quarter}\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window.every': bad duration:"
                + " 'quarter'"
                + BAD_DURATION
                + " — e.g. every: 15m"));
  }

  @Test
  void aMalformedAllowedLateness() {
    assertThat(
        withModel("    window: 1h\n    allowed_lateness: -10m\n").problems(),
        contains(
            "streamform.yml:5: model 'customer_metrics', key 'allowed_lateness': bad duration:"
                + " '-10m' is not a duration (a duration cannot be negative); write a whole number"
                + " and a unit, e.g. 500ms, 0s, 10s, 5m, 2h or 30d — e.g. allowed_lateness: 10m"));
  }

  @Test
  void aWindowMapNeedsItsSize() {
    assertThat(
        withModel("    window: {every: 15m}\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window.size': required key is missing"
                + " — give the window's size, e.g. window: {size: 1h, every: 15m}"));
  }

  @Test
  void unknownKeyInTheWindowMap() {
    assertThat(
        withModel("    window:\n      size: 1h\n      evry: 15m\n").problems(),
        contains(
            "streamform.yml:6: model 'customer_metrics', key 'window.evry': unknown key — did you"
                + " mean 'every'? (known keys: size, every)"));
  }

  @Test
  void aWindowIsADurationOrAMap() {
    assertThat(
        withModel("    window: [1h, 15m]\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window': expected a single value, got"
                + " a list — write window: 1h"));
  }

  private static final String EARLY_FIX =
      " — write early_results: none, early_results: every 100"
          + " events or early_results: every 1m";

  @Test
  void earlyResultsEveryZeroEvents() {
    assertThat(
        withModel("    window: 1h\n    early_results: every 0 events\n").problems(),
        contains(
            "streamform.yml:5: model 'customer_metrics', key 'early_results': 'every 0 events': N"
                + " must be a whole number from 1"
                + EARLY_FIX));
  }

  @Test
  void earlyResultsWithoutAUnit() {
    assertThat(
        withModel("    window: 1h\n    early_results: every 3\n").problems(),
        contains(
            "streamform.yml:5: model 'customer_metrics', key 'early_results': 'every 3' says"
                + " neither events nor a unit of time; write every 3 events or every 3s"
                + EARLY_FIX));
  }

  @Test
  void earlyResultsMisspelt() {
    assertThat(
        withModel("    window: 1h\n    early_results: every 3 evnts\n").problems(),
        contains(
            "streamform.yml:5: model 'customer_metrics', key 'early_results': 'every 3 evnts' is"
                + " not none, every N events (N a whole number from 1) or every <duration> (did you"
                + " mean every 3 events?)"
                + EARLY_FIX));
  }

  @Test
  void earlyResultsUnknownWord() {
    assertThat(
        withModel("    window: 1h\n    early_results: sometimes\n").problems(),
        contains(
            "streamform.yml:5: model 'customer_metrics', key 'early_results': 'sometimes' is not"
                + " none, every N events (N a whole number from 1) or every <duration>"
                + EARLY_FIX));
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-1", "1.5", "two", "\"\""})
  void generationIsAPositiveWholeNumber(String generation) {
    String shown = generation.equals("\"\"") ? "" : generation;
    assertThat(
        withModel("    window: 1h\n    generation: " + generation + "\n").problems(),
        contains(
            "streamform.yml:5: model 'customer_metrics', key 'generation': '"
                + shown
                + "' is not a generation — write a whole number from 1, e.g. generation: 2 (the"
                + " default is 1)"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"early_result", "alowed_lateness", "generaton", "windows"})
  void misspeltWindowKeysSuggestTheRightOne(String misspelt) {
    String meant =
        misspelt.equals("windows")
            ? "window"
            : misspelt.equals("generaton")
                ? "generation"
                : misspelt.startsWith("early") ? "early_results" : "allowed_lateness";
    assertThat(
        withModel("    " + misspelt + ": 1h\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key '"
                + misspelt
                + "': unknown key — did you mean '"
                + meant
                + "'? (known keys: materialized, key, retention, window, allowed_lateness,"
                + " early_results, generation, topic, late_topic, quarantine_topic, effects,"
                + " decisions, time_zone, week_starts)"));
  }

  @Test
  void aWindowedQueryMustNotOutputWindowStart() {
    ProjectFolder project =
        withModel("    window: 1h\n")
            .sql(
                "customer_metrics",
                "SELECT customer_id,\n"
                    + "  MIN(ordered_at) AS window_start,\n"
                    + "  SUM(amount) AS total_spend\n"
                    + "FROM source('orders') GROUP BY customer_id\n");
    assertThat(
        project.problems(),
        contains(
            "models/customer_metrics.sql:2: model 'customer_metrics': the query outputs a column"
                + " named 'window_start', which a windowed model adds to every record itself"
                + " (window_start, window_end, window_local, status, revision, predecessor,"
                + " logical_window_id, projection_id, aggregate_digest, offsets, generation), so"
                + " its value would be lost — rename it in the query with AS <another name>, or"
                + " remove window from the model in streamform.yml"));
  }

  @Test
  void aWindowedQueryMustNotOutputWindowEnd() {
    ProjectFolder project =
        withModel("    window: 1h\n")
            .sql(
                "customer_metrics",
                "SELECT customer_id, MAX(ordered_at) AS Window_End FROM source('orders') GROUP BY"
                    + " customer_id\n");
    assertThat(
        project.problems(),
        contains(
            "models/customer_metrics.sql:1: model 'customer_metrics': the query outputs a column"
                + " named 'Window_End', which a windowed model adds to every record itself"
                + " (window_start, window_end, window_local, status, revision, predecessor,"
                + " logical_window_id, projection_id, aggregate_digest, offsets, generation), so"
                + " its value would be lost — rename it in the query with AS <another name>, or"
                + " remove window from the model in streamform.yml"));
  }

  @Test
  void anUpsertQueryMayOutputWindowStart() throws Exception {
    ProjectFolder project =
        withModel("")
            .sql(
                "customer_metrics",
                "SELECT customer_id, MIN(ordered_at) AS window_start FROM source('orders') GROUP BY"
                    + " customer_id\n");
    assertThat(project.load().models().get("customer_metrics").windowed(), is(false));
  }
}
