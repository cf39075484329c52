package dev.streamform.cli;

import dev.streamform.pipelines.ModelSteps;
import dev.streamform.policies.project.Project;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamform inspect-plan <project> <model>}: the model's plan manifest as JSON, derived
 * from the pipeline {@code run} builds ({@link ModelSteps#manifest}).
 */
@Command(
    name = "inspect-plan",
    header = "Prints a model's plan manifest and time policy as JSON.",
    mixinStandardHelpOptions = true,
    description = {
      "Prints a model's plan manifest as JSON: each node (Source, Filter, Aggregate, Decisions)"
          + " with its definition, output schema and time attribute with their digests, the state"
          + " fingerprint of the node that keeps keyed state with its digest, and the model's time"
          + " policy (sources with their partition set, event-time column, UTC, watermark,"
          + " idleness, window, trigger, allowed lateness, late classification, retention, sink"
          + " correction mode, generation) with its digest; then every step the model's pipeline"
          + " applies after the source, with its display data, walked from the pipeline run"
          + " builds (built, not run), so a step that runs cannot be missing from it.",
      "The text depends only on what the declarations mean (sorted keys, canonical durations), so"
          + " it is identical across runs. Save it when you deploy, and compare a change with"
          + " streamform plan <project> <model> --against <file>."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:manifest printed",
      "1:the project has problems or no such model",
      "2:bad command line"
    })
final class InspectPlanCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "<project>", description = "the project folder")
  Path dir;

  @Parameters(index = "1", paramLabel = "<model>", description = "a model of streamform.yml")
  String model;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Optional<Project> project = ModelArgument.load(dir, model, "inspect-plan", err);
    if (project.isEmpty()) {
      return 1;
    }
    out.print(ModelSteps.manifest(project.get(), model).toJson());
    out.flush();
    return 0;
  }
}
