package dev.streamform.cli;

import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Problem;
import dev.streamform.policies.project.Project;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

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
      Optional<Path> project = Project.folderHolding(dir);
      if (project.isPresent()) {
        // checking the file or folder given would only say the same again
        err.println(
            "streamform "
                + command
                + " takes the project folder: streamform "
                + command
                + " "
                + project.get()
                + (Project.isFixtureFile(dir)
                    ? " (streamform test " + dir + " runs the fixture)"
                    : ""));
      } else if (Project.isFixtureFile(dir)) {
        // checking the file would only say again that it is a file: say where a fixture belongs
        err.println(
            "streamform "
                + command
                + ": "
                + dir
                + " is a fixture file that is not inside a project (the folder above its"
                + " fixtures/ holds no sources.yml or streamform.yml) — give the project folder,"
                + " and to run the fixture put it in that project's fixtures/ and give it to"
                + " streamform test");
      } else {
        err.println(
            "streamform "
                + command
                + ": fix the problems above first (streamform check "
                + dir
                + ")");
      }
      return Optional.empty();
    }
  }

  /**
   * The model a command's {@code --model} names, or, when it names none, the project's only model;
   * a parameter error listing the project's models when there is no such model or several to choose
   * from.
   */
  static String model(CommandLine command, Project project, String model) {
    String models = String.join(", ", project.models().keySet());
    if (model == null) {
      if (project.models().size() != 1) {
        throw new ParameterException(
            command, "--model is needed: the project has models " + models);
      }
      return project.models().keySet().iterator().next();
    }
    if (!project.models().containsKey(model)) {
      throw new ParameterException(command, "no model named '" + model + "'; models: " + models);
    }
    return model;
  }

  /**
   * The model a command's {@code --model} names, or, when it names none, the project's only model
   * that {@code fits}: a {@code kind} (e.g. "scoring model", plural {@code kinds}) declared by
   * {@code key} (e.g. {@code decisions:}); a parameter error naming the models of that kind when
   * there is none or several to choose from. A named model is only looked up here: the command says
   * itself what is wrong with a model of another kind.
   */
  static String model(
      CommandLine command,
      Project project,
      String model,
      String kind,
      String kinds,
      String key,
      Predicate<String> fits) {
    if (model != null) {
      return model(command, project, model);
    }
    List<String> candidates = project.models().keySet().stream().filter(fits).toList();
    if (candidates.size() == 1) {
      return candidates.get(0);
    }
    String models = String.join(", ", project.models().keySet());
    throw new ParameterException(
        command,
        candidates.isEmpty()
            ? "the project has no "
                + kind
                + " (a model with "
                + key
                + ")"
                + (models.isEmpty() ? "" : "; its models: " + models)
            : "--model is needed: the project's "
                + kinds
                + " are "
                + String.join(", ", candidates));
  }
}
