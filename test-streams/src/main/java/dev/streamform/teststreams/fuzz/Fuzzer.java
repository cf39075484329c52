package dev.streamform.teststreams.fuzz;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.teststreams.fixture.FixtureKind;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.oracle.Oracle;
import dev.streamform.teststreams.oracle.ScoringOracle;
import dev.streamform.teststreams.oracle.WindowedOracle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Compares what a runner makes of traces with what the {@link Oracle} says they mean, and shrinks a
 * trace that disagrees to a small one that still does.
 *
 * <p>Traces run in batches: one pipeline per batch. An upsert model's traces are merged into one
 * trace ({@link TraceBatch}) and the outcome split per trace: a batch whose whole outcome equals
 * the oracle's agrees on every trace; otherwise each trace's share is compared, and when only the
 * processed count differs (it is not reported per event) the batch's traces are run one by one. A
 * windowed or scoring model's traces run side by side ({@link Target#runAll}), each with its own
 * source and transforms, and each trace's own outcome is compared with the oracle's. A batch of one
 * runs its trace exactly as given, as does the check of a shrunk trace ({@link FuzzRun}).
 */
public final class Fuzzer {

  /** What a trace is run on: a runner with the model's transforms, or anything else to check. */
  public interface Target {
    String name();

    FixtureOutcome run(Fixture fixture);

    /**
     * Each of {@code fixtures} as {@link #run} gives it, in their order; a runner runs them side by
     * side in one pipeline, each with its own source and transforms ({@link
     * FixtureRunner#runTogether}).
     */
    default List<FixtureOutcome> runAll(List<Fixture> fixtures) {
      List<FixtureOutcome> outcomes = new ArrayList<>();
      fixtures.forEach(f -> outcomes.add(run(f)));
      return outcomes;
    }

    /**
     * Traces a DirectRunner pipeline holds at most when they run side by side: there they share one
     * quiet-pipeline step at a time, and each step looks at the whole pipeline, so a larger group
     * is slower, not faster (100 windowed traces on a loaded 2-core machine: 61 s alone, 61 s in
     * groups of 8, not done after 5 minutes in groups of 50). A Flink job takes the whole batch.
     */
    int DIRECT_SIDE_BY_SIDE = 8;

    /**
     * The declared model on {@code runner}, through {@link FixtureRunner#run}; side by side through
     * {@link FixtureRunner#runTogether}, on the DirectRunner in groups of at most {@link
     * #DIRECT_SIDE_BY_SIDE}.
     */
    static Target of(FixtureRunner runner, DeclaredModel model) {
      String name = runner.runner().describe();
      return new Target() {
        @Override
        public String name() {
          return name;
        }

        @Override
        public FixtureOutcome run(Fixture fixture) {
          return runner.run(model, fixture);
        }

        @Override
        public List<FixtureOutcome> runAll(List<Fixture> fixtures) {
          if (fixtures.size() == 1) {
            return List.of(run(fixtures.get(0)));
          }
          int group = runner.runner().isFlink() ? fixtures.size() : DIRECT_SIDE_BY_SIDE;
          List<FixtureOutcome> outcomes = new ArrayList<>();
          for (int from = 0; from < fixtures.size(); from += group) {
            List<FixtureRunner.Case> cases = new ArrayList<>();
            fixtures
                .subList(from, Math.min(fixtures.size(), from + group))
                .forEach(f -> cases.add(FixtureRunner.Case.of(model, f)));
            outcomes.addAll(
                cases.size() == 1
                    ? List.of(run(cases.get(0).fixture()))
                    : runner.runTogether(cases));
          }
          return outcomes;
        }
      };
    }

    static Target of(String name, Function<Fixture, FixtureOutcome> run) {
      return new Target() {
        @Override
        public String name() {
          return name;
        }

        @Override
        public FixtureOutcome run(Fixture fixture) {
          return run.apply(fixture);
        }
      };
    }
  }

  /** One trace's comparison: the oracle's and the target's canonical outcomes. */
  public static final class Verdict {
    public final Fixture trace;
    public final String oracle;
    public final String actual;

    Verdict(Fixture trace, String oracle, String actual) {
      this.trace = trace;
      this.oracle = oracle;
      this.actual = actual;
    }

    public boolean agrees() {
      return oracle.equals(actual);
    }
  }

  /** What a trace means: a reference implementation's outcome for it. */
  public interface Reference {
    FixtureOutcome run(Fixture fixture);
  }

  private final DeclaredModel model;
  private final Reference oracle;
  private final int batchSize;

  private Fuzzer(DeclaredModel model, Reference oracle, int batchSize) {
    this.model = model;
    this.oracle = oracle;
    // a windowed or scoring model's traces run side by side, each its own pipeline in one
    // (runAll)
    this.batchSize =
        TraceBatch.canBatch(model) || FixtureKind.of(model).runsTracesSideBySide()
            ? Math.max(1, batchSize)
            : 1;
  }

  /**
   * A fuzzer of {@code model} against its reference oracle ({@link Oracle}, {@link WindowedOracle}
   * for a windowed model, {@link ScoringOracle} for a scoring model), {@code batchSize} traces a
   * pipeline.
   */
  public static Fuzzer of(DeclaredModel model, int batchSize) {
    Function<Fixture, FixtureOutcome> reference = FixtureKind.of(model).oracle();
    return new Fuzzer(model, reference::apply, batchSize);
  }

  /**
   * Traces compared in one pipeline: the {@code batchSize} given, or 1 for a model whose traces
   * cannot run together.
   */
  public int batchSize() {
    return batchSize;
  }

  /** The same fuzzer judging by another oracle (to show that a broken one is caught). */
  public Fuzzer withOracle(Reference other) {
    return new Fuzzer(model, other, batchSize);
  }

  /** The reference implementation's outcome of {@code trace}. */
  public FixtureOutcome expected(Fixture trace) {
    return oracle.run(trace);
  }

  /** Compares every trace; {@code progress} hears of each finished batch. */
  public List<Verdict> compare(
      List<Fixture> traces, Target target, Consumer<List<Verdict>> progress) {
    List<Verdict> all = new ArrayList<>();
    for (int from = 0; from < traces.size(); from += batchSize) {
      List<Fixture> batch = traces.subList(from, Math.min(traces.size(), from + batchSize));
      List<Verdict> verdicts = compareBatch(batch, target, from);
      progress.accept(verdicts);
      all.addAll(verdicts);
    }
    return all;
  }

  public List<Verdict> compare(List<Fixture> traces, Target target) {
    return compare(traces, target, v -> {});
  }

  private List<Verdict> compareBatch(List<Fixture> traces, Target target, long seed) {
    if (traces.size() == 1) {
      Fixture trace = traces.get(0);
      return List.of(
          new Verdict(trace, oracle.run(trace).canonical(), target.run(trace).canonical()));
    }
    if (FixtureKind.of(model).runsTracesSideBySide()) {
      List<FixtureOutcome> actual = target.runAll(traces);
      List<Verdict> verdicts = new ArrayList<>();
      for (int i = 0; i < traces.size(); i++) {
        Fixture trace = traces.get(i);
        verdicts.add(new Verdict(trace, oracle.run(trace).canonical(), actual.get(i).canonical()));
      }
      return verdicts;
    }
    TraceBatch batch = TraceBatch.of(model, traces, seed);
    FixtureOutcome expected = oracle.run(batch.fixture());
    FixtureOutcome actual = target.run(batch.fixture());
    List<FixtureOutcome> expectedParts = batch.split(expected);
    List<FixtureOutcome> actualParts = batch.split(actual);
    List<Verdict> verdicts = new ArrayList<>();
    boolean anyDiffers = false;
    for (int i = 0; i < traces.size(); i++) {
      Verdict v =
          new Verdict(
              traces.get(i), expectedParts.get(i).canonical(), actualParts.get(i).canonical());
      anyDiffers |= !v.agrees();
      verdicts.add(v);
    }
    if (!anyDiffers && expected.processed != actual.processed) {
      // an event lost or processed twice: find whose, one trace a pipeline
      verdicts.clear();
      for (Fixture trace : traces) {
        verdicts.addAll(compareBatch(List.of(trace), target, seed));
      }
    }
    return verdicts;
  }

  /** Whether {@code trace} still disagrees on {@code target}. */
  public boolean disagrees(Fixture trace, Target target) {
    return !compareBatch(List.of(trace), target, 0).get(0).agrees();
  }

  /**
   * A small trace that still disagrees: delta debugging over {@code trace}'s items (drop halves,
   * then quarters, ... then single items, keeping whatever still disagrees), each round's
   * candidates run as one batch. The result is 1-minimal: dropping any one item makes it agree (in
   * a batch; {@link FuzzRun} checks that it still disagrees run alone, as a fixture runs).
   */
  public Fixture shrink(Fixture trace, Target target) {
    List<Fixture.Given> items = new ArrayList<>(trace.given());
    int chunks = 2;
    while (items.size() >= 2) {
      List<List<Fixture.Given>> parts = split(items, Math.min(chunks, items.size()));
      List<List<Fixture.Given>> candidates = new ArrayList<>(parts);
      if (parts.size() > 2) {
        for (int i = 0; i < parts.size(); i++) {
          List<Fixture.Given> complement = new ArrayList<>();
          for (int j = 0; j < parts.size(); j++) {
            if (j != i) {
              complement.addAll(parts.get(j));
            }
          }
          candidates.add(complement);
        }
      }
      Optional<Integer> found = firstDisagreeing(trace, candidates, target);
      if (found.isPresent()) {
        int i = found.get();
        items = candidates.get(i);
        chunks = i < parts.size() ? 2 : Math.max(chunks - 1, 2);
      } else if (parts.size() >= items.size()) {
        break;
      } else {
        chunks = Math.min(2 * chunks, items.size());
      }
    }
    return rebuild(trace, items);
  }

  private Optional<Integer> firstDisagreeing(
      Fixture trace, List<List<Fixture.Given>> candidates, Target target) {
    List<Fixture> fixtures = new ArrayList<>();
    for (List<Fixture.Given> c : candidates) {
      fixtures.add(rebuild(trace, c));
    }
    List<Verdict> verdicts = compare(fixtures, target);
    for (int i = 0; i < verdicts.size(); i++) {
      if (!verdicts.get(i).agrees()) {
        return Optional.of(i);
      }
    }
    return Optional.empty();
  }

  private static List<List<Fixture.Given>> split(List<Fixture.Given> items, int n) {
    List<List<Fixture.Given>> parts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      parts.add(new ArrayList<>(items.subList(i * items.size() / n, (i + 1) * items.size() / n)));
    }
    return parts;
  }

  /** A fixture of {@code items}, named and modelled as {@code trace}, events renumbered. */
  static Fixture rebuild(Fixture trace, List<Fixture.Given> items) {
    Fixture.Builder b = Fixture.builder(trace.name(), trace.model());
    for (Fixture.Given g : items) {
      if (g.event().isPresent()) {
        b.event(g.partition(), g.event().get());
      } else {
        b.watermark(
            g.allPartitions() ? Optional.empty() : Optional.of(g.partition()), g.watermark().get());
      }
    }
    return b.build();
  }
}
