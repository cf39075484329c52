package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fixture's value for a string column is the text as written (docs/decisions/0130): YAML 1.1
 * reads an unquoted {@code NO} as false and {@code 0150} as the number 150, but a string column
 * holds text, and the same data read from a file (where the value is a JSON string) is "NO" and
 * "0150". A value refused for another type is quoted as written.
 */
class FixtureValuesAsWrittenTest {
  @TempDir Path dir;

  private Project project() throws Exception {
    return ProjectFolder.seed(dir)
        .sources(
            ProjectFolder.SOURCES.replace(
                "customer_id: int64", "customer_id: int64\n      country: string"))
        .load();
  }

  private Fixture fixture(Project project, String... items) throws Exception {
    StringBuilder text = new StringBuilder("model: customer_metrics\ngiven:\n");
    for (String item : items) {
      text.append("  - ").append(item).append('\n');
    }
    ProjectFolder.at(dir).write("fixtures/values.yml", text.toString());
    return Fixture.load(project, dir.resolve("fixtures/values.yml"));
  }

  @Test
  void anUnquotedValueOfAStringColumnIsTheTextAsWritten() throws Exception {
    List<String> written =
        List.of(
            "NO",
            "no",
            "Off",
            "on",
            "True",
            "y",
            "0150",
            "1e3",
            "007",
            "+1",
            "-0",
            "1_000",
            "0x1F",
            "1.50",
            "'NO'",
            "\"0150\"",
            "2026-08-30");
    List<String> items = new ArrayList<>();
    for (String w : written) {
      items.add(
          "event: { customer_id: 1, country: " + w + ", amount: 1, ordered_at: 1788084000000 }");
    }
    Fixture f = fixture(project(), items.toArray(String[]::new));
    assertThat(
        f.given().stream().map(g -> g.event().get().get("country")).toList(),
        is(
            List.of(
                "NO",
                "no",
                "Off",
                "on",
                "True",
                "y",
                "0150",
                "1e3",
                "007",
                "+1",
                "-0",
                "1_000",
                "0x1F",
                "1.50",
                "NO",
                "0150",
                "2026-08-30")));
  }

  @Test
  void anEmptyValueOfAStringColumnIsStillNoValue() throws Exception {
    Fixture f =
        fixture(
            project(),
            "event: { customer_id: 1, country: ~, amount: 1, ordered_at: 1788084000000 }",
            "event: { customer_id: 1, country: null, amount: 1, ordered_at: 1788084000000 }",
            "event: { customer_id: 1, country: 'null', amount: 1, ordered_at: 1788084000000 }");
    List<Object> countries = new ArrayList<>();
    f.given().forEach(g -> countries.add(g.event().get().get("country")));
    assertThat(countries, is(java.util.Arrays.asList(null, null, "null")));
  }

  @Test
  void aRefusedValueIsQuotedAsWritten() throws Exception {
    Project project = project();
    InvalidProjectException e =
        assertThrows(
            InvalidProjectException.class,
            () ->
                fixture(
                    project,
                    "event: { customer_id: 1, amount: 1, ordered_at: 1.7880858e12 }",
                    "watermark: 1.7880858e12"));
    String all = e.problems().toString();
    assertThat(all, containsString("'1.7880858e12' is not a timestamp"));
    assertThat(all.contains("E+"), is(false));
  }

  /**
   * Every number refused as a timestamp is quoted as written, a long one cut as every long value is
   * (ADR 0129): a long one was quoted whole, the text swapped in for Java's print of the value.
   */
  @Test
  void aNumberRefusedAsATimestampIsQuotedAsWrittenAndCut() throws Exception {
    Project project = project();
    String longNumber = "1.788084" + "0".repeat(100) + "e12";
    InvalidProjectException e =
        assertThrows(
            InvalidProjectException.class,
            () ->
                fixture(
                    project,
                    "event: { customer_id: 1, amount: 1, ordered_at: 1788084000000.50 }",
                    "event: { customer_id: 1, amount: 1, ordered_at: " + longNumber + " }",
                    "watermark: " + longNumber,
                    "watermark: 1e3"));
    String all = e.problems().toString();
    assertThat(all, containsString("'1788084000000.50' is not a timestamp"));
    assertThat(all, containsString("'1e3' is not a timestamp"));
    assertThat(
        all.split("'1\\.7880840{22}…\\(111 characters\\)…0{17}e12' is not a timestamp").length,
        is(3));
    assertThat(all.contains(longNumber), is(false));
  }
}
