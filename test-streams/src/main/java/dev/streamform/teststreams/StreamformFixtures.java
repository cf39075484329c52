package dev.streamform.teststreams;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.DeclaredSource;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.declarations.WindowSpec;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Problem;
import dev.streamform.policies.project.Project;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.teststreams.fixture.ComposedResult;
import dev.streamform.teststreams.fixture.Delivery;
import dev.streamform.teststreams.fixture.FixtureKind;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.changelog.KeyedChangelog;
import dev.streamform.transforms.clock.TimedEvent;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.windows.WindowedAggregate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;

/**
 * The Java entry to fixtures, for JUnit tests: run a fixture file of a project through the declared
 * model, or through any composite transform of your own, and assert on the verdict.
 *
 * <pre>{@code
 * StreamformFixtures.inProject(Paths.get("my-project"))
 *     .run("fixtures/late_event.yml",
 *          KeyedChangelog.by("customer_id").aggregating(Aggregation.sum("amount").as("total_spend")))
 *     .assertPassed();
 * }</pre>
 *
 * <p>A model written only in Java needs no {@code streamform.yml} or SQL: name the source of {@code
 * sources.yml} and the output columns the transform emits.
 *
 * <pre>{@code
 * StreamformFixtures.forSource(Paths.get("my-project"), "orders")
 *     .run("fixtures/late_event.yml",
 *          Map.of("customer_id", ColumnType.INT64, "total_spend", ColumnType.decimal(38, 2)),
 *          KeyedChangelog.by("customer_id").aggregating(Aggregation.sum("amount").as("total_spend")))
 *     .assertPassed();
 * }</pre>
 *
 * <p>A windowed model written in Java is a {@link WindowedAggregate}; its fixture's rows are
 * revisions (docs/semantics.md §6), typed by its key and aggregate columns:
 *
 * <pre>{@code
 * StreamformFixtures.forSource(Paths.get("hourly-revenue"), "orders")
 *     .run("fixtures/hourly_revenue.yml",
 *          Map.of("merchant_id", ColumnType.INT64, "revenue", ColumnType.decimal(38, 2)),
 *          WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
 *              .forModel("hourly_revenue")
 *              .by("merchant_id")
 *              .aggregating(Aggregation.sum("amount").as("revenue"))
 *              .withAllowedLateness(Duration.standardHours(24)))
 *     .assertPassed();
 * }</pre>
 *
 * <p>There the source's declared clock (event time, watermark, late events) applies — for a
 * windowed model with late events kept, since the window decides. A pipeline the author composed —
 * its own extraction and clock, steps after the changelog — runs with {@link #runPipeline}: the
 * fixture hands it the source's records and matches the changelog and late events it returns.
 *
 * <pre>{@code
 * StreamformFixtures.forSource(Paths.get("my-project"), "orders")
 *     .runPipeline("fixtures/late_event.yml",
 *         Map.of("customer_id", ColumnType.INT64, "total_spend", ColumnType.decimal(38, 2)),
 *         records -> {
 *           ClockResult clocked = records.apply(EventTimeExtraction.from("ordered_at")).events()
 *               .apply(SourceClock.forBoundedOutOfOrderness(Duration.standardMinutes(5)).withContiguousOffsets());
 *           PCollection<ChangelogRecord> changes = clocked.events()
 *               .apply(KeyedChangelog.by("customer_id").aggregating(Aggregation.sum("amount").as("total_spend")))
 *               .apply(Filter.by((ChangelogRecord r) -> r.op() == ChangelogRecord.Op.UPDATE));
 *           return ComposedResult.of(changes, clocked.late());
 *         })
 *     .assertPassed();
 * }</pre>
 *
 * <p>The fixture's {@code expect:} rows are typed by the output columns, and matched exactly as
 * {@code streamform test} matches them, with the same report. Items are delivered as a {@code
 * TestStream} ({@link #delivering} for another {@link Delivery}).
 */
public final class StreamformFixtures {
  private final Path dir;
  private final Project project; // null for a source without declared models
  private final SourceDeclaration source; // null for a project
  private final RunnerChoice runner;
  private final Delivery delivery;

  private StreamformFixtures(
      Path dir, Project project, SourceDeclaration source, RunnerChoice runner, Delivery delivery) {
    this.dir = dir;
    this.project = project;
    this.source = source;
    this.runner = runner;
    this.delivery = delivery;
  }

  /**
   * The fixtures of the project in {@code dir}, on the DirectRunner.
   *
   * @throws IllegalArgumentException listing every problem when the project is invalid
   */
  public static StreamformFixtures inProject(Path dir) {
    try {
      return new StreamformFixtures(
          dir, Project.load(dir), null, RunnerChoice.direct(), Delivery.testStreamBatches());
    } catch (InvalidProjectException e) {
      throw new IllegalArgumentException(describe(e));
    }
  }

  /**
   * The fixtures of a model written in Java whose events come from {@code sourceName} of {@code
   * dir/sources.yml}; only that file is read.
   *
   * @throws IllegalArgumentException listing every problem of sources.yml, or naming the sources
   */
  public static StreamformFixtures forSource(Path dir, String sourceName) {
    Map<String, SourceDeclaration> sources;
    try {
      sources = Project.loadSources(dir);
    } catch (InvalidProjectException e) {
      throw new IllegalArgumentException(describe(e));
    }
    SourceDeclaration source = sources.get(sourceName);
    if (source == null) {
      throw new IllegalArgumentException(
          "sources.yml has no source '"
              + sourceName
              + "'; sources: "
              + String.join(", ", sources.keySet()));
    }
    return new StreamformFixtures(
        dir, null, source, RunnerChoice.direct(), Delivery.testStreamBatches());
  }

  /** The same fixtures on another runner, e.g. {@code RunnerChoice.flinkLocal(2)}. */
  public StreamformFixtures on(RunnerChoice other) {
    return new StreamformFixtures(dir, project, source, other, delivery);
  }

  /**
   * The same fixtures with their items fed by {@code other}: e.g. {@link Delivery#createOf()}, as a
   * bounded source would feed them, or {@link Delivery#oneElementPerBatch()}.
   */
  public StreamformFixtures delivering(Delivery other) {
    return new StreamformFixtures(dir, project, source, runner, other);
  }

  /**
   * Runs {@code fixtureFile} (relative to the folder) through the source's declared clock, then
   * through {@code transform}, whose changelog has {@code outputColumns}.
   */
  public FixtureVerdict run(
      String fixtureFile,
      Map<String, ColumnType> outputColumns,
      PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> transform) {
    refuseColumnsNotProduced(outputColumns, transform);
    return judged(
        fixtureFile,
        outputColumns,
        (declared, fixture) -> runner().run(declared, fixture, transform, outputColumns));
  }

  /**
   * Runs {@code fixtureFile} (relative to the folder) through a pipeline of the author's own:
   * {@code pipeline} gets the source's records — {@code (partition, offset, Row)} as a {@code
   * PCollection<SourceRecord>} coded with {@code SourceRecordCoder} of the source's schema — and
   * returns its changelog (whose columns are {@code outputColumns}) and late events. The clock is
   * the pipeline's own; {@code sources.yml} gives the records' schema and event-time column.
   */
  public FixtureVerdict runPipeline(
      String fixtureFile,
      Map<String, ColumnType> outputColumns,
      Function<PCollection<SourceRecord>, ComposedResult> pipeline) {
    if (outputColumns == null || pipeline == null) {
      throw new IllegalArgumentException(
          "StreamformFixtures.runPipeline: pass the output columns and the pipeline, neither null");
    }
    return judged(
        fixtureFile,
        outputColumns,
        (declared, fixture) -> runner().runComposed(declared, fixture, pipeline, outputColumns));
  }

  private FixtureVerdict judged(
      String fixtureFile,
      Map<String, ColumnType> outputColumns,
      BiFunction<DeclaredSource, Fixture, FixtureOutcome> run) {
    named(fixtureFile);
    SourceDeclaration from = source;
    if (from == null) {
      Fixture declared = load(fixtureFile);
      from = project.sourceOf(project.models().get(declared.model()));
    }
    Fixture fixture;
    try {
      fixture = Fixture.load(dir.resolve(fixtureFile), from, outputColumns);
    } catch (InvalidProjectException e) {
      throw new IllegalArgumentException(describe(e));
    }
    DeclaredSource declared = DeclaredSource.of(from);
    return FixtureVerdict.judge(fixture, declared, run.apply(declared, fixture), outputColumns);
  }

  private FixtureRunner runner() {
    return FixtureRunner.on(runner).delivering(delivery);
  }

  /**
   * Runs {@code fixtureFile} (relative to the folder) of a windowed model written in Java: through
   * the source's declared clock, keeping late events, then through {@code windows}, whose key and
   * aggregate columns are {@code outputColumns}. The fixture's rows are read for {@code windows}'
   * windows.
   *
   * @throws IllegalArgumentException when the fixture has problems, or when {@code windows} are not
   *     windows a fixture can name: aligned to the epoch, their size a multiple of their period
   */
  public FixtureVerdict run(
      String fixtureFile, Map<String, ColumnType> outputColumns, WindowedAggregate windows) {
    if (outputColumns == null || windows == null) {
      refuseColumnsNotProduced(outputColumns, windows); // says that neither may be null
    }
    WindowSpec spec = windowsOf(windows); // windows a fixture cannot name are refused first
    refuseColumnsNotProduced(outputColumns, windows);
    named(fixtureFile);
    SourceDeclaration from = source;
    if (from == null) {
      Fixture declared = load(fixtureFile);
      from = project.sourceOf(project.models().get(declared.model()));
    }
    Fixture fixture;
    try {
      fixture = Fixture.load(dir.resolve(fixtureFile), from, outputColumns, spec);
    } catch (InvalidProjectException e) {
      throw new IllegalArgumentException(describe(e));
    }
    DeclaredSource declared = DeclaredSource.of(from);
    return FixtureVerdict.judge(
        fixture,
        declared,
        runner().run(declared, fixture, windows, outputColumns),
        outputColumns,
        windows);
  }

  /**
   * Runs {@code fixtureFile} of a project's windowed model through {@code windows} instead of the
   * model's declared query, with the model's output columns.
   */
  public FixtureVerdict run(String fixtureFile, WindowedAggregate windows) {
    DeclaredModel model = DeclaredModel.of(project, load(fixtureFile).model());
    return run(fixtureFile, model.outputColumns(), windows);
  }

  /**
   * Refuses an output column that {@code windows} does not produce (its key, as renamed by {@code
   * withKeyName}, and its aggregates' names): it would be compared as null on every row.
   */
  private static void refuseColumnsNotProduced(
      Map<String, ColumnType> outputColumns, WindowedAggregate windows) {
    if (outputColumns == null || windows == null) {
      throw new IllegalArgumentException(
          "StreamformFixtures.run: pass the output columns and the WindowedAggregate, neither"
              + " null");
    }
    java.util.List<String> produced = new java.util.ArrayList<>();
    for (String k : windows.keyColumns()) {
      produced.add(windows.keyNames().getOrDefault(k, k));
    }
    windows.aggregations().forEach(a -> produced.add(a.name()));
    Map<String, ColumnType> named = new java.util.LinkedHashMap<>(outputColumns);
    named.keySet().removeAll(java.util.List.of("window_start", "window_end")); // every row's
    refuseColumnsNotProduced(named, produced, "WindowedAggregate");
  }

  /**
   * As {@link #refuseColumnsNotProduced(Map, WindowedAggregate)} for a changelog written in Java: a
   * {@link KeyedChangelog} produces its key columns and its aggregates' names (another transform is
   * not looked into).
   */
  private static void refuseColumnsNotProduced(
      Map<String, ColumnType> outputColumns,
      PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> transform) {
    if (outputColumns == null || transform == null) {
      throw new IllegalArgumentException(
          "StreamformFixtures.run: pass the output columns and the transform, neither null");
    }
    if (transform instanceof KeyedChangelog) {
      KeyedChangelog changelog = (KeyedChangelog) transform;
      java.util.List<String> produced = new java.util.ArrayList<>(changelog.keyColumns());
      changelog.aggregations().forEach(a -> produced.add(a.name()));
      refuseColumnsNotProduced(outputColumns, produced, "KeyedChangelog");
    }
  }

  private static void refuseColumnsNotProduced(
      Map<String, ColumnType> outputColumns, java.util.List<String> produced, String what) {
    for (String column : outputColumns.keySet()) {
      if (!produced.contains(column)) {
        throw new IllegalArgumentException(
            "StreamformFixtures.run: the output columns name '"
                + column
                + "', which the "
                + what
                + " does not produce (its columns: "
                + String.join(", ", produced)
                + "): add its aggregate to .aggregating(..), e.g."
                + " Aggregation.countAll().as(\""
                + column
                + "\") or Aggregation.sum(\"<column>\").as(\""
                + column
                + "\"), or leave '"
                + column
                + "' out of the output columns");
      }
    }
  }

  /** The windows of {@code windows} as a fixture names them. */
  private static WindowSpec windowsOf(WindowedAggregate windows) {
    if (windows.calendar() != null) {
      dev.streamform.transforms.windows.CalendarWindow c = windows.calendar();
      return WindowSpec.calendar(
          WindowSpec.CalendarUnit.valueOf(c.unit().name()),
          java.time.ZoneId.of(c.zoneId()),
          true,
          c.weekStarts());
    }
    if (windows.offsetMillis() != 0) {
      throw new IllegalArgumentException(
          "a fixture names windows that start at multiples of"
              + " their period from the epoch (docs/semantics.md §6); these are offset by "
              + windows.offsetMillis()
              + "ms");
    }
    try {
      return WindowSpec.hopping(
          Duration.ofMillis(windows.sizeMillis()), Duration.ofMillis(windows.everyMillis()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "these windows cannot be named in a fixture: " + e.getMessage(), e);
    }
  }

  /** Runs {@code fixtureFile} (relative to the project) through its model's declared query. */
  public FixtureVerdict run(String fixtureFile) {
    Fixture fixture = load(fixtureFile);
    DeclaredModel model = DeclaredModel.of(project, fixture.model());
    return FixtureVerdict.judge(fixture, model, runner().run(model, fixture));
  }

  /** Runs {@code fixtureFile} through the declared clock, then through {@code transform}. */
  public FixtureVerdict run(
      String fixtureFile,
      PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> transform) {
    Fixture fixture = load(fixtureFile);
    DeclaredModel model = DeclaredModel.of(project, fixture.model());
    Optional<String> refusal = FixtureKind.of(model).changelogTransformRefusal();
    if (refusal.isPresent()) {
      throw new IllegalArgumentException(refusal.get());
    }
    refuseColumnsNotProduced(model.outputColumns(), transform);
    return FixtureVerdict.judge(
        fixture, model, runner().run(model, fixture, transform, model.outputColumns()));
  }

  /** Refuses a null or blank fixture file name, in one sentence. */
  private static void named(String fixtureFile) {
    if (fixtureFile == null || fixtureFile.isBlank()) {
      throw new IllegalArgumentException(
          "StreamformFixtures.run: name the fixture file, relative to the folder, e.g."
              + " \"fixtures/late_event.yml\"");
    }
  }

  private Fixture load(String fixtureFile) {
    named(fixtureFile);
    if (project == null) {
      throw new IllegalStateException(
          "no streamform.yml model for "
              + fixtureFile
              + ": pass the output columns and the transform, run(fixture, outputColumns,"
              + " transform)");
    }
    try {
      return Fixture.load(project, project.dir().resolve(fixtureFile));
    } catch (InvalidProjectException e) {
      throw new IllegalArgumentException(describe(e));
    }
  }

  private static String describe(InvalidProjectException e) {
    return e.problems().stream().map(Problem::toString).collect(Collectors.joining("\n"));
  }
}
