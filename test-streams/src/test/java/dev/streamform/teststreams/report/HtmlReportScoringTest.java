package dev.streamform.teststreams.report;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scoring fixture's actual table holds the features each decision read, the columns its expected
 * rows compare (spend, n): the table showed the event and the score only, so a failing feature
 * appeared in the expected table and nowhere in the actual one (found by a read-only audit of the
 * report).
 */
class HtmlReportScoringTest {
  @TempDir Path dir;

  @Test
  void theActualTableOfAScoringFixtureHoldsTheFeatures() throws Exception {
    HtmlReport report = new HtmlReport();
    FixtureSuite suite =
        new FixtureSuite(
                FixtureRunner.on(RunnerChoice.direct()), new PrintWriter(new StringWriter()))
            .listening(report);
    suite.run(Path.of("fixtures/scoring/latest_log_order"));
    Path file = dir.resolve("report.html");
    report.write(file, "scoring", suite.summary());
    String html = Files.readString(file);
    int actual = html.indexOf("actual (the run)");
    assertTrue(actual > 0, "an actual table");
    String table = html.substring(actual, html.indexOf("</table>", actual));
    assertTrue(table.contains("<th>spend</th>"), table);
    assertTrue(table.contains("<th>n</th>"), table);
  }
}
