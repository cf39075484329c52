package dev.streamform.teststreams;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
  private static final int TRACES = Integer.getInteger("scoring.traces", 14); // per model
  private static final int BATCH = Integer.getInteger("scoring.batch", 7);

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
      List<Fuzzer.Verdict> verdicts =
          Fuzzer.of(model, BATCH).compare(traces(model), Fuzzer.Target.of(DIRECT, model));
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
    DeclaredModel model = models(dir).get(0);
    ScoringOracle wrong =
        ScoringOracle.misreading(model, ScoringOracle.Misreading.RANGE_START_INCLUDED);
    List<Fuzzer.Verdict> verdicts =
        Fuzzer.of(model, BATCH)
            .withOracle(wrong::run)
            .compare(traces(model).subList(0, 8), Fuzzer.Target.of(DIRECT, model));
    long disagreeing = verdicts.stream().filter(v -> !v.agrees()).count();
    Fuzzer.Verdict first = verdicts.stream().filter(v -> !v.agrees()).findFirst().orElse(null);
    System.out.printf(
        "oracle reading [t - range, t]: %d of %d traces disagree with the stage; first: %s%n",
        disagreeing, verdicts.size(), first == null ? "-" : firstLine(first));
    assertTrue(disagreeing > 0, "a wrong range start went unnoticed");
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

  private static String firstLine(Fuzzer.Verdict v) {
    return v.trace.name() + "\n" + diff(v).lines().limit(2).reduce("", (a, b) -> a + b + "\n");
  }

  /** The lines that differ, oracle first. */
  private static String diff(Fuzzer.Verdict v) {
    List<String> x = v.oracle.lines().toList();
    List<String> y = v.actual.lines().toList();
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < Math.max(x.size(), y.size()); i++) {
      String p = i < x.size() ? x.get(i) : "(nothing)";
      String q = i < y.size() ? y.get(i) : "(nothing)";
      if (!p.equals(q)) {
        s.append("  oracle: ").append(p).append("\n  runner: ").append(q).append('\n');
      }
    }
    return s.toString();
  }
}
