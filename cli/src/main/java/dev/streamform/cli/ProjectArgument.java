package dev.streamform.cli;

import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Problem;
import dev.streamform.policies.project.Project;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;

/** Loads a command's project argument, or prints every problem and how to go on. */
final class ProjectArgument {
  private ProjectArgument() {}

  /**
   * The project in {@code dir}; empty after printing each problem (file, line, fix) and a last line
   * pointing at {@code streamform check} to {@code err}.
   */
  static Optional<Project> load(Path dir, String command, PrintWriter err) {
    try {
      return Optional.of(Project.load(dir));
    } catch (InvalidProjectException e) {
      for (Problem problem : e.problems()) {
        err.println(problem);
      }
      err.println(
          "streamform "
              + command
              + ": fix the problems above first (streamform check "
              + dir
              + ")");
      return Optional.empty();
    }
  }
}
