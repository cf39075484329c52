package dev.streamform.pipelines.cli;

import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamform test <path>}: runs every fixture of a project (or of every project in a
 * folder) as a Beam TestStream through the model's transforms, and reports each with its counts.
 */
@Command(
    name = "test",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the fixtures (fixtures/*.yml) of a project, or of every project under a folder, as"
          + " Beam TestStreams through the same transforms a production pipeline uses, and prints"
          + " PASS or FAIL with the counts for each; a failure shows what was expected next to"
          + " what happened and how to fix it."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:every fixture passed",
      "1:a fixture failed, or a project or fixture has problems",
      "2:bad command line"
    })
final class TestCommand implements Callable<Integer> {

  @Parameters(paramLabel = "<path>", description = "a project folder, or a folder of projects")
  Path path;

  @Option(
      names = "--runner",
      paramLabel = "direct|flink",
      description = "the Beam runner (default: ${DEFAULT-VALUE})",
      defaultValue = "direct")
  String runner;

  @Option(
      names = "--parallelism",
      paramLabel = "N",
      description = "Flink parallelism (default: ${DEFAULT-VALUE})",
      defaultValue = "1")
  int parallelism;

  @Option(
      names = "--flink-master",
      paramLabel = "HOST:PORT",
      description = "submit to a Flink cluster instead of the embedded one, e.g. 127.0.0.1:8081")
  String flinkMaster;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    RunnerChoice choice = runnerChoice();
    PrintWriter err = spec.commandLine().getErr();
    if (!Files.exists(path)) {
      err.println("streamform test: " + path + ": no such file or folder");
      return 1;
    }
    FixtureSuite suite = new FixtureSuite(FixtureRunner.on(choice), spec.commandLine().getOut());
    return suite.run(path) ? 0 : 1;
  }

  private RunnerChoice runnerChoice() {
    if (parallelism < 1) {
      throw new ParameterException(spec.commandLine(), "--parallelism must be at least 1");
    }
    switch (runner) {
      case "direct":
        if (flinkMaster != null) {
          throw new ParameterException(
              spec.commandLine(), "--flink-master needs --runner flink");
        }
        return RunnerChoice.direct();
      case "flink":
        return flinkMaster == null
            ? RunnerChoice.flinkLocal(parallelism)
            : RunnerChoice.flinkCluster(flinkMaster, parallelism, stagedJar());
      default:
        throw new ParameterException(
            spec.commandLine(), "--runner must be direct or flink, not '" + runner + "'");
    }
  }

  /** The jar a cluster needs; the launcher points STREAMFORM_JOB_JAR at the shaded job jar. */
  private static List<String> stagedJar() {
    String jar = System.getenv("STREAMFORM_JOB_JAR");
    return jar == null ? List.of() : List.of(jar);
  }
}
