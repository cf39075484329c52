package dev.streamform.teststreams;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fixture the README shows runs first time, as a user who read only the README would. */
class ReadmeFixtureTest {
  @TempDir Path dir;

  @Test
  void theReadmeFixturePasses() throws Exception {
    Path readme = Files.isRegularFile(Paths.get("../README.md")) ? Paths.get("../README.md") : Paths.get("README.md");
    String text = Files.readString(readme);
    int start = text.indexOf("```yaml\nmodel: customer_metrics");
    String yaml = text.substring(text.indexOf('\n', start) + 1, text.indexOf("```", start + 7));
    Path project = FixtureProjects.copy("late-event", dir);
    FixtureProjects.write(project, "fixtures/readme.yml", yaml);
    StreamformFixtures.inProject(project).run("fixtures/readme.yml").assertPassed();
  }
}
