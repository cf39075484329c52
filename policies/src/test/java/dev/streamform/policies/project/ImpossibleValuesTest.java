package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Values that used to pass {@code check} and then crash {@code test} (issue 20): zero or
 * overflowing durations anywhere, event times no runner can hold, a fixture over the size limit.
 * Each is a problem with file, line, key and a fix.
 */
class ImpossibleValuesTest {
  @TempDir Path dir;

  private static final String TOO_LONG = "99999999999999d";

  private ProjectFolder withModel(String keys) {
    return ProjectFolder.seed(dir)
        .models("models:\n  customer_metrics:\n    key: [customer_id]\n" + keys);
  }

  private ProjectFolder withSourceClock(String line) {
    return ProjectFolder.seed(dir)
        .sources(ProjectFolder.SOURCES.replace("    watermark: 5m\n", line));
  }

  @Test
  void retentionOfZeroIsRefused() {
    assertThat(
        withModel("    retention: 0s\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'retention': retention cannot be 0s: a"
                + " key's state would be dropped as soon as the watermark reaches its latest event"
                + " — give how long a key's state lives after its latest event, e.g. retention:"
                + " 30d, or remove retention to keep state forever"));
  }

  @Test
  void anOverflowingRetentionIsRefused() {
    assertThat(
        withModel("    retention: " + TOO_LONG + "\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'retention': bad duration: '"
                + TOO_LONG
                + "' is too long a duration: the longest is 36500d (100 years) — e.g. retention:"
                + " 30d"));
  }

  @Test
  void moreDigitsThanALongHoldsIsTooLongNotANumberError() {
    List<String> problems = withModel("    retention: 99999999999999999999999m\n").problems();
    assertThat(problems, hasSize(1));
    assertThat(problems.get(0), containsString("is too long a duration: the longest is 36500d"));
  }

  @Test
  void theLongestDurationIsAccepted() throws Exception {
    assertThat(
        withModel("    retention: 36500d\n").load().models().get("customer_metrics").retention(),
        is(Optional.of(Duration.ofDays(36_500))));
    assertThat(
        withModel("    retention: 36501d\n").problems().get(0),
        containsString("'36501d' is too long a duration"));
  }

  @ParameterizedTest
  @CsvSource({
    "'    watermark: 99999999999999d\n', 11, watermark",
    "'    watermark: 5m\n    idle_after: 9999999999999h\n', 12, idle_after",
  })
  void sourceDurationsThatOverflowAreRefused(String lines, int line, String key) {
    List<String> problems = withSourceClock(lines).problems();
    assertThat(problems, hasSize(1));
    assertThat(
        problems.get(0),
        startsWith("sources.yml:" + line + ": source 'orders', key '" + key + "': bad duration: "));
    assertThat(
        problems.get(0),
        containsString("is too long a duration: the longest is 36500d (100 years)"));
  }

  @ParameterizedTest
  @CsvSource({
    "'    window: 99999999999999d\n', window",
    "'    window: {size: 99999999999999d}\n', window.size",
    "'    window: {size: 1h, every: 99999999999999d}\n', window.every",
    "'    window: 1h\n    allowed_lateness: 99999999999999d\n', allowed_lateness",
  })
  void windowDurationsThatOverflowAreRefused(String lines, String key) {
    List<String> problems = withModel(lines).problems();
    assertThat(
        problems.toString(),
        problems.stream()
            .anyMatch(
                p ->
                    p.startsWith("streamform.yml:")
                        && p.contains("key '" + key + "'")
                        && p.contains("is too long a duration")),
        is(true));
  }

  @Test
  void aHoppingWindowThatPutsAnEventInMillionsOfWindowsIsRefused() throws Exception {
    assertThat(
        withModel("    window: {size: 30d, every: 1ms}\n").problems(),
        contains(
            "streamform.yml:4: model 'customer_metrics', key 'window.every': every event would be"
                + " in 2592000000 windows (size / every); the most is 10000 — make every at least"
                + " 259200ms (size / 10000), or the size smaller"));
    // 10,000 windows per event is still accepted
    assertThat(
        withModel("    window: {size: 10000m, every: 1m}\n")
            .load()
            .models()
            .get("customer_metrics")
            .window()
            .get()
            .size(),
        is(Duration.ofMinutes(10_000)));
  }

  @Test
  void earlyResultsEveryAnOverflowingDurationIsRefused() {
    List<String> problems =
        withModel("    window: 1h\n    early_results: every 99999999999999d\n").problems();
    assertThat(problems, hasSize(1));
    assertThat(
        problems.get(0),
        startsWith("streamform.yml:5: model 'customer_metrics', key 'early_results':"));
    assertThat(problems.get(0), containsString("too long a duration"));
  }

  @Test
  void aSpaceBetweenNumberAndUnitIsAccepted() throws Exception {
    // decided in the README: "5 m" reads as 5m, as Flink's own duration settings read it
    Project project = withSourceClock("    watermark: 5 m\n").load();
    assertThat(project.sources().get("orders").watermark(), is(Duration.ofMinutes(5)));
  }

  @Test
  void anEventTimeNoRunnerCanHoldIsRefusedInAFixture() throws Exception {
    Project project = ProjectFolder.seed(dir).load();
    ProjectFolder.at(dir)
        .write(
            "fixtures/far.yml",
            """
            model: customer_metrics
            given:
              - event: { customer_id: 42, amount: 10, ordered_at: 99999999999999999 }
            expect:
              - { op: insert, customer_id: 42, total_spend: 10 }
            """);
    InvalidProjectException e =
        assertThrows(
            InvalidProjectException.class,
            () -> Fixture.load(project, dir.resolve("fixtures/far.yml")));
    assertThat(
        e.problems().get(0).toString(),
        is(
            "fixtures/far.yml:3: event 1, key 'ordered_at': '99999999999999999' is out of range:"
                + " event times lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z"
                + " (epoch milliseconds -62135596800000 to 253402300799999) — give ordered_at"
                + " a timestamp value"));
  }

  /**
   * A partition past the largest a source can have is refused with the range (found by a read-only
   * audit of clocks: the fix said only "a whole number from 0").
   */
  @Test
  void aPartitionPastTheLargestIsRefusedWithTheRange() throws Exception {
    Project project = ProjectFolder.seed(dir).load();
    ProjectFolder.at(dir)
        .write(
            "fixtures/wide.yml",
            """
            model: customer_metrics
            given:
              - { partition: 65536, event: { customer_id: 42, amount: 10, ordered_at: "2026-08-30T10:00:00Z" } }
            expect:
              - { op: insert, customer_id: 42, total_spend: 10 }
            """);
    InvalidProjectException e =
        assertThrows(
            InvalidProjectException.class,
            () -> Fixture.load(project, dir.resolve("fixtures/wide.yml")));
    assertThat(
        e.problems().get(0).toString(),
        is(
            "fixtures/wide.yml:3: given item 1, key 'partition': '65536' is not a partition number"
                + " — write a whole number from 0 to 65535, e.g. partition: 1"));
  }

  /**
   * An event's string that is not storable text (U+0000, a lone UTF-16 surrogate) is refused at its
   * line as any value that does not fit its column is, with the fix: a file or topic record holding
   * it is quarantined, so a fixture cannot make it an event (docs/decisions/0105).
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "n\\0ul   | contains U+0000 (NUL) at character 2, which no sink can store as text"
            + " — remove U+0000 from note",
        "\\ud800x | contains an unpaired UTF-16 surrogate (\\ud800) at character 1, which is"
            + " not Unicode text — give note the whole character (both halves of its surrogate"
            + " pair, e.g. \\ud83d\\ude00) or remove the half",
      })
  void aStringThatIsNotTextIsRefusedInAFixtureAtItsLine(String yaml, String problem)
      throws Exception {
    Project project =
        ProjectFolder.seed(dir)
            .sources(
                ProjectFolder.SOURCES.replace(
                    "      ordered_at: timestamp\n",
                    "      ordered_at: timestamp\n      note: string\n"))
            .load();
    ProjectFolder.at(dir)
        .write(
            "fixtures/nul.yml",
            "model: customer_metrics\ngiven:\n  - event: { customer_id: 42, amount: 10,"
                + " ordered_at: \"2026-08-30T10:00:00Z\", note: \""
                + yaml.strip()
                + "\" }\nexpect:\n  - { op: insert, customer_id: 42, total_spend: 10 }\n");
    InvalidProjectException e =
        assertThrows(
            InvalidProjectException.class,
            () -> Fixture.load(project, dir.resolve("fixtures/nul.yml")));
    assertThat(
        e.problems().get(0).toString(), is("fixtures/nul.yml:3: event 1, key 'note': " + problem));
  }

  @Test
  void aSurrogatePairInAFixtureIsOneCharacter() throws Exception {
    Project project =
        ProjectFolder.seed(dir)
            .sources(
                ProjectFolder.SOURCES.replace(
                    "      ordered_at: timestamp\n",
                    "      ordered_at: timestamp\n      note: string\n"))
            .load();
    ProjectFolder.at(dir)
        .write(
            "fixtures/pair.yml",
            "model: customer_metrics\ngiven:\n  - event: { customer_id: 42, amount: 10,"
                + " ordered_at: \"2026-08-30T10:00:00Z\", note: \"\\ud83d\\ude00\" }\n"
                + "expect:\n  - { op: insert, customer_id: 42, total_spend: 10 }\n");
    Fixture f = Fixture.load(project, dir.resolve("fixtures/pair.yml"));
    assertThat(f.given().get(0).event().get().get("note"), is("\ud83d\ude00"));
  }

  @Test
  void aFixtureOverTheSizeLimitSaysSoPlainly() throws Exception {
    Project project = ProjectFolder.seed(dir).load();
    StringBuilder text = new StringBuilder("model: customer_metrics\ngiven:\n");
    String event =
        "  - event: { customer_id: 42, amount: 10, ordered_at: \"2026-08-30T10:00:00Z\" }\n";
    while (text.length() <= YamlMap.MAX_CHARACTERS) {
      text.append(event);
    }
    ProjectFolder.at(dir).write("fixtures/huge.yml", text.toString());
    InvalidProjectException e =
        assertThrows(
            InvalidProjectException.class,
            () -> Fixture.load(project, dir.resolve("fixtures/huge.yml")));
    String problem = e.problems().get(0).toString();
    assertThat(problem, startsWith("fixtures/huge.yml: is too large: "));
    assertThat(problem, containsString("characters, more than the limit of 16,777,216 (16 MiB)"));
    assertThat(problem, containsString("split it into several files"));
  }

  @Test
  void aFixtureOfTwentyThousandEventsIsReadNotRefused() throws Exception {
    // SnakeYAML's default limit (3 MiB) refused this as "malformed YAML"
    Project project = ProjectFolder.seed(dir).load();
    StringBuilder text = new StringBuilder("model: customer_metrics\ngiven:\n");
    for (int i = 0; i < 20_000; i++) {
      text.append("  - event: { customer_id: ")
          .append(i % 100)
          .append(", amount: 10.25, ordered_at: \"2026-08-30T10:00:00Z\" }   # ")
          .append("a comment as long as a real fixture's lines get ".repeat(2))
          .append('\n');
    }
    assertThat(text.length() > 3 * 1024 * 1024, is(true));
    ProjectFolder.at(dir).write("fixtures/big.yml", text.toString());
    assertThat(Fixture.load(project, dir.resolve("fixtures/big.yml")).given(), hasSize(20_000));
  }
}
