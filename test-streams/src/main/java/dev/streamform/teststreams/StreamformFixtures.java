package dev.streamform.teststreams;

import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Problem;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.model.DeclaredModel;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.TimedEvent;
import java.nio.file.Path;
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
 * <p>The source's declared clock (event time, watermark, late events) always applies; the
 * fixture's {@code expect:} rows are typed by the model's declared output columns, and matched
 * exactly as {@code streamform test} matches them.
 */
public final class StreamformFixtures {
  private final Project project;
  private final RunnerChoice runner;

  private StreamformFixtures(Project project, RunnerChoice runner) {
    this.project = project;
    this.runner = runner;
  }

  /**
   * The fixtures of the project in {@code dir}, on the DirectRunner.
   *
   * @throws IllegalArgumentException listing every problem when the project is invalid
   */
  public static StreamformFixtures inProject(Path dir) {
    try {
      return new StreamformFixtures(Project.load(dir), RunnerChoice.direct());
    } catch (InvalidProjectException e) {
      throw new IllegalArgumentException(describe(e));
    }
  }

  /** The same fixtures on another runner, e.g. {@code RunnerChoice.flinkLocal(2)}. */
  public StreamformFixtures on(RunnerChoice other) {
    return new StreamformFixtures(project, other);
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
