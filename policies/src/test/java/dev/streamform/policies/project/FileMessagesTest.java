package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Messages about files as people write them, saying what is really wrong. */
class FileMessagesTest {
  @TempDir Path dir;

  private String firstProblem(ProjectFolder folder) {
    return assertThrows(InvalidProjectException.class, folder::load).problems().get(0).toString();
  }

  @Test
  void aModelNameWithANonAsciiLetterSaysAsciiLetters() {
    ProjectFolder folder =
        ProjectFolder.seed(dir)
            .models(ProjectFolder.MODELS.replace("customer_metrics", "umsatz_größe"))
            .sql("umsatz_größe", ProjectFolder.SQL);
    assertThat(
        firstProblem(folder),
        is(
            "streamform.yml:2: key 'umsatz_größe': 'umsatz_größe' is not a usable model name (it"
                + " names models/umsatz_größe.sql) — use ASCII letters (a-z, A-Z), digits and _"
                + " (starting with a letter or _)"));
  }

  @Test
  void aSecondDocumentSaysAFileHoldsOne() {
    ProjectFolder folder =
        ProjectFolder.seed(dir).models(ProjectFolder.MODELS + "---\nmodels: {}\n");
    assertThat(
        firstProblem(folder),
        is(
            "streamform.yml:5: malformed YAML: expected a single document in the stream: but found"
                + " another document — a file holds one YAML document: remove the --- line and"
                + " what follows it, or merge it into the first"));
  }

  @Test
  void aMergeKeyIsSaidToBeNotTaken() {
    ProjectFolder folder =
        ProjectFolder.seed(dir)
            .sources(
                ProjectFolder.SOURCES.replace(
                    "    late_events: drop", "    <<: {late_events: drop}"));
    assertThat(
        firstProblem(folder),
        is(
            "sources.yml:12: source 'orders', key '<<': a YAML merge key (<<) is not taken"
                + " — write the keys out in full"));
  }

  @Test
  void anInvisibleCharacterInAValueIsNamedWithWhereItIs() {
    ProjectFolder folder =
        ProjectFolder.seed(dir)
            .sources(ProjectFolder.SOURCES.replace("watermark: 5m", "watermark: 5\u00A0m"));
    assertThat(
        firstProblem(folder).contains("holds a no-break space (U+00A0) at character 2"), is(true));
  }

  @Test
  void aSuggestedNameWithAnInvisibleCharacterSaysSo() {
    ProjectFolder folder =
        ProjectFolder.seed(dir)
            .sources(ProjectFolder.SOURCES.replace("amount: decimal", "amount\u200B: decimal"));
    String problem = firstProblem(folder);
    assertThat(
        problem,
        problem.contains("`amount\u200B` (it holds a zero-width space (U+200B) at character 7)"),
        is(true));
  }

  /**
   * A fixture's problems name its file relative to the project folder, however the folder was
   * given: relative, or as "." (found by a read-only audit of the newcomer's path: "fx/fixtures/
   * a.yml:3" and "./fixtures/a.yml:3", where sources.yml's problems said "sources.yml:11").
   */
  @Test
  void aFixturesProblemNamesItsFileRelativeToTheProjectHoweverTheFolderIsGiven() throws Exception {
    ProjectFolder.seed(dir);
    java.nio.file.Files.createDirectories(dir.resolve("fixtures"));
    java.nio.file.Files.writeString(
        dir.resolve("fixtures/a.yml"),
        "model: customer_metrics\ngiven:\n  - event: { customer_id: 1, amount: 1, ordered_at:"
            + " \"10:00:00\" }\nexpect: []\n");
    Path relative = Path.of("").toAbsolutePath().relativize(dir);
    for (Path folder : java.util.List.of(relative, relative.resolve("."), dir)) {
      Project project = Project.load(folder);
      String problem =
          assertThrows(
                  InvalidProjectException.class,
                  () -> Fixture.load(project, folder.resolve("fixtures/a.yml")))
              .problems()
              .get(0)
              .toString();
      assertThat(problem, org.hamcrest.Matchers.startsWith("fixtures/a.yml:3: "));
    }
  }
}
