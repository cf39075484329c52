package dev.streamform.teststreams;

import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Problem;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.teststreams.model.DeclaredModel;
import dev.streamform.teststreams.model.DeclaredSource;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.TimedEvent;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;

/**
 * The Java entry to fixtures, for JUnit tests: run a fixture file of a project through the
 * declared model, or through any composite transform of your own, and assert on the verdict.
 *
 * <pre>{@code
 * StreamformFixtures.inProject(Paths.get("my-project"))
 *     .run("fixtures/late_event.yml",
 *          KeyedChangelog.by("customer_id").aggregating(Aggregation.sum("amount").as("total_spend")))
 *     .assertPassed();
 * }</pre>
 *
 * <p>A model written only in Java needs no {@code streamform.yml} or SQL: name the source of
 * {@code sources.yml} and the output columns the transform emits.
 *
 * <pre>{@code
 * StreamformFixtures.forSource(Paths.get("my-project"), "orders")
 *     .run("fixtures/late_event.yml",
 *          Map.of("customer_id", ColumnType.INT64, "total_spend", ColumnType.decimal(38, 2)),
 *          KeyedChangelog.by("customer_id").aggregating(Aggregation.sum("amount").as("total_spend")))
 *     .assertPassed();
 * }</pre>
 *
 * <p>The source's declared clock (event time, watermark, late events) always applies; the
 * fixture's {@code expect:} rows are typed by the model's output columns, and matched exactly as
 * {@code streamform test} matches them.
 */
public final class StreamformFixtures {
  private final Path dir;
  private final Project project; // null for a source without declared models
  private final SourceDeclaration source; // null for a project
  private final RunnerChoice runner;

  private StreamformFixtures(
      Path dir, Project project, SourceDeclaration source, RunnerChoice runner) {
    this.dir = dir;
    this.project = project;
    this.source = source;
    this.runner = runner;
  }

  /**
   * The fixtures of the project in {@code dir}, on the DirectRunner.
   *
   * @throws IllegalArgumentException listing every problem when the project is invalid
   */
  public static StreamformFixtures inProject(Path dir) {
    try {
      return new StreamformFixtures(dir, Project.load(dir), null, RunnerChoice.direct());
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
      throw new IllegalArgumentException("sources.yml has no source '" + sourceName + "'; sources: "
          + String.join(", ", sources.keySet()));
    }
    return new StreamformFixtures(dir, null, source, RunnerChoice.direct());
  }

  /** The same fixtures on another runner, e.g. {@code RunnerChoice.flinkLocal(2)}. */
  public StreamformFixtures on(RunnerChoice other) {
    return new StreamformFixtures(dir, project, source, other);
  }

  /**
   * Runs {@code fixtureFile} (relative to the folder) through the source's declared clock, then
   * through {@code transform}, whose changelog has {@code outputColumns}.
   */
  public FixtureVerdict run(
      String fixtureFile,
      Map<String, ColumnType> outputColumns,
      PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> transform) {
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
    return FixtureVerdict.judge(
        fixture,
        declared,
        FixtureRunner.on(runner).run(declared, fixture, transform, outputColumns),
        outputColumns);
  }

  /** Runs {@code fixtureFile} (relative to the project) through its model's declared query. */
  public FixtureVerdict run(String fixtureFile) {
    Fixture fixture = load(fixtureFile);
    DeclaredModel model = DeclaredModel.of(project, fixture.model());
    return FixtureVerdict.judge(fixture, model, FixtureRunner.on(runner).run(model, fixture));
  }

  /** Runs {@code fixtureFile} through the declared clock, then through {@code transform}. */
  public FixtureVerdict run(
      String fixtureFile,
      PTransform<PCollection<TimedEvent>, PCollection<ChangelogRecord>> transform) {
    Fixture fixture = load(fixtureFile);
    DeclaredModel model = DeclaredModel.of(project, fixture.model());
    return FixtureVerdict.judge(
        fixture,
        model,
        FixtureRunner.on(runner).run(model, fixture, transform, model.outputColumns()));
  }

  private Fixture load(String fixtureFile) {
    if (project == null) {
      throw new IllegalStateException("no streamform.yml model for " + fixtureFile
          + ": pass the output columns and the transform, run(fixture, outputColumns, transform)");
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
