package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The seed's fixture projects (SEMANTICS §5) pass on the DirectRunner with the seed's counts. */
class SeedFixtureProjectsTest {
  private static String output;
  private static boolean allPassed;

  @BeforeAll
  static void runAll() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintWriter out = new PrintWriter(bytes, true, StandardCharsets.UTF_8);
    FixtureSuite suite = new FixtureSuite(FixtureRunner.on(RunnerChoice.direct()), out);
    allPassed = suite.run(FixtureProjects.TIME);
    output = bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void everySeedFixturePasses() {
    assertThat(output, allPassed, is(true));
    assertThat(output, containsString("4 fixtures on direct: 4 passed, 0 failed"));
    assertThat(output, not(containsString("FAIL")));
  }

  @Test
  void lateEventPrintsTheSeedCounts() {
    assertThat(
        output,
        containsString(
            "late_event (model customer_metrics)\nPASS\n3 events processed\n"
                + "3 changelog records emitted\n1 late event dropped\n"));
  }

  @Test
  void keptLateEventIsProcessedAndNothingIsDropped() {
    assertThat(
        output,
        containsString(
            "late_event_kept (model customer_metrics)\nPASS\n4 events processed\n"
                + "4 changelog records emitted\n\n"));
  }

  @Test
  void watermarkItemsDropThreeOfSeven() {
    assertThat(
        output,
        containsString(
            "watermark_items (model customer_metrics)\nPASS\n4 events processed\n"
                + "4 changelog records emitted\n3 late events dropped\n"));
  }

  @Test
  void retentionStartsTheKeyOver() {
    assertThat(
        output,
        containsString(
            "retention (model customer_metrics)\nPASS\n4 events processed\n"
                + "4 changelog records emitted\n\n"));
  }
}
