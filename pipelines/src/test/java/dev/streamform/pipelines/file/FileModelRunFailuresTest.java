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

    // the folder's lock file stays (docs/decisions/0101); nothing else does
    try (Stream<Path> left = Files.list(out)) {
      assertThat(
          left.map(p -> p.getFileName().toString())
              .filter(n -> !n.equals(OutputFolder.LOCK_FILE))
              .collect(Collectors.toList()),
          is(empty()));
    }
  }

  /**
   * A run stopped between two of its moves (kill -9 there, simulated by a move that fails) leaves
   * the new changelog beside the old late file: the folder says so until a whole run replaces it.
   */
  @Test
  void aRunStoppedBetweenItsMovesLeavesTheFolderMarkedIncomplete() throws Exception {
    Path project = project();
    DeclaredModel model = DeclaredModel.of(Project.load(project), "hourly_revenue");
    Path out = dir.resolve("out");
    FileModelRun.of(model, project)
        .run(PipelineOptionsFactory.create(), FileModelRun.Target.folder(out), null, 0);
    assertThat(OutputFolder.incomplete(out).isPresent(), is(false));
    FileModelRun stopped = FileModelRun.of(model, project);
    int[] moves = {0};
    stopped.mover =
        (from, to) -> {
          if (++moves[0] == 2) {
            throw new java.io.IOException("killed between moves");
          }
          FileModelRun.MOVE.move(from, to);
        };

    assertThrows(
        java.io.IOException.class,
        () ->
            stopped.run(PipelineOptionsFactory.create(), FileModelRun.Target.folder(out), null, 0));

    assertThat(
        OutputFolder.incomplete(out).orElse("none"),
        org.hamcrest.Matchers.startsWith(
            "the outputs in " + out + " are an incomplete set: a run (pid "));
    FileModelRun.of(model, project)
        .run(PipelineOptionsFactory.create(), FileModelRun.Target.folder(out), null, 0);
    assertThat(OutputFolder.incomplete(out).isPresent(), is(false));
  }
}
