package dev.streamform.cli;

import dev.streamform.pipelines.ModelSteps;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.declarations.Connector;
import dev.streamform.policies.plan.Plan;
import dev.streamform.policies.project.Project;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamform explain <project> <model>}: prints the model's plan with its clock, state and
 * effect rules.
 */
@Command(
    name = "explain",
    header = "Prints a model's plan: clock, time attributes, window, state, effect rules.",
    mixinStandardHelpOptions = true,
    description = {
      "Prints a model's plan: the Source with its clock, the time attribute on every node that"
          + " carries it, and the Aggregate with its state fingerprint (key, accumulators with"
          + " types, retention; for a windowed model its window, allowed lateness and trigger),"
          + " and a windowed model's generation, then its effect rules, if it declares any (each"
          + " rule's type, when and subject, mode, and the provider it sends to). The text then"
          + " lists every step the pipeline"
          + " applies after the source, each with its settings, walked from the pipeline run"
          + " builds (built, not run), so a step that runs cannot be missing from it."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:plan printed",
      "1:the project has problems or no such model",
      "2:bad command line"
    })
final class ExplainCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "<project>", description = "the project folder")
  Path dir;

  @Parameters(index = "1", paramLabel = "<model>", description = "a model of streamform.yml")
  String model;

  @Option(
      names = "--format",
      paramLabel = "text|dot|svg",
      defaultValue = "text",
      description =
          "text (default), dot (Graphviz: `dot -Tpng`) or svg (a drawing, no Graphviz" + " needed)")
  String format;

  @Option(
      names = "--runner",
      paramLabel = "direct|flink",
      defaultValue = "direct",
      description =
          "the runner whose pipeline the steps describe (default direct); on flink an upsert model"
              + " on a Kafka source applies events as they arrive")
  String runner;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (!List.of("direct", "flink").contains(runner)) {
      throw new ParameterException(
          spec.commandLine(), "--runner takes direct or flink, not '" + runner + "'");
    }
    if (!List.of("text", "dot", "svg").contains(format)) {
      throw new ParameterException(
          spec.commandLine(), "--format takes text, dot or svg, not '" + format + "'");
    }
    Optional<Project> loaded = ProjectArgument.load(dir, "explain", err);
    if (loaded.isEmpty()) {
      return 1;
    }
    Project project = loaded.get();
    if (!project.models().containsKey(model)) {
      err.println(
          "streamform explain: no model named '"
              + model
              + "' in "
              + dir.resolve("streamform.yml")
              + " — models: "
              + String.join(", ", project.models().keySet()));
      return 1;
    }
    Plan plan = Plan.of(project, model);
    switch (format) {
      case "dot" -> out.print(PlanDiagram.dot(plan, model));
      case "svg" -> out.println(PlanDiagram.svg(plan));
      default -> {
        out.print(plan.render());
        out.println();
        out.print(steps(project));
      }
    }
    return 0;
  }

  /**
   * The steps the model's pipeline applies, walked from the pipeline {@code run} builds (never
   * run): a step that runs cannot be missing here (issue 30).
   */
  private String steps(Project project) {
    DeclaredModel declared = DeclaredModel.of(project, model);
    boolean onArrival = runner.equals("flink") && declared.source().connector() == Connector.KAFKA;
    StringBuilder b = new StringBuilder();
    b.append("Steps the pipeline applies after the source (built for --runner ")
        .append(runner)
        .append(", not run):\n");
    for (ModelSteps.Step step : ModelSteps.of(declared, onArrival)) {
      b.append("  ").append(step.name()).append(" (").append(step.transform()).append(")\n");
      step.display().forEach(line -> b.append("      ").append(line).append('\n'));
      for (ModelSteps.Step inner : step.inner()) {
        b.append("    ").append(inner.name()).append(" (").append(inner.transform()).append(")\n");
        inner.display().forEach(line -> b.append("      ").append(line).append('\n'));
      }
    }
    return b.toString();
  }
}
