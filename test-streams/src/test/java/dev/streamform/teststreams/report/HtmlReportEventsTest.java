package dev.streamform.teststreams.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the report says of each event (found by a read-only audit of the report): hovering an event
 * names its values, as the guide says ("its event id, times and values"); an event that a hopping
 * window refuses as too late while another takes it as a correction is drawn as the correction it
 * made, its title naming the window that refused it (it was drawn as late, as if dropped); and the
 * expected table lists the fixture's {@code quarantined:} rows, as it lists {@code late:} ones.
 */
class HtmlReportEventsTest {
  @TempDir static Path dir;
  private static String html;

  @BeforeAll
  static void run() throws Exception {
    HtmlReport report = new HtmlReport();
    FixtureSuite suite =
        new FixtureSuite(
                FixtureRunner.on(RunnerChoice.direct()), new PrintWriter(new StringWriter()))
            .listening(report);
    suite.run(
        List.of(Path.of("fixtures/time/hopping-revenue"), Path.of("fixtures/duplicates/orders")));
    Path file = dir.resolve("report.html");
    report.write(file, "events", suite.summary());
    html = Files.readString(file);
  }

  private static String section(String fixture) {
    int at = html.indexOf("data-fixture=\"" + fixture + "\"");
    assertTrue(at > 0, "a section for " + fixture);
    return html.substring(at, html.indexOf("</section>", at));
  }

  /** The title of the event drawn for {@code event}. */
  private static String eventTitle(String section, String event) {
    Matcher m =
        Pattern.compile(
                "<circle class=\"([^\"]*)\" data-event=\""
                    + Pattern.quote(event)
                    + "\"[^>]*>\\s*<title>([^<]*)</title>")
            .matcher(section);
    assertTrue(m.find(), "event " + event + " drawn with a title");
    return m.group(1) + " | " + m.group(2);
  }

  @Test
  void hoveringAnEventNamesItsValues() {
    String title = eventTitle(section("hopping_revenue"), "0-0");
    assertTrue(title.contains("merchant_id=7"), title);
    assertTrue(title.contains("amount=40"), title);
  }

  @Test
  void anEventLateForOneHoppingWindowAndACorrectionOfAnotherIsDrawnAsTheCorrection() {
    String drawn = eventTitle(section("hopping_revenue"), "0-4");
    assertTrue(drawn.startsWith("event correction |"), drawn);
    assertTrue(drawn.contains("too late for the window starting 2026-08-30T10:00:00Z"), drawn);
  }

  @Test
  void theExpectedTableListsTheQuarantinedRows() {
    String section = section("customer_duplicates");
    int expected = section.indexOf("expected (expect:)");
    String table = section.substring(expected, section.indexOf("</table>", expected));
    assertTrue(table.contains("<th>reason</th>"), table);
    int rows = table.split("<td>quarantined", -1).length - 1;
    assertEquals(2, rows, table);
    assertTrue(table.contains("<td>A-2</td>"), table);
    assertTrue(table.contains("no value for event_id column"), table);
  }
}
