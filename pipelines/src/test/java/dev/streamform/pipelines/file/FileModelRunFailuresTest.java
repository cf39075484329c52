package dev.streamform.pipelines.file;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Project;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run on files that cannot be read: said before the job starts, in plain words; and a job that
 * fails leaves no temporary parts behind in the output folder.
 */
class FileModelRunFailuresTest {
  private static final Path GETTING_STARTED = Path.of("../examples/getting-started");

  @TempDir Path dir;

  private Path project() throws Exception {
    Path copy = dir.resolve("project");
    try (Stream<Path> all = Files.walk(GETTING_STARTED)) {
      for (Path f : (Iterable<Path>) all::iterator) {
        Path to = copy.resolve(GETTING_STARTED.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to);
        }
      }
    }
    return copy;
  }

  /** Root reads any file whatever its mode: the refusal is the file system's exception. */
  @Test
  void aFileThatCannotBeReadIsSaidWithItsReasonAndTheFix() {
    Path file = dir.resolve("payments.jsonl");

    IllegalArgumentException refused =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                FileModelRun.checkReadable(
                    List.of(file),
                    f -> {
                      throw new AccessDeniedException(f.toString());
                    }));

    assertThat(
        refused.getMessage(),
        is(file + ": cannot be read: permission denied — check the file's permissions"));
  }

  /** A file gone after the run was planned fails the job: its parts go too. */
  @Test
  void aJobThatFailsLeavesNoPartsInTheOutputFolder() throws Exception {
    Path project = project();
    FileModelRun run =
        FileModelRun.of(DeclaredModel.of(Project.load(project), "hourly_revenue"), project);
    Files.delete(project.resolve("payments.jsonl"));
    Path out = dir.resolve("out");

    assertThrows(
        RuntimeException.class,
        () -> run.run(PipelineOptionsFactory.create(), FileModelRun.Target.folder(out), null, 0));

    try (Stream<Path> left = Files.list(out)) {
      assertThat(
          left.map(p -> p.getFileName().toString()).collect(Collectors.toList()), is(empty()));
    }
  }
}
