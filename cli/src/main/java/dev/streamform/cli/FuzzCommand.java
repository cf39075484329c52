package dev.streamform.cli;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.fuzz.FuzzRun;
import dev.streamform.teststreams.fuzz.Fuzzer;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * {@code streamform fuzz <project> --model M --traces N}: generated traces through the reference
 * oracle and the chosen runners, compared whole; a disagreement is shrunk and written as a fixture
 * file whose expectations are the oracle's.
 */
@Command(
    name = "fuzz",
    header = "Compares runners with the oracle on generated traces; shrinks a difference.",
    mixinStandardHelpOptions = true,
    description = {
      "Generates N traces for a model's source (out-of-order and late events, bursts, repeated"
          + " keys, watermark items, several partitions, missing event times), runs each through"
          + " the reference oracle of the event-time contract and through the chosen runners, and"
          + " compares the whole outputs: changelog, late events, quarantine, processed count."
          + " When a runner disagrees, the trace is shrunk to a small one that still disagrees and"
          + " written as a fixture file (expect: and late: from the oracle) to commit."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:every trace agreed on every runner",
      "1:a trace disagreed (a fixture file was written, unless the difference did not show with"
          + " the trace run alone), or the project has problems",
      "2:bad command line"
    })
final class FuzzCommand implements Callable<Integer> {

  @Parameters(paramLabel = "<project>", description = "the project folder")
  Path project;

  @Option(
      names = "--model",
      paramLabel = "M",
      description = "the model to fuzz (default: the project's only model)")
  String model;

  @Option(names = "--traces", paramLabel = "N", required = true, description = "how many traces")
  int traces;

  @Option(
      names = "--seed",
      paramLabel = "S",
      description = "the seed; the same seed gives the same traces (default: chosen and printed)")
  Long seed;

  @Option(
      names = "--runners",
      paramLabel = "direct,flink",
      split = ",",
      description = "the runners to compare with the oracle (default: ${DEFAULT-VALUE})",
      defaultValue = "direct")
  List<String> runners;

  @Option(
      names = "--parallelism",
      paramLabel = "P",
      description = "Flink parallelism (default: ${DEFAULT-VALUE})",
      defaultValue = "2")
  int parallelism;

  @Option(
      names = "--batch",
      paramLabel = "B",
      description =
          "traces run together in one pipeline (default: ${DEFAULT-VALUE}); a windowed or"
              + " scoring model's traces run side by side, at most 8 a pipeline on the"
              + " DirectRunner",
      defaultValue = "50")
  int batch;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "where shrunk fixtures are written (default: the project's fixtures/)")
  Path out;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    // the one given, as a value that is no number is said
    Streamform.wholeNumber(spec, "--traces", traces, 1);
    Streamform.wholeNumber(spec, "--parallelism", parallelism, 1);
    Streamform.wholeNumber(spec, "--batch", batch, 1);
    List<RunnerChoice> choices = new ArrayList<>();
    for (String r : runners) {
      switch (r.trim()) {
        case "direct":
          choices.add(RunnerChoice.direct());
          break;
        case "flink":
          choices.add(RunnerChoice.flinkLocal(parallelism));
          break;
        default:
          throw new ParameterException(
              spec.commandLine(), "--runners takes direct and/or flink, not '" + r + "'");
      }
    }
    if (choices.isEmpty()) {
      // "--runners ," compared the oracle with nothing and said every trace agreed
      throw new ParameterException(
          spec.commandLine(), "--runners names no runner: give direct, flink, or direct,flink");
    }
    if (choices.stream().noneMatch(RunnerChoice::isFlink)
        && spec.commandLine().getParseResult().hasMatchedOption("--parallelism")) {
      // refused, not ignored, as on the other commands (docs/decisions/0087)
      throw new ParameterException(
          spec.commandLine(),
          "--parallelism "
              + parallelism
              + " is a Flink option, and --runners "
              + String.join(",", runners)
              + " runs no Flink: give --runners direct,flink, or leave out --parallelism");
    }
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter stdout = spec.commandLine().getOut();
    Optional<Project> found = ProjectArgument.load(project, "fuzz", err);
    if (found.isEmpty()) {
      return 1;
    }
    Project loaded = found.get();
    String name = ProjectArgument.model(spec.commandLine(), loaded, model);
    DeclaredModel declared = DeclaredModel.of(loaded, name);
    List<Fuzzer.Target> targets = new ArrayList<>();
    choices.forEach(c -> targets.add(Fuzzer.Target.of(FixtureRunner.on(c), declared)));
    long s = seed != null ? seed : System.currentTimeMillis() % 1_000_000;
    FuzzRun session =
        new FuzzRun(declared, Fuzzer.of(declared, batch), stdout).withProject(project);
    Progress progress = Progress.onTerminal(err);
    if (progress.shows()) {
      session.withProgress(
          new FuzzRun.Progress() {
            @Override
            public void traces(String target, int done, int total, int disagreeing) {
              progress.show("fuzz " + target + ": traces", done, total, disagreeing + " disagree");
            }

            @Override
            public void end() {
              progress.done();
            }
          });
    }
    FuzzRun.Result result =
        session.run(traces, s, targets, out != null ? out : project.resolve("fixtures"));
    return result.allAgree() ? 0 : 1;
  }
}
