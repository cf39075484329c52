package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 35: the daily-revenue-berlin project (test-streams/fixtures/calendar): calendar days in
 * Europe/Berlin over both daylight-saving changes of 2026 (the 23-hour 03-29 and the 25-hour
 * 10-25), worked out by hand, pass on the DirectRunner and on Flink at parallelism 2 with the same
 * records and identities; and daily-orders-st-johns, a day entered twice (ADR 0214).
 */
class CalendarFixturesTest {
  static final Path BERLIN = FixtureProjects.under("fixtures/calendar/daily-revenue-berlin");
  static final Path ST_JOHNS = FixtureProjects.under("fixtures/calendar/daily-orders-st-johns");

  @Test
  void bothDstDaysPassOnTheDirectRunner() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    boolean passed =
        new FixtureSuite(
                FixtureRunner.on(RunnerChoice.direct()),
                new PrintWriter(bytes, true, StandardCharsets.UTF_8))
            .run(BERLIN);
    String output = bytes.toString(StandardCharsets.UTF_8);
    System.out.println(output);
    assertThat(output, passed, is(true));
    assertThat(
        output,
        containsString(
            "last_sunday_of_october (model daily_revenue)\n"
                + "PASS\n"
                + "6 events processed\n"
                + "4 revisions emitted\n"
                + "3 windows finalized\n"
                + "1 late event dropped\n"));
    assertThat(
        output,
        containsString(
            "last_sunday_of_march (model daily_revenue)\nPASS\n"
                + "5 events processed\n4 revisions emitted\n3 windows finalized\n"));
  }

  /**
   * St. John's fell back at 00:01 into the day before (until 2011): an in-order event at an instant
   * that reads Nov 6 after Nov 7 began is counted in Nov 7's window, which contains it (ADR 0214),
   * not refused as too late by Nov 6's, which had ended.
   */
  @Test
  void aFallBackAcrossMidnightCountsTheRepeatedStretchInTheDayThatHasBegun() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    boolean passed =
        new FixtureSuite(
                FixtureRunner.on(RunnerChoice.direct()),
                new PrintWriter(bytes, true, StandardCharsets.UTF_8))
            .run(ST_JOHNS);
    String output = bytes.toString(StandardCharsets.UTF_8);
    System.out.println(output);
    assertThat(output, passed, is(true));
    assertThat(
        output,
        containsString(
            "fall_back_across_midnight (model daily_orders)\nPASS\n"
                + "3 events processed\n2 revisions emitted\n2 windows finalized\n"));
  }

  @Test
  void bothDstDaysPassOnFlinkAtParallelismTwoWithTheDirectRunnersRecords() throws Exception {
    Project project = Project.load(BERLIN);
    List<Fixture> fixtures = new ArrayList<>();
    List<FixtureRunner.Case> cases = new ArrayList<>();
    for (Path file : Fixture.filesOf(project)) {
      Fixture f = Fixture.load(project, file);
      fixtures.add(f);
      cases.add(FixtureRunner.Case.of(DeclaredModel.of(project, f.model()), f));
    }
    List<FixtureOutcome> flink = FixtureRunner.on(RunnerChoice.flinkLocal(2)).runTogether(cases);
    for (int i = 0; i < fixtures.size(); i++) {
      Fixture f = fixtures.get(i);
      DeclaredModel model = DeclaredModel.of(project, f.model());
      FixtureVerdict.judge(f, model, flink.get(i)).assertPassed();
      FixtureOutcome direct = FixtureRunner.on(RunnerChoice.direct()).run(model, f);
      assertThat(f.name(), flink.get(i).canonical(), is(direct.canonical()));
    }
    System.out.println(
        "flink p2: " + fixtures.size() + " calendar fixtures passed, same records as direct");
  }

  /** windowed-models.md's Java snippet, as printed there (checked below). */
  static dev.streamform.transforms.windows.WindowedAggregate docsDaily() {
    dev.streamform.transforms.windows.WindowedAggregate daily =
        dev.streamform.transforms.windows.WindowedAggregate.of(
                org.apache.beam.sdk.transforms.windowing.CalendarWindows.days(1)
                    .withTimeZone(org.joda.time.DateTimeZone.forID("Europe/Berlin")))
            .forModel("daily_revenue")
            .by("store_id")
            .aggregating(
                dev.streamform.transforms.changelog.Aggregation.sum("amount").as("revenue"),
                dev.streamform.transforms.changelog.Aggregation.countAll().as("sales"))
            .withAllowedLateness(org.joda.time.Duration.standardHours(2));
    return daily;
  }

  static Map<String, ColumnType> dailyColumns() {
    Map<String, ColumnType> columns = new LinkedHashMap<>();
    columns.put("store_id", ColumnType.STRING);
    columns.put("revenue", ColumnType.decimal(38, 2));
    columns.put("sales", ColumnType.INT64);
    return columns;
  }

  /**
   * The guide prints the Java daily aggregate beside last_sunday_of_october.yml, whose rows have
   * revenue and sales: the snippet, as printed, passes that fixture.
   */
  @Test
  void theGuidesJavaSnippetPassesTheFixturePrintedBesideIt() throws Exception {
    java.nio.file.Path docs =
        Files.isDirectory(java.nio.file.Paths.get("../docs"))
            ? java.nio.file.Paths.get("../docs")
            : java.nio.file.Paths.get("docs");
    String guide = Files.readString(docs.resolve("guides/windowed-models.md"));
    assertThat(
        guide,
        containsString(
            "        .aggregating(\n"
                + "           "
                + " dev.streamform.transforms.changelog.Aggregation.sum(\"amount\").as(\"revenue\"),\n"
                + "           "
                + " dev.streamform.transforms.changelog.Aggregation.countAll().as(\"sales\"))\n"
                + "        .withAllowedLateness(org.joda.time.Duration.standardHours(2));"));
    StreamformFixtures.forSource(BERLIN, "sales")
        .run("fixtures/last_sunday_of_october.yml", dailyColumns(), docsDaily())
        .assertPassed();
  }

  /**
   * A column of the fixture's output columns that the aggregate does not produce is refused before
   * anything runs (it used to be compared as null, so the fixture failed on every row).
   */
  @Test
  void anOutputColumnTheAggregateDoesNotProduceIsRefusedUpFront() {
    dev.streamform.transforms.windows.WindowedAggregate revenueOnly =
        dev.streamform.transforms.windows.WindowedAggregate.of(
                org.apache.beam.sdk.transforms.windowing.CalendarWindows.days(1)
                    .withTimeZone(org.joda.time.DateTimeZone.forID("Europe/Berlin")))
            .forModel("daily_revenue")
            .by("store_id")
            .aggregating(
                dev.streamform.transforms.changelog.Aggregation.sum("amount").as("revenue"))
            .withAllowedLateness(org.joda.time.Duration.standardHours(2));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                StreamformFixtures.forSource(BERLIN, "sales")
                    .run("fixtures/last_sunday_of_october.yml", dailyColumns(), revenueOnly));
    assertThat(
        e.getMessage(),
        allOf(
            containsString(
                "the output columns name 'sales', which the WindowedAggregate does not produce"
                    + " (its columns: store_id, revenue)"),
            containsString("Aggregation.countAll().as(\"sales\")")));
  }
}
