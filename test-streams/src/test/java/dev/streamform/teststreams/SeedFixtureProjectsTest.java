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

/**
 * The seed's fixture projects (docs/semantics.md §5) and the windowed ones (§6) pass on the
 * DirectRunner with the counts worked out by hand in their fixtures.
 */
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
    assertThat(output, containsString("9 fixtures on direct: 9 passed, 0 failed"));
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

  @Test
  void hourlyRevenueIsRevisedByALateRefundAndRefusesOneBeyondTheLateness() {
    assertThat(
        output,
        containsString(
            "hourly_revenue (model hourly_revenue)\nPASS\n4 events processed\n"
                + "3 revisions emitted\n2 windows finalized\n1 late event dropped\n"));
  }

  @Test
  void revisionIdentityCountsInTheSingular() {
    assertThat(
        output,
        containsString(
            "revision_identity (model hourly_revenue)\nPASS\n4 events processed\n"
                + "2 revisions emitted\n1 window finalized\n\n"));
  }

  @Test
  void hoppingEventIsRefusedByOneWindowAndCorrectsTheOther() {
    assertThat(
        output,
        containsString(
            "hopping_revenue (model hopping_revenue)\nPASS\n4 events processed\n"
                + "6 revisions emitted\n4 windows finalized\n1 late event dropped\n"));
  }

  @Test
  void partitionBehindHoldsTheCorrection() {
    assertThat(
        output,
        containsString(
            "partition_behind (model hourly_revenue)\nPASS\n7 events processed\n"
                + "6 revisions emitted\n4 windows finalized\n1 late event dropped\n"));
  }

  @Test
  void previewsAreNotRevisions() {
    assertThat(
        output,
        containsString(
            "previews (model hourly_revenue)\nPASS\n9 events processed\n"
                + "4 revisions emitted\n3 windows finalized\n1 late event dropped\n"));
  }
}
