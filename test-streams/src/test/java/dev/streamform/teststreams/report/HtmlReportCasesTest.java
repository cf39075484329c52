package dev.streamform.teststreams.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.fixture.SuiteReports;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.htmlunit.WebClient;
import org.htmlunit.html.DomElement;
import org.htmlunit.html.DomNode;
import org.htmlunit.html.HtmlPage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTML report of the cases a newcomer met (src/test/resources/report-cases): a source without
 * {@code event_time}, whose events are processed and must not be drawn as quarantined; a project
 * that does not load and a fixture file that does not read, which the summary counts as failed and
 * which each need a section saying why; a quarantined event, whose row shows what it held; and
 * strings shown the same way in the expected and the actual tables.
 */
class HtmlReportCasesTest {
  private static final Path CASES = Path.of("src/test/resources/report-cases");

  @TempDir static Path dir;
  private static WebClient browser;
  private static HtmlPage page;
  private static String html;
  private static String summary;
  private static String junit;

  @BeforeAll
  static void runAndLoad() throws Exception {
    HtmlReport report = new HtmlReport();
    FixtureSuite suite =
        new FixtureSuite(
                FixtureRunner.on(RunnerChoice.direct()), new PrintWriter(new StringWriter()))
            .listening(report);
    suite.run(
        List.of(
            CASES.resolve("no-event-time"),
            CASES.resolve("does-not-load"),
            CASES.resolve("quarantine-and-bad-fixture")));
    summary = suite.summary();
    StringWriter xml = new StringWriter();
    SuiteReports.junitXml(suite, xml);
    junit = xml.toString();
    Path file = dir.resolve("report.html");
    report.write(file, "report cases", summary);
    html = Files.readString(file);
    browser = new WebClient();
    browser.getOptions().setJavaScriptEnabled(false);
    browser.getOptions().setCssEnabled(false);
    page = browser.getPage(file.toUri().toURL());
  }

  @AfterAll
  static void close() {
    browser.close();
  }

  @Test
  void aSourceWithoutEventTimeDrawsNoQuarantinedEvent() {
    DomElement section = section("pt");
    assertTrue(section.asNormalizedText().contains("PASS"), section.asNormalizedText());
    // the run processed all three events: nothing may say or draw otherwise
    assertTrue(
        in(section, ".//*[contains(@class,'quarantined')]").isEmpty(),
        "no event drawn as quarantined: "
            + in(section, ".//*[contains(@class,'quarantined')]/*").stream()
                .map(DomNode::getTextContent)
                .collect(Collectors.toList()));
    assertTrue(
        in(section, ".//*[local-name()='svg']").isEmpty(),
        "no event-time axis for a source without event time: " + section.getAttribute("class"));
    assertTrue(
        section.asNormalizedText().contains("has no event_time"),
        "a sentence says why there is no timeline: " + section.asNormalizedText());
  }

  @Test
  void aProjectThatDoesNotLoadHasASectionWithItsProblem() {
    assertTrue(summary.contains("1 passed"), summary);
    // its fixture's section (ADR 0125: each fixture file of such a project is counted as failed)
    DomElement section = section("hourly_revenue");
    String text = section.asNormalizedText();
    assertTrue(section.getAttribute("class").contains("fail"), section.getAttribute("class"));
    assertTrue(text.contains("does not load"), text);
    assertTrue(text.contains("amont"), "the printed problem: " + text);
  }

  @Test
  void aFixtureThatDoesNotReadHasASectionWithItsProblemEscaped() {
    DomElement section = section("bad_value");
    String text = section.asNormalizedText();
    assertTrue(section.getAttribute("class").contains("fail"), section.getAttribute("class"));
    assertTrue(text.contains("<script>alert(1)</script>"), "the problem as printed: " + text);
    assertTrue(page.getByXPath("//script").isEmpty(), "escaped, not a script element");
    assertFalse(html.contains("<script>alert"), "escaped in the file too");
  }

  @Test
  void everyFailureCountedHasASection() {
    // 4 fixtures: pt, does-not-load, bad_value, quarantined
    assertTrue(summary.startsWith("4 fixtures"), summary);
    assertEquals(4, sections().size(), sections().size() + " sections");
  }

  @Test
  void theJunitXmlHasAnErrorForEachFixtureThatCouldNotRun() {
    // the same results as the HTML report: the gap the report had is not in the JUnit XML
    assertTrue(junit.contains("errors=\"2\""), junit);
    assertTrue(junit.contains("amont"), "the project's problem: " + junit);
    assertTrue(junit.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "escaped: " + junit);
  }

  @Test
  void aQuarantinedEventsRowShowsWhatItHeld() {
    DomElement section = section("quarantined");
    Map<String, String> row =
        rows(section, "actual").stream()
            .filter(r -> r.getOrDefault("status", "").startsWith("quarantined"))
            .findFirst()
            .orElseThrow(() -> new AssertionError(section.getAttribute("class")));
    assertEquals("a&b\"c'd<script>q</script>", row.get("page"), row.toString());
    assertEquals("3", row.get("n"), row.toString());
  }

  @Test
  void stringsShowTheSameInBothTables() {
    Map<String, String> expected = rows(section("pt"), "expected").get(0);
    Map<String, String> actual = rows(section("pt"), "actual").get(0);
    assertEquals(actual.get("op"), expected.get("op"), expected + " / " + actual);
    assertEquals("insert", expected.get("op"));
    Map<String, String> window = rows(section("quarantined"), "expected").get(0);
    assertEquals("<script>alert(1)</script>", window.get("page"), window.toString());
    assertEquals("2026-08-30T10:00:00Z", window.get("window_start"), window.toString());
  }

  private static List<DomElement> sections() {
    return in(page, "//section");
  }

  private static DomElement section(String fixture) {
    return sections().stream()
        .filter(s -> s.getAttribute("data-fixture").equals(fixture))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no section for " + fixture));
  }

  /** The rows of the table whose caption starts with {@code caption}, by column. */
  private static List<Map<String, String>> rows(DomElement section, String caption) {
    DomElement table =
        in(section, ".//table[starts-with(caption,'" + caption + "')]").stream()
            .findFirst()
            .orElseThrow(
                () ->
                    new AssertionError(
                        "no table " + caption + ": " + section.getAttribute("class")));
    List<String> columns =
        in(table, ".//th").stream().map(DomNode::getTextContent).collect(Collectors.toList());
    return in(table, ".//tr[td]").stream()
        .map(
            tr -> {
              List<DomElement> cells = in(tr, "./td");
              Map<String, String> row = new java.util.LinkedHashMap<>();
              for (int i = 0; i < columns.size(); i++) {
                row.put(columns.get(i), cells.get(i).getTextContent());
              }
              return row;
            })
        .collect(Collectors.toList());
  }

  private static List<DomElement> in(DomNode node, String xpath) {
    return node.getByXPath(xpath).stream().map(DomElement.class::cast).collect(Collectors.toList());
  }
}
