package dev.streamform.cli;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Project;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The scoring model and fixture that {@code replay-orders} and {@code decisions show} work on: the
 * model named by {@code --model} (it must have {@code decisions:}; by default the project's only
 * scoring model) and the fixture named by {@code --fixture} (a file name under {@code fixtures/},
 * with or without {@code .yml}; by default the first fixture whose {@code model:} is this model,
 * else the first fixture of the project). The fixture's events are run through the chosen model
 * whatever its {@code model:} says, so one fixture serves every model of its source.
 */
final class DecisionsModelArgument {
  private DecisionsModelArgument() {}

  /**
   * The model {@code --model} names, or the project's only scoring model when it names none; a
   * parameter error when there is no such model, none or several to choose from.
   */
  static String name(CommandLine cli, Project project, String name) {
    return ProjectArgument.model(
        cli,
        project,
        name,
        "scoring model",
        "scoring models",
        "decisions:",
        m -> DeclaredModel.of(project, m).kind().hasDecisionLedger());
  }

  /** The scoring model of that name ({@link #name}); a parameter error when it does not score. */
  static DeclaredModel model(CommandLine cli, Project project, String name) {
    if (!project.models().containsKey(name)) {
      throw new ParameterException(
          cli,
          "no model named '" + name + "'; models: " + String.join(", ", project.models().keySet()));
    }
    DeclaredModel model = DeclaredModel.of(project, name);
    if (!model.kind().hasDecisionLedger()) {
      throw new ParameterException(
          cli, "model '" + name + "' has no decisions: (it is not a scoring model)");
    }
    return model;
  }

  static Fixture fixture(CommandLine cli, Project project, String model, String fixture)
      throws InvalidProjectException {
    List<Path> files = Fixture.filesOf(project);
    if (fixture != null) {
      String named = fixture.endsWith(".yml") ? fixture : fixture + ".yml";
      // a name under fixtures/, or a path as a shell completes it: from here or from the project
      Path file = project.dir().resolve("fixtures").resolve(named);
      for (Path given : List.of(Path.of(named), project.dir().resolve(named))) {
        if (!Files.isRegularFile(file) && Files.isRegularFile(given)) {
          file = given;
        }
      }
      if (!Files.isRegularFile(file)) {
        throw new ParameterException(
            cli,
            "no fixture "
                + file
                + "; fixtures: "
                + files.stream().map(f -> f.getFileName().toString()).toList());
      }
      return Fixture.load(project, file);
    }
    if (files.isEmpty()) {
      throw new ParameterException(cli, "project " + project.dir() + " has no fixtures");
    }
    for (Path f : files) {
      Fixture loaded = Fixture.load(project, f);
      if (loaded.model().equals(model)) {
        return loaded;
      }
    }
    return Fixture.load(project, files.get(0));
  }
}
