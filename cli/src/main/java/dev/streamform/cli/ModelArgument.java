package dev.streamform.cli;

import dev.streamform.policies.project.Project;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;

/** Loads a command's project and checks that it declares the named model. */
final class ModelArgument {
  private ModelArgument() {}

  /**
   * The project in {@code dir} when it loads and declares {@code model}; empty after printing the
   * problems, or the models it does declare, to {@code err}.
   */
  static Optional<Project> load(Path dir, String model, String command, PrintWriter err) {
    Optional<Project> loaded = ProjectArgument.load(dir, command, err);
    if (loaded.isPresent() && !loaded.get().models().containsKey(model)) {
      err.println(
          "streamform "
              + command
              + ": no model named '"
              + model
              + "' in "
              + dir.resolve("streamform.yml")
              + " — models: "
              + String.join(", ", loaded.get().models().keySet()));
      return Optional.empty();
    }
    return loaded;
  }
}
