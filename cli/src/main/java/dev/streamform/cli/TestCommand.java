package dev.streamform.cli;

import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.report.HtmlReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamform test <path>}: runs every fixture of a project (or of every project in a
 * folder) as a Beam TestStream through the model's transforms — its changelog, or for a windowed
 * model its windows — and reports each with its counts.
 */
@Command(
    name = "test",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the fixtures (fixtures/*.yml) of a project, of every project under a folder, or one"
          + " fixture file, as Beam TestStreams through the same transforms a production pipeline uses, and prints"
          + " PASS or FAIL with the counts for each (for a windowed model: events processed,"
          + " revisions emitted, windows finalized, late events dropped); a failure shows what"
          + " was expected next to what happened, why, and how to fix it."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:every fixture passed",
      "1:a fixture failed, or a project or fixture has problems",
      "2:bad command line"
    })
final class TestCommand implements Callable<Integer> {

  @Parameters(
      paramLabel = "<path>",
      description = "a project folder, a folder of projects (searched below), or one fixture file")
  Path path;

  @Mixin RunnerOptions runnerOptions;

  @Option(names = "--report", paramLabel = "<file.html>",
      description = "also write one self-contained HTML report: per fixture PASS/FAIL, counts,"
          + " a timeline (events by delivery order and event time, each partition's watermark,"
          + " windows and their records) and the expected and actual rows")
  Path report;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter err = spec.commandLine().getErr();
    RunnerChoice choice;
    try {
      choice = runnerOptions.choice();
    } catch (IllegalStateException e) {
      err.println("streamform test: " + e.getMessage());
      return 1;
    }
    if (!Files.exists(path)) {
      err.println("streamform test: " + path + ": no such file or folder");
      return 1;
    }
    FixtureSuite suite = new FixtureSuite(FixtureRunner.on(choice), spec.commandLine().getOut());
    Progress progress = Progress.onTerminal(err);
    suite.listening(progress.projects());
    HtmlReport html = new HtmlReport();
    if (report != null) {
      suite.listening(html);
    }
    boolean passed = suite.run(path);
    progress.done();
    if (report != null) {
      html.write(report, "streamform test " + path, suite.summary());
      err.println("report: " + report.toAbsolutePath());
    }
    return passed ? 0 : 1;
  }
}
