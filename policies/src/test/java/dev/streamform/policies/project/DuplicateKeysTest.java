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
}
