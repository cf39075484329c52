package dev.streamform.policies.project;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A key given twice is one problem, said once, whichever reader of the file comes across it. */
class DuplicateKeysTest {
  @TempDir Path dir;

  @Test
  void aTopLevelKeyOfStreamformYmlGivenTwiceIsSaidOnce() throws Exception {
    ProjectFolder folder =
        ProjectFolder.seed(dir)
            .models(
                ProjectFolder.MODELS
                    + "gates:\n  publication_latency_p99: 30s\n"
                    + "gates:\n  publication_latency_p99: 10s\n");
    List<String> problems =
        assertThrows(InvalidProjectException.class, folder::load).problems().stream()
            .map(Problem::toString)
            .toList();
    assertThat(
        problems,
        is(
            List.of(
                "streamform.yml:7: key 'gates': is given twice (first on line 5) — keep one of"
                    + " them")));
  }

  @Test
  void aKeyUnderGatesGivenTwiceIsSaidOnce() throws Exception {
    ProjectFolder folder =
        ProjectFolder.seed(dir)
            .models(
                ProjectFolder.MODELS
                    + "gates:\n  publication_latency_p99: 30s\n  publication_latency_p99: 10s\n");
    assertThat(assertThrows(InvalidProjectException.class, folder::load).problems().size(), is(1));
  }

  /**
   * A key column named many times is one problem saying how many: 200,000 repeats printed 200,000
   * identical lines (found by a read-only audit of the command line).
   */
  @Test
  void aKeyColumnNamedManyTimesIsOneProblem() throws Exception {
    String key = String.join(", ", java.util.Collections.nCopies(1000, "customer_id"));
    ProjectFolder folder =
        ProjectFolder.seed(dir)
            .models(ProjectFolder.MODELS.replace("key: [customer_id]", "key: [" + key + "]"));
    List<String> problems =
        assertThrows(InvalidProjectException.class, folder::load).problems().stream()
            .map(Problem::toString)
            .toList();
    assertThat(
        problems,
        is(
            List.of(
                "streamform.yml:4: model 'customer_metrics', key 'key': names 'customer_id' 1000"
                    + " times — list each key column once")));
  }

  /**
   * A file of aliases that would expand to billions of values (a "billion laughs") is refused in
   * words a reader can act on, not in the YAML parser's ("Number of aliases for non-scalar nodes
   * exceeds the specified max=50"; found by a read-only audit of the command line).
   */
  @Test
  void aFileOfTooManyAliasesIsSaidInPlainWords() throws Exception {
    StringBuilder bomb = new StringBuilder("a: &a [\"lol\", \"lol\"]\n");
    for (char c = 'b'; c <= 'h'; c++) {
      String prev = "*" + (char) (c - 1);
      bomb.append(c)
          .append(": &")
          .append(c)
          .append(" [")
          .append(String.join(", ", java.util.Collections.nCopies(9, prev)))
          .append("]\n");
    }
    ProjectFolder folder = ProjectFolder.seed(dir).models(bomb + ProjectFolder.MODELS);
    List<String> problems =
        assertThrows(InvalidProjectException.class, folder::load).problems().stream()
            .map(Problem::toString)
            .toList();
    assertThat(
        problems,
        is(
            List.of(
                "streamform.yml: uses more than 50 aliases (*name) of lists or maps, the most a"
                    + " project file may (a guard against a file that expands to billions of"
                    + " values) — write the values out, or repeat them with fewer aliases")));
  }
}
