package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A folder or file inside a project given where a command takes the project folder (the audit gave
 * {@code gs/fixtures} to test and {@code gs/fixtures/hourly_revenue.yml} to run): the commands say
 * to give the project folder, not to create sources.yml and streamform.yml in the wrong place.
 */
class NotAProjectFolderTest {
  /** The seed's late-event project, from this module's folder (Maven runs tests there). */
  private static final Path PROJECT = Path.of("../test-streams/fixtures/time/late-event");

  private static final Path FIXTURES = PROJECT.resolve("fixtures");
  private static final Path FIXTURE = FIXTURES.resolve("late_event.yml");

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  private String printed() {
    return out.toString() + err.toString();
  }

  @Test
  void checkOfTheFixturesFolderSaysToGiveTheProjectFolder() {
    assertThat(run("check", FIXTURES.toString()), is(1));
    assertThat(
        err.toString(),
        is(
            FIXTURES
                + ": is a folder inside project "
                + PROJECT
                + ", not a project folder — give the project folder "
                + PROJECT
                + " (streamform test also takes a fixture file)\n"
                + "1 problem\n"));
  }

  @Test
  void testOfTheFixturesFolderSaysToGiveTheProjectFolderOrAFixtureFile() {
    assertThat(run("test", FIXTURES.toString()), is(1));
    assertThat(
        printed(),
        containsString(
            FIXTURES
                + ": is a folder inside project "
                + PROJECT
                + ", not a project folder — give the project folder "
                + PROJECT
                + " (streamform test also takes a fixture file)"));
    assertThat(printed(), not(containsString("create it")));
  }

  @Test
  void runOfAFixtureFileSaysRunTakesTheProjectFolder() {
    assertThat(run("run", FIXTURE.toString()), is(1));
    assertThat(
        err.toString(),
        is(
            FIXTURE
                + ": is a file inside project "
                + PROJECT
                + ", not a project folder — give the project folder "
                + PROJECT
                + " (streamform test also takes a fixture file)\n"
                + "streamform run takes the project folder: streamform run "
                + PROJECT
                + " (streamform test "
                + FIXTURE
                + " runs the fixture)\n"));
  }

  @Test
  void aFixturesFolderOutsideAnyProjectSaysItHoldsFixtures() throws IOException {
    Path fixtures = Files.createDirectories(dir.resolve("fixtures"));
    Files.writeString(fixtures.resolve("f.yml"), "model: m\ngiven: []\nexpect: []\n");
    assertThat(run("check", fixtures.toString()), is(1));
    assertThat(
        err.toString(),
        is(
            fixtures
                + ": holds fixtures, not a project — give the project folder (the one that holds"
                + " sources.yml, streamform.yml and models/)\n"
                + "1 problem\n"));
  }

  /**
   * The hint finds fixtures as fixture discovery does: {@code .yaml} and any case, but no hidden or
   * backup file; it looked for lower-case {@code *.yml} only.
   */
  @Test
  void theFixturesHintFindsFixturesAsTestDoes() throws IOException {
    for (String name : java.util.List.of("f.yaml", "F.YML", "f.Yaml")) {
      Path fixtures = Files.createDirectories(dir.resolve(name + "-case").resolve("fixtures"));
      Files.writeString(fixtures.resolve(name), "model: m\ngiven: []\nexpect: []\n");
      out.getBuffer().setLength(0);
      err.getBuffer().setLength(0);
      assertThat(run("check", fixtures.toString()), is(1));
      assertThat(
          name, err.toString(), containsString(fixtures + ": holds fixtures, not a project"));
    }
    Path scratch = Files.createDirectories(dir.resolve("scratch").resolve("fixtures"));
    Files.writeString(scratch.resolve("f.yml~"), "model: m\ngiven: []\nexpect: []\n");
    Files.writeString(scratch.resolve(".f.yml"), "model: m\ngiven: []\nexpect: []\n");
    err.getBuffer().setLength(0);
    assertThat(run("check", scratch.toString()), is(1));
    assertThat(err.toString(), not(containsString("holds fixtures")));
  }

  @Test
  void anEmptyFolderStillSaysWhatAProjectNeeds() throws IOException {
    assertThat(run("check", dir.toString()), is(1));
    assertThat(err.toString(), containsString("sources.yml: not found in " + dir));
  }

  @Test
  void anEmptyFolderInsideAProjectSaysItIsEmptyAndNamesTheProjectFolder() throws IOException {
    // the user may have meant the project, or be starting a new project there: say both
    Path project = Files.createDirectories(dir.resolve("p"));
    Files.writeString(project.resolve("sources.yml"), "sources: {}\n");
    Path empty = Files.createDirectories(project.resolve("new"));
    assertThat(run("check", empty.toString()), is(1));
    assertThat(
        err.toString(),
        is(
            empty
                + ": is an empty folder inside project "
                + project
                + ", nothing in it to check — give the project folder "
                + project
                + ", or create sources.yml and streamform.yml in "
                + empty
                + " for a project of its own\n"
                + "1 problem\n"));
  }

  @Test
  void runOfAFixtureFileOutsideAnyProjectSaysItIsNotInAProject() throws IOException {
    // streamform check of the file would only say again that it is a file: not a way on
    Path fixtures = Files.createDirectories(dir.resolve("fixtures"));
    Path fixture = Files.writeString(fixtures.resolve("f.yml"), "model: m\ngiven: []\n");
    assertThat(run("run", fixture.toString()), is(1));
    assertThat(err.toString(), not(containsString("streamform check")));
    assertThat(
        err.toString(),
        containsString(
            "streamform run: "
                + fixture
                + " is a fixture file that is not inside a project (the folder above its"
                + " fixtures/ holds no sources.yml or streamform.yml) — give the project folder,"
                + " and to run the fixture put it in that project's fixtures/ and give it to"
                + " streamform test\n"));
  }
}
