package dev.streamform.teststreams.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureStream;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.oracle.Oracle;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One planted bug per rule family of the contract — lateness edge, watermark ordering, retention
 * edge, timer firing, aggregate arithmetic ({@link PlantedBugs}) — each caught by the fuzzer and
 * shrunk to a small fixture that the real model passes and the planted one fails.
 *
 * <p>The shrunk fixture's {@code expect:} is the oracle's, so it proves nothing where the oracle
 * could share the bug; each family therefore also has a fixture whose outcome is written here by
 * hand, from docs/semantics.md, which the oracle and the real model give and the planted bug does
 * not. (The model: the seed's customer_metrics, SUM(amount) by customer_id, watermark delay 5m,
 * retention 10m.)
 */
class PlantedBugTest {
  private static final FixtureRunner DIRECT = FixtureRunner.on(RunnerChoice.direct());
  private static final Path PROJECT = FuzzProjects.seed("retention");
  private static final DeclaredModel MODEL = FuzzProjects.model(PROJECT, "customer_metrics");

  static Stream<Arguments> families() {
    return Stream.of(
        // e@10:00 moves W to 09:55; e@10:10 to 10:05; 1@10:05 is exactly on W: on time
        Arguments.of(
            "lateness edge",
            run(
                f ->
                    DIRECT.run(
                        MODEL, f, PlantedBugs.lateAtTheWatermark(MODEL), MODEL.outputColumns())),
            hand()
                .event(0, order(1, "10.50", "10:00:00"))
                .event(0, order(2, "1.25", "10:10:00"))
                .event(0, order(1, "2.00", "10:05:00"))
                .build(),
            "processed 3\n"
                + "change 0-0 insert customer_id=1 total_spend=10.5\n"
                + "change 0-1 insert customer_id=2 total_spend=1.25\n"
                + "change 0-2 update customer_id=1 total_spend=12.5\n"),
        // 1@10:00 (W 09:55), 2@10:14 (W 10:09): 1@10:16 arrives at W = 10:09, 1 min short of
        // 1's edge (10:10): update; only after it does W move to 10:11
        Arguments.of(
            "watermark ordering",
            run(
                f ->
                    DIRECT.run(
                        MODEL, f, PlantedBugs.watermarkBeforeEvent(MODEL), MODEL.outputColumns())),
            hand()
                .event(0, order(1, "10.50", "10:00:00"))
                .event(0, order(2, "1.25", "10:14:00"))
                .event(0, order(1, "2.00", "10:16:00"))
                .build(),
            "processed 3\n"
                + "change 0-0 insert customer_id=1 total_spend=10.5\n"
                + "change 0-1 insert customer_id=2 total_spend=1.25\n"
                + "change 0-2 update customer_id=1 total_spend=12.5\n"),
        // W = 10:10 >= 10:00 + 10m: 1's state is gone, 1@10:10 (on time, t = W) starts over
        Arguments.of(
            "retention edge",
            run(
                f ->
                    DIRECT.run(
                        MODEL, f, PlantedBugs.exclusiveRetention(MODEL), MODEL.outputColumns())),
            hand()
                .event(0, order(1, "10.50", "10:00:00"))
                .watermark(Optional.empty(), at("10:10:00"))
                .event(0, order(1, "2.00", "10:10:00"))
                .build(),
            "processed 2\n"
                + "change 0-0 insert customer_id=1 total_spend=10.5\n"
                + "change 0-2 insert customer_id=1 total_spend=2\n"),
        // W = 10:09:59.999, 1 ms short of 1's edge: the state survives, 1@10:09:59.999 updates it
        Arguments.of(
            "timer firing",
            run(
                f ->
                    DIRECT.run(
                        MODEL, f, PlantedBugs.earlyExpiryTimer(MODEL), MODEL.outputColumns())),
            hand()
                .event(0, order(1, "10.50", "10:00:00"))
                .watermark(Optional.empty(), at("10:09:59.999"))
                .event(0, order(1, "2.00", "10:09:59.999"))
                .build(),
            "processed 2\n"
                + "change 0-0 insert customer_id=1 total_spend=10.5\n"
                + "change 0-2 update customer_id=1 total_spend=12.5\n"),
        // SUM skips NULL: a key with only NULL amounts has a NULL total, then 2.00
        Arguments.of(
            "aggregate arithmetic",
            run(
                f ->
                    DIRECT.run(
                        MODEL, f, PlantedBugs.nullAsZero(MODEL, "amount"), MODEL.outputColumns())),
            hand()
                .event(0, order(1, null, "10:00:00"))
                .event(0, order(1, "2.00", "10:01:00"))
                .build(),
            "processed 2\n"
                + "change 0-0 insert customer_id=1 total_spend=null\n"
                + "change 0-1 update customer_id=1 total_spend=2\n"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("families")
  void aPlantedBugIsCaughtShrunkAndFailsAHandWrittenFixture(
      String family,
      Function<Fixture, FixtureOutcome> planted,
      Fixture handWritten,
      String byHand,
      @TempDir Path dir)
      throws Exception {
    // the hand-written expectation: the oracle and the real model give it, the planted bug does not
    assertEquals(byHand, Oracle.of(MODEL).run(handWritten).canonical(), family + ": the oracle");
    assertEquals(byHand, DIRECT.run(MODEL, handWritten).canonical(), family + ": the real model");
    assertNotEquals(byHand, planted.apply(handWritten).canonical(), family + ": the planted bug");

    // the fuzzer finds it among generated traces, in batches as CI runs them, and shrinks it
    StringWriter log = new StringWriter();
    FuzzRun.Result result =
        new FuzzRun(MODEL, Fuzzer.of(MODEL, 40), new PrintWriter(log))
            .run(40, 11, List.of(Fuzzer.Target.of(family + " (planted)", planted)), dir);
    assertFalse(result.allAgree(), family + ": not caught\n" + log);
    assertEquals(1, result.fixtures.size(), log.toString());
    Fixture shrunk = Fixture.load(Project.load(PROJECT), result.fixtures.get(0));
    assertTrue(shrunk.given().size() <= 8, family + ": not shrunk\n" + log);
    assertTrue(judge(shrunk, DIRECT.run(MODEL, shrunk)).passed(), family + ": real model\n" + log);
    assertFalse(judge(shrunk, planted.apply(shrunk)).passed(), family + ": planted\n" + log);
  }

  private static Function<Fixture, FixtureOutcome> run(Function<Fixture, FixtureOutcome> f) {
    return f;
  }

  private static FixtureVerdict judge(Fixture fixture, FixtureOutcome outcome) {
    return FixtureVerdict.judge(
        fixture,
        FixtureStream.compile(fixture, MODEL),
        outcome,
        MODEL.source(),
        MODEL.outputColumns());
  }

  private static Fixture.Builder hand() {
    return Fixture.builder("by-hand", "customer_metrics");
  }

  private static Instant at(String time) {
    return Instant.parse("2026-08-30T" + time + "Z");
  }

  private static Map<String, Object> order(long customer, String amount, String time) {
    Map<String, Object> values = new LinkedHashMap<>();
    values.put("customer_id", customer);
    values.put("amount", amount == null ? null : new BigDecimal(amount));
    values.put("ordered_at", at(time));
    return values;
  }
}
