package dev.streamform.teststreams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.fuzz.Fuzzer;
import dev.streamform.teststreams.oracle.ScoringOracle;
import dev.streamform.teststreams.trace.TraceGenerator;
import dev.streamform.transforms.PlantedDefect;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scoring oracle ({@link ScoringOracle}, docs/semantics.md §11) against the real {@code
 * ScoreEvents} on the DirectRunner: the shipped receipts fixtures, and generated traces of the
 * receipts models — and the comparison bites: a defect planted in the stage, and a rule the oracle
 * reads wrongly on purpose, each make traces disagree.
 */
class ScoringOracleTest {
  private static final FixtureRunner DIRECT = FixtureRunner.on(RunnerChoice.direct());
  private static final Path RECEIPTS =
      FixtureProjects.under("fixtures/decisions/receipts").toAbsolutePath();
  private static final long SEED = 2026;
  private static final int TRACES = Integer.getInteger("scoring.traces", 13); // per model
  private static final int BATCH = Integer.getInteger("scoring.batch", 13);

  @Test
  void theOracleGivesTheShippedFixturesTheirHandWrittenExpectationsAndTheRunnersOutcome()
      throws Exception {
    Project project = Project.load(RECEIPTS);
    for (String file : List.of("fixtures/offline_uploads.yml", "fixtures/reconciled.yml")) {
      Fixture fixture = Fixture.load(project, RECEIPTS.resolve(file));
      DeclaredModel model = DeclaredModel.of(project, fixture.model());
      FixtureOutcome oracle = ScoringOracle.of(model).run(fixture);
      assertEquals(List.of(), oracle.decisionFailures(fixture, model), file);
      assertEquals(DIRECT.run(model, fixture).canonical(), oracle.canonical(), file);
    }
  }

  @Test
  void theRealStageAgreesWithTheOracleOnGeneratedTraces(@TempDir Path dir) throws Exception {
    long start = System.nanoTime();
    Map<String, Integer> routes = new TreeMap<>();
    int agreeing = 0;
    int all = 0;
    for (DeclaredModel model : models(dir)) {
      List<Fuzzer.Verdict> verdicts;
      // -Dscoring.plant=<PlantedDefect>: the same run with a defect planted in the stage, to
      // show that this test fails on it (docs/concepts/what-the-tests-catch.md)
      try (PlantedDefect.Scope s =
          PlantedDefect.plant(PlantedDefect.valueOf(System.getProperty("scoring.plant", "NONE")))) {
        verdicts = Fuzzer.of(model, BATCH).compare(traces(model), Fuzzer.Target.of(DIRECT, model));
      }
      for (Fuzzer.Verdict v : verdicts) {
        all++;
        if (v.agrees()) {
          agreeing++;
        } else {
          System.out.println(model.model().name() + " " + v.trace.name() + ":\n" + diff(v));
        }
        v.oracle
            .lines()
            .filter(l -> l.startsWith("routed "))
            .forEach(l -> routes.merge(l.split(" ")[2], 1, Integer::sum));
      }
    }
    System.out.printf(
        "scoring oracle: %d of %d generated traces agree with ScoreEvents on direct (%.1fs);"
            + " routes %s%n",
        agreeing, all, (System.nanoTime() - start) / 1e9, routes);
    assertEquals(all, agreeing, "traces that disagree with the scoring oracle");
    for (String route : List.of("scored", "revised", "revising", "reconciled", "dead_lettered")) {
      assertTrue(routes.getOrDefault(route, 0) > 0, "no generated trace routes " + route);
    }
  }

  @Test
  void anOracleThatReadsTheRangeWronglyDisagreesWithTheStage(@TempDir Path dir) throws Exception {
    // two receipts of merchant 7 exactly one range (1h) apart: the first is outside the second's
    // features, (t - 1h, t]; an oracle reading [t - 1h, t] counts it
    DeclaredModel model = models(dir).get(0);
    Fixture edge =
        Fixture.builder("range-edge", model.model().name())
            .event(0, receipt(7, "100.00", "2026-08-30T10:00:00Z"))
            .event(0, receipt(7, "50.00", "2026-08-30T11:00:00Z"))
            .build();
    ScoringOracle wrong =
        ScoringOracle.misreading(model, ScoringOracle.Misreading.RANGE_START_INCLUDED);
    Fuzzer.Verdict right =
        Fuzzer.of(model, 1).compare(List.of(edge), Fuzzer.Target.of(DIRECT, model)).get(0);
    Fuzzer.Verdict misread =
        Fuzzer.of(model, 1)
            .withOracle(wrong::run)
            .compare(List.of(edge), Fuzzer.Target.of(DIRECT, model))
            .get(0);
    System.out.println("oracle reading [t - range, t] against the stage:\n" + diff(misread));
    assertTrue(right.agrees(), diff(right));
    assertFalse(misread.agrees(), "a wrong range start went unnoticed");
  }

  private static Map<String, Object> receipt(long merchant, String amount, String at) {
    Map<String, Object> r = new java.util.LinkedHashMap<>();
    r.put("merchant_id", merchant);
    r.put("amount", new java.math.BigDecimal(amount));
    r.put("occurred_at", java.time.Instant.parse(at));
    return r;
  }

  /**
   * The receipts models the oracle is held to: revise (late events update state) and reconcile
   * without the clock-skew check (generated {@code received_at} values would dead-letter most
   * events), and revise with it as shipped.
   */
  private static List<DeclaredModel> models(Path dir) throws InvalidProjectException {
    Path plain = FixtureProjects.copy(RECEIPTS, dir.resolve("no-skew"));
    String yml = FixtureProjects.read(plain.resolve("streamform.yml"));
    FixtureProjects.write(
        plain, "streamform.yml", yml.replaceAll("(?m)^ *(max_clock_skew|arrival):.*\n", ""));
    Project noSkew = Project.load(plain);
    Project shipped = Project.load(RECEIPTS);
    return List.of(
        DeclaredModel.of(noSkew, "receipt_risk"),
        DeclaredModel.of(noSkew, "receipt_risk_reconciled"),
        DeclaredModel.of(shipped, "receipt_risk"));
  }

  private static List<Fixture> traces(DeclaredModel model) {
    TraceGenerator generator = TraceGenerator.forModel(model);
    List<Fixture> traces = new ArrayList<>();
    for (int i = 0; i < TRACES; i++) {
      traces.add(generator.generate(SEED, i));
    }
    return traces;
  }

  /** The lines that differ, oracle first: each line's id, route and the fields that differ. */
  private static String diff(Fuzzer.Verdict v) {
    List<String> x = v.oracle.lines().toList();
    List<String> y = v.actual.lines().toList();
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < Math.max(x.size(), y.size()); i++) {
      String p = i < x.size() ? x.get(i) : "(nothing)";
      String q = i < y.size() ? y.get(i) : "(nothing)";
      if (!p.equals(q)) {
        s.append("  oracle: ")
            .append(only(p, q))
            .append("\n  runner: ")
            .append(only(q, p))
            .append('\n');
      }
    }
    return s.toString();
  }

  /** {@code line}'s first three words and the fields it has that {@code other} lacks. */
  private static String only(String line, String other) {
    String[] words = line.split(" ", 4);
    List<String> theirs = List.of(other.split("[ ,{}]+"));
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < Math.min(3, words.length); i++) {
      b.append(words[i]).append(' ');
    }
    for (String field : line.split("[ ,{}]+")) {
      if (field.contains("=") && !theirs.contains(field)) {
        b.append(field).append(' ');
      }
    }
    return b.toString().trim();
  }
}
