package dev.streamform.teststreams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;

import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fixtures the docs show run first time, as a user who read only the docs would. */
class ReadmeFixtureTest {
  @TempDir Path dir;

  /** The pages that show these fixtures: the windowed-models and fixtures guides. */
  private static String readme() throws Exception {
    Path docs = Files.isDirectory(Paths.get("../docs")) ? Paths.get("../docs") : Paths.get("docs");
    return Files.readString(docs.resolve("guides/windowed-models.md"))
        + Files.readString(docs.resolve("guides/fixtures.md"));
  }

  @Test
  void theWindowedWorkedExampleIsTheSeedProjectAndPrintsWhatTheReadmeShows() throws Exception {
    String text = readme();
    Path project = FixtureProjects.TIME.resolve("hourly-revenue");
    for (String[] file :
        new String[][] {
          {"yaml", "sources.yml"},
          {"yaml", "streamform.yml"},
          {"sql", "models/hourly_revenue.sql"},
          {"yaml", "fixtures/hourly_revenue.yml"}
        }) {
      String shown = "`" + file[1] + "`";
      assertThat(
          file[1],
          text,
          containsString(
              "```" + file[0] + "\n" + FixtureProjects.read(project.resolve(file[1])) + "```"));
      assertThat(text, containsString(shown));
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new FixtureSuite(
            FixtureRunner.on(RunnerChoice.direct()),
            new PrintWriter(bytes, true, StandardCharsets.UTF_8))
        .run(project.resolve("fixtures/hourly_revenue.yml"));
    String printed = bytes.toString(StandardCharsets.UTF_8);
    assertThat(
        text,
        containsString(
            "$ ./streamform test"
                + " test-streams/fixtures/time/hourly-revenue/fixtures/hourly_revenue.yml\n"
                + printed
                + "```"));
  }

  @Test
  void theReadmeFixturePasses() throws Exception {
    String text = readme();
    int start = text.indexOf("```yaml\nmodel: customer_metrics");
    String yaml = text.substring(text.indexOf('\n', start) + 1, text.indexOf("```", start + 7));
    Path project = FixtureProjects.copy("late-event", dir);
    FixtureProjects.write(project, "fixtures/readme.yml", yaml);
    StreamformFixtures.inProject(project).run("fixtures/readme.yml").assertPassed();
  }
}
