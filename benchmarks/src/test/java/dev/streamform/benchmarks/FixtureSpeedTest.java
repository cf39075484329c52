package dev.streamform.benchmarks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasSize;

import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated large fixture (small here, so the test stays quick): it is a pure function of its
 * arguments, it reads back as a fixture with the asked-for events, its oracle answer lists late
 * events, and the DirectRunner passes it — what {@link FixtureSpeed} times must be a right answer.
 */
class FixtureSpeedTest {
  @TempDir Path dir;

  private static Path template() {
    Path inModule = Path.of("project");
    return Files.isDirectory(inModule) ? inModule : Path.of("benchmarks/project");
  }

  @Test
  void theGeneratedFixtureIsReproducibleAndPassesOnTheDirectRunner() throws Exception {
    FixtureSpeed.writeLargeProject(template(), dir.resolve("a"), 300, 20, 7);
    FixtureSpeed.writeLargeProject(template(), dir.resolve("b"), 300, 20, 7);
    String yaml = Files.readString(dir.resolve("a/fixtures/large.yml"));
    assertThat(yaml, equalTo(Files.readString(dir.resolve("b/fixtures/large.yml"))));

    Fixture fixture =
        Fixture.load(Project.load(dir.resolve("a")), dir.resolve("a/fixtures/large.yml"));
    assertThat(fixture.given(), hasSize(300));
    assertThat(fixture.late().size(), greaterThan(0));
    assertThat(fixture.expect().size(), greaterThan(0));

    StringWriter out = new StringWriter();
    FixtureSuite suite =
        new FixtureSuite(FixtureRunner.on(RunnerChoice.direct()), new PrintWriter(out));
    assertThat(out.toString(), suite.run(dir.resolve("a")), equalTo(true));
    assertThat(out.toString(), containsString("large (model customer_metrics)\nPASS\n"));
  }
}
