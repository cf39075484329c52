package dev.streamform.teststreams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.fuzz.FuzzRun;
import dev.streamform.teststreams.fuzz.Fuzzer;
import dev.streamform.transforms.PlantedDefect;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Defects planted inside the product's own keyed stages ({@link PlantedDefect}: {@code
 * WindowedAggregate}, {@code ScoreEvents}, {@code Deduplicate}), one per rule family of
 * docs/semantics.md §6, §11 and the event-id reading of §2 — each caught twice:
 *
 * <ul>
 *   <li>by a fixture whose outcome is written here by hand from the contract, run through the
 *       fixture runner: it passes on the real stage and fails with the defect planted;
 *   <li>by the fuzzer: generated traces agree with the reference on the real stage and some
 *       disagree with the defect planted; the smallest is shrunk, written as a fixture, and that
 *       fixture again passes on the real stage and fails with the defect.
 * </ul>
 *
 * <p>Scoring models are judged by their own reference, the {@code ScoringOracle}: the shrunk
 * fixture's {@code expect:} rows are the oracle's decisions (docs/decisions/0039).
 */
class PlantedDefectTest {
  private static final FixtureRunner DIRECT = FixtureRunner.on(RunnerChoice.direct());
  private static final String HOUR =
      "window_start: \"2026-08-30T10:00:00Z\", window_end: \"2026-08-30T11:00:00Z\"";
  private static final Pattern SHRUNK = Pattern.compile("shrunk from (\\d+) to (\\d+) items");

  /** A defect, the project it shows in, and a fixture that the contract decides by hand. */
  record Case(
      PlantedDefect defect, Path project, Consumer<Path> adapt, int traces, String fixture) {
    Case(PlantedDefect defect, Path project, String fixture) {
      this(defect, project, p -> {}, TRACES, fixture);
    }

    Case(PlantedDefect defect, Path project, Consumer<Path> adapt, String fixture) {
      this(defect, project, adapt, TRACES, fixture);
    }

    @Override
    public String toString() {
      return defect.name();
    }
  }

  private static Path time(String seed) {
    return FixtureProjects.TIME.resolve(seed);
  }

  static Stream<Arguments> defects() {
    return Stream.of(
            // two partitions: W_0 is at the end while W_1 holds W back, so 7's event is a
            // correction
            // held until W reaches 11:00; with no on-time event it is revision 1, corrected
            new Case(
                PlantedDefect.WINDOW_ON_TIME_AT_END,
                time("two-partitions"),
                """
                model: hourly_revenue
                given:
                  - event: { merchant_id: 9, amount: 3.00, ordered_at: "2026-08-30T10:15:00Z" }
                    partition: 1                         # W_1 10:10
                  - watermark: "2026-08-30T11:00:00Z"    # W_0 11:00, W 10:10
                    partition: 0
                  - event: { merchant_id: 7, amount: 5.00, ordered_at: "2026-08-30T10:40:00Z" }
                    partition: 0                         # W_0 = end: a correction, not on time
                expect:
                  - { %1$s, merchant_id: 7, revenue: 5, orders: 1, revision: 1, status: corrected }
                  - { %1$s, merchant_id: 7, revenue: 5, orders: 1, revision: 1, status: final }
                  - { %1$s, merchant_id: 9, revenue: 3, orders: 1, revision: 1, status: on_time }
                  - { %1$s, merchant_id: 9, revenue: 3, orders: 1, revision: 1, status: final }
                """),
            // W_0 = end + 24h: the second event is too late for [10:00, 11:00)
            new Case(
                PlantedDefect.WINDOW_ACCEPTED_AT_LATENESS_EDGE,
                time("hourly-revenue"),
                """
                model: hourly_revenue
                given:
                  - event: { merchant_id: 7, amount: 10.00, ordered_at: "2026-08-30T10:05:00Z" }
                  - watermark: "2026-08-31T11:00:00Z"    # end + 24h: revision 1, then final
                  - event: { merchant_id: 7, amount: 2.00, ordered_at: "2026-08-30T10:30:00Z" }
                expect:
                  - { %1$s, merchant_id: 7, revenue: 10, orders: 1, revision: 1, status: on_time }
                  - { %1$s, merchant_id: 7, revenue: 10, orders: 1, revision: 1, status: final }
                late:
                  - { merchant_id: 7, amount: 2.00, ordered_at: "2026-08-30T10:30:00Z",
                      window_start: "2026-08-30T10:00:00Z" }
                """),
            // no on-time event: the first correction is revision 1 with status corrected
            new Case(
                PlantedDefect.WINDOW_FIRST_CORRECTION_ON_TIME,
                time("hourly-revenue"),
                """
                model: hourly_revenue
                given:
                  - watermark: "2026-08-30T11:00:00Z"
                  - event: { merchant_id: 7, amount: 4.00, ordered_at: "2026-08-30T10:20:00Z" }
                expect:
                  - { %1$s, merchant_id: 7, revenue: 4, orders: 1, revision: 1, status: corrected }
                  - { %1$s, merchant_id: 7, revenue: 4, orders: 1, revision: 1, status: final }
                """),
            // two corrections: two revisions
            new Case(
                PlantedDefect.WINDOW_LATER_CORRECTIONS_SILENT,
                time("hourly-revenue"),
                """
                model: hourly_revenue
                given:
                  - event: { merchant_id: 7, amount: 10.00, ordered_at: "2026-08-30T10:05:00Z" }
                  - watermark: "2026-08-30T11:00:00Z"
                  - event: { merchant_id: 7, amount: 2.00, ordered_at: "2026-08-30T10:10:00Z" }
                  - event: { merchant_id: 7, amount: 3.00, ordered_at: "2026-08-30T10:20:00Z" }
                expect:
                  - { %1$s, merchant_id: 7, revenue: 10, orders: 1, revision: 1, status: on_time }
                  - { %1$s, merchant_id: 7, revenue: 12, orders: 2, revision: 2, status: corrected }
                  - { %1$s, merchant_id: 7, revenue: 15, orders: 3, revision: 3, status: corrected }
                  - { %1$s, merchant_id: 7, revenue: 15, orders: 3, revision: 3, status: final }
                """),
            // the final record repeats the last revision's number and values
            new Case(
                PlantedDefect.WINDOW_FINAL_IS_NEW_REVISION,
                time("hourly-revenue"),
                """
                model: hourly_revenue
                given:
                  - event: { merchant_id: 7, amount: 10.00, ordered_at: "2026-08-30T10:05:00Z" }
                  - watermark: "2026-08-30T11:00:00Z"
                  - event: { merchant_id: 7, amount: 2.00, ordered_at: "2026-08-30T10:10:00Z" }
                expect:
                  - { %1$s, merchant_id: 7, revenue: 10, orders: 1, revision: 1, status: on_time }
                  - { %1$s, merchant_id: 7, revenue: 12, orders: 2, revision: 2, status: corrected }
                  - { %1$s, merchant_id: 7, revenue: 12, orders: 2, revision: 2, status: final }
                """),
            // revision 2 replaces revision 1
            new Case(
                PlantedDefect.WINDOW_PREDECESSOR_IS_SELF,
                time("hourly-revenue"),
                """
                model: hourly_revenue
                given:
                  - event: { merchant_id: 7, amount: 10.00, ordered_at: "2026-08-30T10:05:00Z" }
                  - watermark: "2026-08-30T11:00:00Z"
                  - event: { merchant_id: 7, amount: 2.00, ordered_at: "2026-08-30T10:10:00Z" }
                expect:
                  - { %1$s, merchant_id: 7, revenue: 10, orders: 1, revision: 1, status: on_time }
                  - { %1$s, merchant_id: 7, revenue: 12, orders: 2, revision: 2, status: corrected,
                      predecessor: 1 }
                  - { %1$s, merchant_id: 7, revenue: 12, orders: 2, revision: 2, status: final }
                """),
            // hours every 30m: 11:00 is in [10:30, 11:30) and [11:00, 12:00), not in [10:00, 11:00)
            new Case(
                PlantedDefect.WINDOW_SLIDING_END_INCLUSIVE,
                time("hopping-revenue"),
                """
                model: hopping_revenue
                given:
                  - event: { merchant_id: 7, amount: 10.00, ordered_at: "2026-08-30T11:00:00Z" }
                expect:
                  - { window_start: "2026-08-30T10:30:00Z", window_end: "2026-08-30T11:30:00Z",
                      merchant_id: 7, revenue: 10, orders: 1, revision: 1, status: on_time }
                  - { window_start: "2026-08-30T10:30:00Z", window_end: "2026-08-30T11:30:00Z",
                      merchant_id: 7, revenue: 10, orders: 1, revision: 1, status: final }
                  - { window_start: "2026-08-30T11:00:00Z", window_end: "2026-08-30T12:00:00Z",
                      merchant_id: 7, revenue: 10, orders: 1, revision: 1, status: on_time }
                  - { window_start: "2026-08-30T11:00:00Z", window_end: "2026-08-30T12:00:00Z",
                      merchant_id: 7, revenue: 10, orders: 1, revision: 1, status: final }
                """),
            // a correction carries every accepted event, never a delta
            new Case(
                PlantedDefect.WINDOW_CORRECTIONS_AS_DELTAS,
                time("hourly-revenue"),
                """
                model: hourly_revenue
                given:
                  - event: { merchant_id: 7, amount: 10.00, ordered_at: "2026-08-30T10:05:00Z" }
                  - event: { merchant_id: 7, amount: 5.00, ordered_at: "2026-08-30T10:10:00Z" }
                  - watermark: "2026-08-30T11:00:00Z"
                  - event: { merchant_id: 7, amount: 2.00, ordered_at: "2026-08-30T10:20:00Z" }
                expect:
                  - { %1$s, merchant_id: 7, revenue: 15, orders: 2, revision: 1, status: on_time }
                  - { %1$s, merchant_id: 7, revenue: 17, orders: 3, revision: 2, status: corrected }
                  - { %1$s, merchant_id: 7, revenue: 17, orders: 3, revision: 2, status: final }
                """),
            // score = 0.01 amount + 0.001 spend_1h + 0.1 receipts_1h; e2 (10:10) arrives at W_0
            // 10:15,
            // past its time: decided at once as of 10:10, so e1 (10:20) is not read; e1 is decided
            // at
            // the end of input from e2, which arrived while W_0 was below 10:20
            new Case(
                PlantedDefect.SCORE_READS_AFTER_OCCURRENCE,
                FixtureProjects.under("fixtures/decisions/receipts").toAbsolutePath(),
                PlantedDefectTest::withoutClockSkew,
                """
                model: receipt_risk
                given:
                  - event: { merchant_id: 7, amount: 100.00, occurred_at: "2026-08-30T10:20:00Z",
                             received_at: "2026-08-30T10:20:00Z" }
                  - event: { merchant_id: 7, amount: 50.00, occurred_at: "2026-08-30T10:10:00Z",
                             received_at: "2026-08-30T10:21:00Z" }
                expect:
                  - { event: 1, route: scored, merchant_id: 7, amount: 100.00, spend_1h: 50,
                      receipts_1h: 1, score: 1.15, revision: 1 }
                  - { event: 2, route: scored, merchant_id: 7, amount: 50.00, spend_1h: 0,
                      receipts_1h: 0, score: 0.5, revision: 1 }
                """),
            // W_0 is 10:05 before e1 and after it: e2 (10:05) is decided at once as of 10:05 from
            // the
            // events that arrived while W_0 was below 10:05 — none (e1 arrived at 10:05)
            new Case(
                PlantedDefect.SCORE_CUTOFF_INCLUSIVE,
                FixtureProjects.under("fixtures/decisions/receipts").toAbsolutePath(),
                PlantedDefectTest::withoutClockSkew,
                """
                model: receipt_risk
                given:
                  - watermark: "2026-08-30T10:05:00Z"
                  - event: { merchant_id: 7, amount: 100.00, occurred_at: "2026-08-30T10:00:00Z",
                             received_at: "2026-08-30T10:06:00Z" }
                  - event: { merchant_id: 7, amount: 50.00, occurred_at: "2026-08-30T10:05:00Z",
                             received_at: "2026-08-30T10:06:00Z" }
                expect:
                  - { event: 1, route: scored, merchant_id: 7, amount: 100.00, spend_1h: 0,
                      receipts_1h: 0, score: 1.0, revision: 1 }
                  - { event: 2, route: scored, merchant_id: 7, amount: 50.00, spend_1h: 0,
                      receipts_1h: 0, score: 0.5, revision: 1 }
                """),
            // duplicates_within 10m (and retention 10m): at W = 10:00 + 10m A-1 is forgotten, so
            // A-1 again is a new event (of customer 7: 42 would have expired)
            new Case(
                PlantedDefect.DEDUP_HORIZON_EXCLUSIVE,
                FixtureProjects.under("fixtures/duplicates/orders").toAbsolutePath(),
                PlantedDefectTest::horizonAtRetention,
                TRACES, // repeats at and 1 ms off the horizon (TraceGenerator): ADR 0022
                """
                model: customer_metrics
                given:
                  - event: { order_id: A-1, customer_id: 42, amount: 10, ordered_at: "2026-08-30T10:00:00Z" }
                  - watermark: "2026-08-30T10:10:00Z"
                  - event: { order_id: A-1, customer_id: 7, amount: 5, ordered_at: "2026-08-30T10:10:00Z" }
                expect:
                  - { op: insert, customer_id: 42, total_spend: 10 }
                  - { op: insert, customer_id: 7, total_spend: 5 }
                """),
            // the same id with another amount: a conflict, quarantined, not a duplicate
            new Case(
                PlantedDefect.DEDUP_CONFLICT_AS_DUPLICATE,
                FixtureProjects.under("fixtures/duplicates/orders").toAbsolutePath(),
                PlantedDefectTest::horizonAtRetention,
                """
                model: customer_metrics
                given:
                  - event: { order_id: A-1, customer_id: 42, amount: 10, ordered_at: "2026-08-30T10:00:00Z" }
                  - event: { order_id: A-1, customer_id: 42, amount: 12, ordered_at: "2026-08-30T10:00:00Z" }
                expect:
                  - { op: insert, customer_id: 42, total_spend: 10 }
                quarantined:
                  - { order_id: A-1, amount: 12,
                      reason: "first seen at partition 0 offset 0 with another payload" }
                """))
        // -Dplanted.only=SCORE_: only the defects whose name starts so (a quicker run by hand)
        .filter(c -> c.defect().name().startsWith(System.getProperty("planted.only", "")))
        .map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("defects")
  void aDefectPlantedInTheProductFailsAHandWrittenFixtureAndIsFoundAndShrunkByFuzz(
      Case c, @TempDir Path dir) throws Exception {
    Path project = FixtureProjects.copy(c.project(), dir);
    c.adapt().accept(project);
    String modelName = c.fixture().lines().findFirst().orElseThrow().substring(7).trim();
    FixtureProjects.write(project, "fixtures/by_hand.yml", c.fixture().formatted(HOUR));
    StreamformFixtures fixtures = StreamformFixtures.inProject(project);

    // the hand-written outcome: the real stage gives it, the planted one does not
    fixtures.run("fixtures/by_hand.yml").assertPassed();
    FixtureVerdict planted = planted(c.defect(), () -> fixtures.run("fixtures/by_hand.yml"));
    assertFalse(planted.passed(), c.defect() + ": the hand-written fixture passed");
    System.out.println(c.defect() + ", by hand: " + firstDifference(planted.render()));

    // fuzz: the planted stage disagrees with the reference on some generated traces, and the
    // smallest is shrunk (the real stage agrees with the oracle on such traces: FuzzWindowedTest,
    // FuzzDirectTest; and below on the shrunk one)
    DeclaredModel model = model(project, modelName);
    if (c.traces() == NOT_REACHED) {
      System.out.println(c.defect() + ", fuzz: not reached by generated traces (ADR 0022)");
      return;
    }
    Fuzzer fuzzer = Fuzzer.of(model, 40); // a scoring model's: the ScoringOracle
    StringWriter log = new StringWriter();
    Fuzzer.Target target =
        Fuzzer.Target.of(
            "direct, " + c.defect(), f -> planted(c.defect(), () -> DIRECT.run(model, f)));
    FuzzRun.Result found =
        new FuzzRun(model, fuzzer, new PrintWriter(log))
            .run(c.traces(), SEED, List.of(target), project.resolve("fixtures"));
    assertFalse(found.allAgree(), c.defect() + ": not caught by fuzz\n" + log);
    assertEquals(1, found.fixtures.size(), log.toString());
    Matcher shrunk = SHRUNK.matcher(Files.readString(found.fixtures.get(0)));
    assertTrue(shrunk.find(), log.toString());
    int items = Integer.parseInt(shrunk.group(2));
    System.out.printf(
        "%s, fuzz: %d of %d traces disagree; shrunk from %s to %d items%n",
        c.defect(), found.traces - found.agreeing, found.traces, shrunk.group(1), items);
    assertTrue(items <= 8, c.defect() + ": not shrunk\n" + log);

    // the shrunk fixture, run as a fixture: passes on the real stage, fails with the defect
    String file = "fixtures/" + found.fixtures.get(0).getFileName();
    fixtures.run(file).assertPassed();
    assertFalse(
        planted(c.defect(), () -> fixtures.run(file)).passed(),
        c.defect() + ": the shrunk fixture passed\n" + log);
  }

  private static final int TRACES = 40;

  /** A defect the trace generator does not reach: only its hand-written fixture catches it. */
  private static final int NOT_REACHED = 0;

  /**
   * The receipts project without the clock-skew check: generated {@code received_at} values would
   * dead-letter most events, and a dead-lettered event reads and changes no state.
   */
  private static void withoutClockSkew(Path project) {
    String yml = FixtureProjects.read(project.resolve("streamform.yml"));
    FixtureProjects.write(
        project, "streamform.yml", yml.replaceAll("(?m)^ *(max_clock_skew|arrival):.*\n", ""));
  }

  /**
   * The duplicates project with {@code duplicates_within: 10m} and {@code retention: 10m}: the
   * trace generator aims watermark items at retention edges, which then are horizon edges too.
   */
  private static void horizonAtRetention(Path project) {
    String sources = FixtureProjects.read(project.resolve("sources.yml"));
    FixtureProjects.write(
        project,
        "sources.yml",
        sources.replace("duplicates_within: 30m", "duplicates_within: 10m"));
    String models = FixtureProjects.read(project.resolve("streamform.yml"));
    FixtureProjects.write(
        project,
        "streamform.yml",
        models.replace("materialized: upsert\n", "materialized: upsert\n    retention: 10m\n"));
  }

  private static final long SEED = 2026;

  private static <T> T planted(PlantedDefect defect, Supplier<T> run) {
    try (PlantedDefect.Scope s = PlantedDefect.plant(defect)) {
      return run.get();
    }
  }

  private static DeclaredModel model(Path project, String name) {
    try {
      return DeclaredModel.of(Project.load(project), name);
    } catch (InvalidProjectException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** The report's first line that says what differed, for the test's log. */
  private static String firstDifference(String report) {
    return report
        .lines()
        .filter(l -> l.contains("^ ") || l.contains("not listed") || l.contains("(nothing)"))
        .findFirst()
        .orElse(report.lines().limit(3).reduce("", (a, b) -> a + " " + b))
        .trim();
  }
}
