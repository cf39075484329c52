package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fixture files as people and editors leave them: keys without values, hidden and backup files, an
 * upper-case extension, two files of one name, something that is not a file.
 */
class FixtureDiscoveryTest {
  @TempDir Path dir;

  private String refusal(String text) throws Exception {
    Project project = ProjectFolder.seed(dir).load();
    ProjectFolder.at(dir).write("fixtures/f.yml", text);
    return assertThrows(
            InvalidProjectException.class,
            () -> Fixture.load(project, dir.resolve("fixtures/f.yml")))
        .problems()
        .get(0)
        .toString();
  }

  @Test
  void givenWithNoValueIsRefusedLikeAnyRequiredKey() throws Exception {
    String empty = refusal("model: customer_metrics\ngiven:\nexpect: []\n");
    assertThat(
        empty.startsWith("fixtures/f.yml:2: key 'given': has no value — list the delivered items"),
        is(true));
    String tilde = refusal("model: customer_metrics\n\ngiven: ~\n");
    assertThat(tilde.startsWith("fixtures/f.yml:3: key 'given': has no value"), is(true));
  }

  private static final String FIXTURE =
      "model: customer_metrics\ngiven:\n  - event: { customer_id: 1, amount: 1,"
          + " ordered_at: \"2026-08-30T10:00:00Z\" }\n";

  private List<String> found() {
    return Fixture.filesOfFolder(dir).stream().map(f -> f.getFileName().toString()).toList();
  }

  @Test
  void hiddenAndBackupFilesAreNoFixturesAsTheyStartNoWatchRun() throws Exception {
    ProjectFolder.seed(dir);
    ProjectFolder folder = ProjectFolder.at(dir);
    for (String name : List.of("a.yml", ".old_copy.yml", "._a.yml", "a.yml~", "#a.yml#")) {
      folder.write("fixtures/" + name, FIXTURE);
    }
    assertThat(found(), is(List.of("a.yml")));
  }

  @Test
  void aNameStartingWithAHashIsAFixtureUnlessItAlsoEndsWithOne() throws Exception {
    ProjectFolder.seed(dir);
    ProjectFolder folder = ProjectFolder.at(dir);
    for (String name : List.of("#42-regression.yml", "#a.yml#")) {
      folder.write("fixtures/" + name, FIXTURE);
    }
    assertThat(found(), is(List.of("#42-regression.yml")));
  }

  @Test
  void anUpperCaseExtensionIsAFixture() throws Exception {
    ProjectFolder.seed(dir);
    ProjectFolder folder = ProjectFolder.at(dir);
    for (String name : List.of("a.YML", "b.Yaml", "c.yml", "notes.txt")) {
      folder.write("fixtures/" + name, FIXTURE);
    }
    assertThat(found(), is(List.of("a.YML", "b.Yaml", "c.yml")));
    Project project = ProjectFolder.at(dir).load();
    assertThat(Fixture.load(project, dir.resolve("fixtures/a.YML")).name(), is("a"));
  }

  @Test
  void onlyRegularFilesAreFixtures() throws Exception {
    ProjectFolder.seed(dir);
    ProjectFolder.at(dir).write("fixtures/a.yml", FIXTURE);
    Files.createDirectories(dir.resolve("fixtures/folder.yml"));
    Process mkfifo =
        new ProcessBuilder("mkfifo", dir.resolve("fixtures/pipe.yml").toString()).start();
    assertThat(mkfifo.waitFor(), is(0));
    assertThat(found(), is(List.of("a.yml")));
  }

  @Test
  void twoFilesOfOneFixtureNameAreRefused() throws Exception {
    Project project = ProjectFolder.seed(dir).load();
    ProjectFolder.at(dir).write("fixtures/x.yaml", FIXTURE).write("fixtures/x.yml", FIXTURE);
    Fixture.load(project, dir.resolve("fixtures/x.yaml"));
    String refused =
        assertThrows(
                InvalidProjectException.class,
                () -> Fixture.load(project, dir.resolve("fixtures/x.yml")))
            .problems()
            .get(0)
            .toString();
    assertThat(
        refused,
        is(
            "fixtures/x.yml: is fixture 'x', as fixtures/x.yaml is: a fixture's name is its file"
                + " name without .yml or .yaml — rename one of them, or remove one"));
  }
}
