package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.core.time.WindowStatus;
import dev.streamform.policies.declarations.WindowSpec;
import dev.streamform.policies.schema.ColumnType;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fixtures of a windowed model (docs/semantics.md §6): their rows, and the problems check reports
 * in them.
 */
class WindowedFixtureTest {
  @TempDir Path dir;

  private static final String WINDOWED =
      "models:\n"
          + "  customer_metrics:\n"
          + "    key: [customer_id]\n"
          + "    window: 1h\n"
          + "    allowed_lateness: 10m\n";

  private static final String HEAD =
      """
      model: customer_metrics
      given:
        - event: { customer_id: 42, amount: 10, ordered_at: "2026-08-30T10:00:00Z" }
      expect:
      """;

  private static final String ROW =
      "window_start: \"2026-08-30T10:00:00Z\", window_end: \"2026-08-30T11:00:00Z\","
          + " customer_id: 42, total_spend: 10";

  private static final Instant TEN = Instant.parse("2026-08-30T10:00:00Z");
  private static final Instant ELEVEN = Instant.parse("2026-08-30T11:00:00Z");
  private static final String HASH = "a".repeat(64);

  private Fixture load(String models, String fixture) throws Exception {
    Project project =
        ProjectFolder.seed(dir).models(models).write("fixtures/f.yml", fixture).load();
    return Fixture.load(project, dir.resolve("fixtures/f.yml"));
  }

  /**
   * The problems of {@code fixture} (one row after {@link #HEAD} is on line 5), as check prints
   * them.
   */
  private List<String> problems(String models, String fixture) throws Exception {
    Project project =
        ProjectFolder.seed(dir).models(models).write("fixtures/f.yml", fixture).load();
    InvalidProjectException e =
        assertThrows(
            InvalidProjectException.class,
            () -> Fixture.load(project, dir.resolve("fixtures/f.yml")));
    return e.problems().stream().map(Problem::toString).collect(Collectors.toList());
  }

  private List<String> problemsOfRow(String row) throws Exception {
    return problems(WINDOWED, HEAD + "  - { " + row + " }\n");
  }

  @Test
  void readsTheRowsOfAWindowedFixture() throws Exception {
    Fixture f =
        load(
            WINDOWED,
            HEAD
                + "  - { "
                + ROW
                + ", revision: 0, status: early }\n"
                + "  - { "
                + ROW
                + ", revision: 2, status: corrected, logical_window_id: "
                + HASH
                + ", projection_id: "
                + "b".repeat(64)
                + ", predecessor: 1, aggregate_digest: "
                + "c".repeat(64)
                + ", offsets: {0: {min: 0, max: 3, count: 2}, 1: {min: 5, max: 5, count: 1}} }\n"
                + "late:\n"
                + "  - { customer_id: 7, amount: 1, ordered_at: 1788080400000, window_start:"
                + " \"2026-08-30T09:00:00Z\" }\n");
    Fixture.Row early = f.expect().get(0);
    assertThat(early.line(), is(5));
    assertThat(early.windowStart(), is(Optional.of(TEN)));
    assertThat(early.windowEnd(), is(Optional.of(ELEVEN)));
    assertThat(
        early.values(), is(Map.of("customer_id", 42L, "total_spend", new BigDecimal("10.00"))));
    assertThat(List.copyOf(early.values().keySet()), contains("customer_id", "total_spend"));
    assertThat(early.revision(), is(Optional.of(0)));
    assertThat(early.status(), is(Optional.of(WindowStatus.EARLY)));
    assertThat(early.logicalWindowId(), is(Optional.empty()));
    assertThat(early.offsets(), is(Optional.empty()));

    Fixture.Row corrected = f.expect().get(1);
    assertThat(corrected.revision(), is(Optional.of(2)));
    assertThat(corrected.status(), is(Optional.of(WindowStatus.CORRECTED)));
    assertThat(corrected.logicalWindowId(), is(Optional.of(HASH)));
    assertThat(corrected.projectionId(), is(Optional.of("b".repeat(64))));
    assertThat(corrected.predecessor(), is(Optional.of(1)));
    assertThat(corrected.aggregateDigest(), is(Optional.of("c".repeat(64))));
    assertThat(
        corrected.offsets(),
        is(
            Optional.of(
                Map.of(0, Fixture.OffsetRange.of(0, 3, 2), 1, Fixture.OffsetRange.of(5, 5, 1)))));

    Fixture.Row late = f.late().get(0);
    assertThat(late.windowStart(), is(Optional.of(Instant.parse("2026-08-30T09:00:00Z"))));
    assertThat(
        late.values(),
        is(
            Map.of(
                "customer_id",
                7L,
                "amount",
                new BigDecimal("1.00"),
                "ordered_at",
                Instant.parse("2026-08-30T09:00:00Z"))));
    assertThat(late.revision(), is(Optional.empty()));
  }

  @Test
  void aJavaModelsFixtureIsWindowedWhenGivenAWindow() throws Exception {
    Project project =
        ProjectFolder.seed(dir)
            .write("fixtures/f.yml", HEAD + "  - { " + ROW + ", revision: 1, status: on_time }\n")
            .load();
    Fixture f =
        Fixture.load(
            dir.resolve("fixtures/f.yml"),
            project.sources().get("orders"),
            Map.of("customer_id", ColumnType.INT64, "total_spend", ColumnType.decimal(38, 2)),
            WindowSpec.tumbling(Duration.ofHours(1)));
    assertThat(f.expect().get(0).status(), is(Optional.of(WindowStatus.ON_TIME)));
    assertThat(f.expect().get(0).windowEnd(), is(Optional.of(ELEVEN)));
  }

  @Test
  void statusIsRequired() throws Exception {
    assertThat(
        problemsOfRow(ROW + ", revision: 1"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'status': required key is missing"
                + " — add status: early, on_time, corrected or final"));
  }

  @Test
  void statusIsOneOfFour() throws Exception {
    assertThat(
        problemsOfRow(ROW + ", revision: 1, status: ontime"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'status': 'ontime' is not early, on_time,"
                + " corrected or final — did you mean 'on_time'? write status: early, on_time,"
                + " corrected or final"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "1.5", "one", "true"})
  void revisionIsAWholeNumberFromZero(String revision) throws Exception {
    assertThat(
        problemsOfRow(ROW + ", revision: " + revision + ", status: corrected"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'revision': '"
                + revision
                + "' is not a whole number"
                + " from 0 — write a whole number from 0: 0 for an early preview, 1 for the first"
                + " revision, 2, ..."));
  }

  @Test
  void revisionIsRequired() throws Exception {
    assertThat(
        problemsOfRow(ROW + ", status: on_time"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'revision': required key is missing"
                + " — add revision: 0 for an early preview, 1 for the first revision, 2, ..."));
  }

  @Test
  void windowStartAndEndAreRequired() throws Exception {
    assertThat(
        problemsOfRow("customer_id: 42, total_spend: 10, revision: 1, status: on_time"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'window_start': required key is missing — add"
                + " window_start: \"2026-08-30T10:00:00Z\" (a timestamp), the start of the row's"
                + " window",
            "fixtures/f.yml:5: expect row 1, key 'window_end': required key is missing — add"
                + " window_end: \"2026-08-30T10:00:00Z\" (a timestamp), the end (exclusive) of the"
                + " row's window"));
  }

  @Test
  void aMissingWindowEndSuggestsWindowStartPlusTheSize() throws Exception {
    // the audit: the suggestion was window_start's own value, which check then refused
    assertThat(
        problemsOfRow(
            "window_start: \"2026-08-30T10:00:00Z\", customer_id: 42, total_spend: 10,"
                + " revision: 1, status: on_time"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'window_end': required key is missing — add"
                + " window_end: \"2026-08-30T11:00:00Z\" (window_start + 1h), the end (exclusive)"
                + " of the row's window"));
  }

  @Test
  void aMissingCalendarWindowEndSuggestsTheCalendarEnd() throws Exception {
    // 25 October 2026 in Berlin has 25 hours (summer time ends): the day starts at 22:00Z the day
    // before and ends at 23:00Z, not 22:00Z
    assertThat(
        problems(
            WINDOWED.replace("window: 1h", "window: 1d\n    time_zone: Europe/Berlin"),
            HEAD.replace("2026-08-30T10:00:00Z", "2026-10-25T10:00:00Z")
                + "  - { window_start: \"2026-10-24T22:00:00Z\", customer_id: 42,"
                + " total_spend: 10, revision: 1, status: on_time }\n"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'window_end': required key is missing — add"
                + " window_end: \"2026-10-25T23:00:00Z\" (the end of the window that starts at"
                + " window_start), the end (exclusive) of the row's window"));
  }

  @Test
  void opBelongsToUpsertModels() throws Exception {
    assertThat(
        problemsOfRow("op: insert, " + ROW + ", revision: 1, status: on_time"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'op': op belongs to fixtures of upsert models; a"
                + " row of windowed model 'customer_metrics' says its revision and status instead —"
                + " remove op and give revision: <0 for early, 1, 2, ...> and status: early,"
                + " on_time, corrected or final"));
  }

  @Test
  void windowStartIsATimestampWithADate() throws Exception {
    assertThat(
        problemsOfRow(
            ROW.replace("\"2026-08-30T10:00:00Z\"", "\"10:00:00\"")
                + ", revision: 1, status: on_time"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'window_start': '10:00:00' is a time of day"
                + " without a date; give a full RFC 3339 instant such as 2026-08-30T10:00:00Z —"
                + " give window_start a timestamp value"));
  }

  @Test
  void windowBoundsHaveAValue() throws Exception {
    assertThat(
        problemsOfRow(
            ROW.replace("\"2026-08-30T11:00:00Z\"", "~") + ", revision: 1, status: on_time"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'window_end': has no value — give the window's end"
                + " as a timestamp, e.g. window_end: \"2026-08-30T10:00:00Z\""));
  }

  @Test
  void windowStartIsTheStartOfAWindow() throws Exception {
    assertThat(
        problemsOfRow(
            "window_start: \"2026-08-30T10:30:00Z\", window_end: \"2026-08-30T11:30:00Z\","
                + " customer_id: 42, total_spend: 10, revision: 1, status: on_time"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'window_start': '2026-08-30T10:30:00Z' is not the"
                + " start of a window: model 'customer_metrics''s windows (tumbling 1h) start at"
                + " multiples of 1h from the epoch, UTC — write the start of a window, e.g."
                + " window_start: \"2026-08-30T10:00:00Z\""));
  }

  @Test
  void windowEndIsStartPlusSize() throws Exception {
    assertThat(
        problemsOfRow(ROW.replace("T11:00", "T10:59") + ", revision: 1, status: on_time"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'window_end': '2026-08-30T10:59:00Z' is not"
                + " window_start + 1h (the size of model 'customer_metrics''s windows) — write"
                + " window_end: \"2026-08-30T11:00:00Z\""));
  }

  @Test
  void anEarlyPreviewIsRevisionZero() throws Exception {
    assertThat(
        problemsOfRow(ROW + ", revision: 1, status: early"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'revision': status early has revision 0, not 1"
                + " — write revision: 0 (a preview is not a revision)"));
  }

  @Test
  void onTimeIsRevisionOne() throws Exception {
    assertThat(
        problemsOfRow(ROW + ", revision: 2, status: on_time"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'revision': status on_time has revision 1, not 2"
                + " — write revision: 1 (on_time is always the first revision)"));
  }

  @Test
  void everyOutputColumnIsGiven() throws Exception {
    assertThat(
        problemsOfRow(ROW.replace(", total_spend: 10", "") + ", revision: 1, status: on_time"),
        contains(
            "fixtures/f.yml:5: expect row 1: does not give `total_spend` — list every output column"
                + " of the model: window_start, window_end, customer_id, total_spend, revision,"
                + " status"));
  }

  @Test
  void unknownKeySuggestsTheClosest() throws Exception {
    assertThat(
        problemsOfRow(ROW + ", revison: 1, revision: 1, status: on_time"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'revison': unknown key — did you mean 'revision'?"
                + " (known keys: window_start, window_end, customer_id, total_spend, revision,"
                + " status, logical_window_id, projection_id, predecessor, aggregate_digest,"
                + " offsets)"));
  }

  @Test
  void identityDigestsAreSha256Hex() throws Exception {
    assertThat(
        problemsOfRow(ROW + ", revision: 1, status: on_time, logical_window_id: abc"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'logical_window_id': 'abc' is not a SHA-256 digest"
                + " (64 hex digits, 0-9 and a-f) — copy it from the output, or leave"
                + " logical_window_id out (identity fields are optional in fixtures)"));
  }

  @Test
  void predecessorIsAWholeNumberFromOne() throws Exception {
    assertThat(
        problemsOfRow(ROW + ", revision: 2, status: corrected, predecessor: 0"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'predecessor': '0' is not a whole number from 1"
                + " — write the revision this one replaces, a whole number from 1"));
  }

  @Test
  void offsetsAreAMinMaxAndCountPerPartition() throws Exception {
    assertThat(
        problemsOfRow(
            ROW
                + ", revision: 1, status: on_time, offsets: {x: {min: 0, max: 1, count: 2}, 0:"
                + " {min: 3, max: 1, count: 1}, 1: {min: 0, cnt: 1}}"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'offsets.x': 'x' is not a partition number — key"
                + " each partition's offsets by its number, e.g. offsets: {0: {min: 0, max: 3,"
                + " count: 4}}",
            "fixtures/f.yml:5: expect row 1: min 3, max 1 and count 1 cannot all hold — give the"
                + " smallest and largest offset of the events included and how many they are",
            "fixtures/f.yml:5: expect row 1, key 'offsets.1.cnt': unknown key — did you mean"
                + " 'count'? (known keys: min, max, count)",
            "fixtures/f.yml:5: expect row 1, key 'offsets.1.max': required key is missing — give"
                + " min, max and count, e.g. offsets: {0: {min: 0, max: 3, count: 4}}",
            "fixtures/f.yml:5: expect row 1, key 'offsets.1.count': required key is missing — give"
                + " min, max and count, e.g. offsets: {0: {min: 0, max: 3, count: 4}}"));
  }

  @Test
  void aLateRowNamesTheWindowThatRefusedIt() throws Exception {
    assertThat(
        problems(
            WINDOWED,
            HEAD
                + "late:\n"
                + "  - { customer_id: 7, amount: 1, ordered_at: \"2026-08-30T09:00:00Z\" }\n"),
        contains(
            "fixtures/f.yml:6: late row 1, key 'window_start': required key is missing — add"
                + " window_start: the start of the window that refused the event (one late row per"
                + " refused window)"));
  }

  @Test
  void aLateRowsWindowStartIsTheStartOfAWindow() throws Exception {
    assertThat(
        problems(
            WINDOWED,
            HEAD
                + "late:\n"
                + "  - { customer_id: 7, amount: 1, ordered_at: \"2026-08-30T09:00:00Z\","
                + " window_start: \"2026-08-30T09:10:00Z\" }\n"),
        contains(
            "fixtures/f.yml:6: late row 1, key 'window_start': '2026-08-30T09:10:00Z' is not the"
                + " start of a window: the model's windows (tumbling 1h) start at multiples of 1h"
                + " from the epoch, UTC — write the start of a window, e.g. window_start:"
                + " \"2026-08-30T09:00:00Z\""));
  }

  @Test
  void anUpsertFixtureKnowsNoWindowKeys() throws Exception {
    assertThat(
        problems(
            ProjectFolder.MODELS,
            HEAD + "  - { op: insert, customer_id: 42, total_spend: 10, revision: 1 }\n"),
        contains(
            "fixtures/f.yml:5: expect row 1, key 'revision': unknown key"
                + " — known keys: op, customer_id, total_spend"));
    assertThat(
        problems(
            ProjectFolder.MODELS,
            HEAD
                + "late:\n"
                + "  - { customer_id: 7, amount: 1, ordered_at: \"2026-08-30T09:00:00Z\","
                + " window_start: \"2026-08-30T09:00:00Z\" }\n"),
        contains(
            "fixtures/f.yml:6: late row 1, key 'window_start': unknown key"
                + " — known keys: customer_id, amount, ordered_at"));
  }
}
