package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureVerdict;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.oracle.Oracle;
import dev.streamform.teststreams.oracle.WindowedOracle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.stream.Stream;

/** The seed's fixture projects, and copies of them with a fixture or declaration rewritten. */
final class FixtureProjects {
  /** test-streams/fixtures/time, wherever Maven runs the tests from. */
  static final Path TIME = under("fixtures/time").toAbsolutePath();

  /** test-streams/{@code relative}, wherever Maven runs the tests from (the module or the root). */
  static Path under(String relative) {
    for (Path p : new Path[] {Paths.get(relative), Paths.get("test-streams").resolve(relative)}) {
      if (Files.isDirectory(p)) {
        return p;
      }
    }
    throw new IllegalStateException(relative + " not found from " + Paths.get("").toAbsolutePath());
  }

  /** A copy of seed project {@code name} in {@code dir}, without its fixtures. */
  static Path copy(String name, Path dir) {
    return copy(TIME.resolve(name), dir);
  }

  /** A copy of the fixture project at {@code from} in {@code dir}, without its fixtures. */
  static Path copy(Path from, Path dir) {
    Path to = dir.resolve(from.getFileName().toString());
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else if (!from.relativize(f).startsWith("fixtures")) {
          Files.copy(f, target);
        }
      }
      Files.createDirectories(to.resolve("fixtures"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return to;
  }

  static Path write(Path project, String relative, String text) {
    try {
      Path f = project.resolve(relative);
      Files.createDirectories(f.getParent());
      Files.writeString(f, text);
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Rewrites file {@code relative} of {@code project} with {@code from} replaced by {@code to}: a
   * seed's declaration changed for one test.
   *
   * @throws IllegalStateException when the file does not hold {@code from}, so that a replacement
   *     gone stale fails rather than leaving the seed's declaration as it was
   */
  static void replace(Path project, String relative, String from, String to) {
    String text = read(project.resolve(relative));
    if (!text.contains(from)) {
      throw new IllegalStateException(relative + " of " + project + " does not hold: " + from);
    }
    write(project, relative, text.replace(from, to));
  }

  /**
   * Writes {@code text} as fixture {@code relative} of {@code project} and runs it as the test
   * command does; it must pass.
   */
  static FixtureVerdict passes(Path project, String relative, String text) {
    write(project, relative, text);
    FixtureVerdict v = StreamformFixtures.inProject(project).run(relative);
    v.assertPassed();
    return v;
  }

  /**
   * Runs fixture {@code relative} of {@code project} for upsert or windowed model {@code modelName}
   * on the DirectRunner and the oracle: the DirectRunner quarantines {@code quarantined} events and
   * the oracle's outcome is the DirectRunner's.
   */
  static void assertOracleAgrees(Path project, String relative, String modelName, int quarantined)
      throws Exception {
    Project loaded = Project.load(project);
    Fixture fixture = Fixture.load(loaded, project.resolve(relative));
    DeclaredModel model = DeclaredModel.of(loaded, modelName);
    FixtureOutcome oracle =
        model.windowed()
            ? WindowedOracle.of(model).outcome(fixture)
            : Oracle.of(model).run(fixture);
    FixtureOutcome direct = FixtureRunner.on(RunnerChoice.direct()).run(model, fixture);
    assertThat(direct.quarantined, hasSize(quarantined));
    assertThat(oracle.canonical(), is(direct.canonical()));
  }

  static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private FixtureProjects() {}
}
