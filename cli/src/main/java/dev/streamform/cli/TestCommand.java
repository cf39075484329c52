package dev.streamform.cli;

import dev.streamform.policies.project.FileErrors;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.fixture.SuiteReports;
import dev.streamform.teststreams.report.HtmlReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamform test <path>...}: runs every fixture of the projects (or of every project in a
 * folder, or single fixture files) as a Beam TestStream through the model's transforms — its
 * changelog, or for a windowed model its windows — and reports each with its counts. Results go to
 * stdout (text, or JSON with {@code --format json}); warnings and diagnostics to stderr, as {@code
 * check} does. A fixture whose run throws is that fixture's failure; the summary always prints.
 */
@Command(
    name = "test",
    header = "Runs fixtures as TestStreams and prints PASS or FAIL with the counts.",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the fixtures (fixtures/*.yml) of a project, of every project under a folder, or one"
          + " fixture file, as Beam TestStreams through the same transforms a production pipeline"
          + " uses, and prints PASS or FAIL with the counts for each (for a windowed model: events"
          + " processed, revisions emitted, windows finalized, late events dropped); a failure"
          + " shows what was expected next to what happened, why, and how to fix it. Results go to"
          + " stdout, warnings to stderr."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:every fixture passed",
      "1:a fixture failed, or a project or fixture has problems",
      "2:bad command line, or a --report or --junit-xml that cannot be written (checked before"
          + " any fixture runs)"
    })
final class TestCommand implements Callable<Integer> {

  @Parameters(
      arity = "1..*",
      paramLabel = "<path>",
      description =
          "project folders, folders of projects (searched below), or fixture files; as"
              + " many as you like")
  List<Path> paths;

  @Option(
      names = "--select",
      paramLabel = "GLOB",
      split = ",",
      description =
          "run only fixtures whose name, <project folder>/<name> or path matches;"
              + " repeatable or comma-separated; * any characters but /, ** any, ? one")
  List<String> select = new ArrayList<>();

  @Option(
      names = {"--fail-fast", "-x"},
      description = "stop after the first fixture that fails; the rest are reported as not run")
  boolean failFast;

  @Option(
      names = "--report",
      paramLabel = "<file.html>",
      description =
          "also write one self-contained HTML report: per fixture PASS/FAIL, counts,"
              + " a timeline (events by delivery order and event time, each partition's watermark,"
              + " windows and their records) and the expected and actual rows; until the run ends"
              + " it holds a page saying the run did not finish")
  Path report;

  @Option(
      names = "--junit-xml",
      paramLabel = "FILE",
      description =
          "also write the results as JUnit XML (what CI servers read) to FILE; until the run ends"
              + " it holds one test in error saying the run did not finish, so that a killed run"
              + " never leaves an earlier run's pass")
  Path junitXml;

  @Option(
      names = "--format",
      paramLabel = "text|json",
      description = "how results print on stdout: text (default) or one JSON object")
  String format = "text";

  @Option(
      names = {"--accept", "--update"},
      description =
          "after showing a failure, write what happened into the fixture's expect:, late: (and"
              + " quarantined:) sections for you to review; the rest of the file is kept")
  boolean accept;

  @Option(
      names = "--tolerance",
      paramLabel = "X",
      description =
          "how far a double column may be from an expected value, for fixtures without tolerance:"
              + " of their own: |expected - actual| <= X * max(1, |expected|) (default 0: exact)")
  Double tolerance;

  @Option(
      names = "--color",
      paramLabel = "auto|always|never",
      description =
          "colour PASS, FAIL and ^ lines: auto (default: only on a terminal), always, never")
  String color = "auto";

  @Option(
      names = "--runner-checks",
      description =
          "keep the DirectRunner's immutability and encodability checks on (off by default: they"
              + " test Streamform's own transforms, which its test suites run with them, and cost"
              + " about 40%% of a fixture's time)")
  boolean runnerChecks;

  @Option(
      names = "--watch",
      description =
          "after the run, keep watching the paths' folders and their subfolders and run again"
              + " whenever a file in them changes, in the same warm JVM, each run followed by its"
              + " time; a broken file is reported at its line and the watch goes on (Ctrl-C to"
              + " stop; the exit status is the first run's)")
  boolean watch;

  @Mixin RunnerOptions runnerOptions;

  /**
   * Ends a --watch when counted down: by the first Ctrl-C ({@link WatchInterrupt}), or by tests.
   */
  final CountDownLatch watchStop;

  TestCommand() {
    this(new CountDownLatch(1));
  }

  TestCommand(CountDownLatch watchStop) {
    this.watchStop = watchStop;
  }

  @Spec CommandSpec spec;

  /**
   * Run once the command line and the files it writes were checked and those files say the run has
   * not finished, before anything else: a test makes it throw, to stop a run there as a kill does.
   */
  Runnable afterChecks = () -> {};

  /** {@code streamform test} and its paths, as the report's title and the unfinished files say. */
  private String title() {
    return "streamform test " + paths.stream().map(Path::toString).collect(Collectors.joining(" "));
  }

  /**
   * Puts in place of --report and --junit-xml files saying this run has not finished (its results
   * replace them at its end): what a run killed before then leaves (docs/decisions/0102). Empty
   * when both were written, else which one could not be and why.
   */
  private Optional<String> markUnfinished() {
    Instant now = Instant.now();
    // a pipe or a device is written once, at the end: a placeholder would be all a reader got
    if (junitXml != null && !SuiteReports.isSpecial(junitXml)) {
      try {
        SuiteReports.writeWhole(junitXml, w -> SuiteReports.unfinishedJunitXml(title(), now, w));
      } catch (IOException e) {
        return Optional.of("--junit-xml " + cannotWrite(junitXml, e));
      }
    }
    if (report != null && !SuiteReports.isSpecial(report)) {
      try {
        HtmlReport.writeUnfinished(report, title(), now);
      } catch (IOException e) {
        return Optional.of("--report " + cannotWrite(report, e));
      }
    }
    return Optional.empty();
  }

  private static String cannotWrite(Path file, IOException e) {
    return file
        + " cannot be written: "
        + whyNotWritten(file, e)
        + ": name a file in a folder you can write to";
  }

  /**
   * Why {@code file} could not be written. It is written beside it, then put in its place: a folder
   * that takes no new file (/proc) says the one beside it "does not exist", which is not the file's
   * reason.
   */
  private static String whyNotWritten(Path file, IOException e) {
    if (e instanceof java.nio.file.NoSuchFileException n && n.getFile() != null) {
      Path beside = Path.of(n.getFile()).toAbsolutePath();
      Path folder = beside.getParent();
      if (!beside.equals(file.toAbsolutePath()) && folder != null && Files.isDirectory(folder)) {
        return folder
            + ": the file system refused a new file there (one is written beside it, then put in"
            + " its place)";
      }
    }
    return FileErrors.reason(e);
  }

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    // usage errors, ending as every other one does: where the options are listed
    if (!format.equals("text") && !format.equals("json")) {
      throw new ParameterException(
          spec.commandLine(), "--format " + format + " is not text or json");
    }
    if (tolerance != null && !(tolerance >= 0 && Double.isFinite(tolerance))) {
      throw new ParameterException(
          spec.commandLine(),
          "--tolerance "
              + spec.findOption("--tolerance").originalStringValues().get(0)
              + " is not a number from 0, e.g. 1e-9");
    }
    Help.Ansi ansi;
    switch (color) {
      case "auto":
        ansi = Help.Ansi.AUTO;
        break;
      case "always":
        ansi = Help.Ansi.ON;
        break;
      case "never":
        ansi = Help.Ansi.OFF;
        break;
      default:
        throw new ParameterException(
            spec.commandLine(), "--color " + color + " is not auto, always or never");
    }
    // the files written after every fixture ran: said wrong before the first one runs
    if (report != null) {
      Optional<String> unusable = RunCommand.unusableFile(report);
      if (unusable.isPresent()) {
        throw new ParameterException(spec.commandLine(), "--report " + unusable.get());
      }
    }
    if (junitXml != null) {
      Optional<String> unusable = RunCommand.unusableFile(junitXml);
      if (unusable.isPresent()) {
        throw new ParameterException(spec.commandLine(), "--junit-xml " + unusable.get());
      }
    }
    // a path that is not there is a mistake in the command line: said before anything is written
    // or run (it stopped the run after the report files were marked unfinished, with an empty
    // --format json and the other paths not run)
    for (Path path : paths) {
      if (!Files.exists(path)) {
        throw new ParameterException(
            spec.commandLine(),
            path
                + ": no such file or folder; give a project folder, a folder of projects or a"
                + " fixture file");
      }
    }
    // an earlier run's files are replaced now by ones saying this run has not finished: a run
    // killed before its end leaves an error, never the earlier run's pass (docs/decisions/0102)
    Optional<String> unwritable = markUnfinished();
    if (unwritable.isPresent()) {
      throw new ParameterException(spec.commandLine(), unwritable.get());
    }
    afterChecks.run();
    RunnerChoice choice;
    try {
      choice = runnerOptions.choice();
    } catch (IllegalStateException e) {
      err.println("streamform test: " + e.getMessage());
      return 1;
    }
    if (runnerChecks && choice.isFlink()) {
      // refused, not ignored, as a Flink option on the DirectRunner is (docs/decisions/0087)
      throw new ParameterException(
          spec.commandLine(),
          "--runner-checks is a DirectRunner option, and this run is on "
              + choice.describe()
              + ": run on the DirectRunner, or leave out --runner-checks");
    }
    if (!runnerChecks) {
      // a declared model runs only Streamform's transforms, whose own suites keep these checks on
      choice = choice.asStreamformTest();
    }
    FixtureRunner runner = FixtureRunner.on(choice);
    hints = hints(choice);
    if (!watch) {
      return runOnce(runner, ansi, out, err);
    }
    long start = System.nanoTime();
    long cpu = cpuNanos();
    int status = watchedRun(runner, ansi, out, err);
    timed(1, start, cpu, out, err);
    Set<Path> written = new LinkedHashSet<>();
    if (report != null) {
      written.add(report);
    }
    if (junitXml != null) {
      written.add(junitXml);
    }
    int[] runs = {1};
    try (WatchInterrupt ctrlC = WatchInterrupt.install(watchStop, err, status)) {
      return new FileWatch(paths, written, err, watchStop)
          .watch(
              status,
              changed -> {
                runs[0]++;
                err.println(
                    "streamform test: run " + runs[0] + " after a change to " + list(changed));
                err.flush();
                out.println();
                markUnfinished().ifPresent(why -> err.println("streamform test: " + why));
                long at = System.nanoTime();
                long cpuAt = cpuNanos();
                int again = watchedRun(runner, ansi, out, err);
                timed(runs[0], at, cpuAt, out, err);
                return again;
              });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return status;
    }
  }

  /** What to do about a fixture run's error, as a run on the same runner is told. */
  private Function<Throwable, Optional<String>> hints = e -> Optional.empty();

  /**
   * What to do about the error a fixture's run on {@code choice} stopped with: a refused
   * connection's server and fix, as {@code streamform run} says them ({@link RefusedConnection}).
   */
  static Function<Throwable, Optional<String>> hints(RunnerChoice choice) {
    RefusedConnection.Endpoints to = RunCommand.endpoints(choice, null, null, null);
    return e -> RefusedConnection.hint(e, to);
  }

  /**
   * A run under --watch: as {@link #runOnce}, but a run that throws (a folder removed while it ran)
   * is said in one line and is a failed run, so that the watch goes on.
   */
  private int watchedRun(FixtureRunner runner, Help.Ansi ansi, PrintWriter out, PrintWriter err) {
    try {
      return runOnce(runner, ansi, out, err);
    } catch (IOException | RuntimeException e) {
      err.println("streamform test: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      return 1;
    }
  }

  /**
   * The line after each run under --watch: its number, its wall-clock time in this warm JVM and the
   * JVM's CPU time over it (every thread, JIT and GC too: on a busy machine the wall clock grows
   * with others' load, the CPU time much less); on stderr with --format json, which keeps stdout
   * JSON.
   */
  private void timed(int run, long start, long cpuStart, PrintWriter out, PrintWriter err) {
    PrintWriter to = format.equals("json") ? err : out;
    to.printf(
        Locale.ROOT,
        "run %d in %.2f s (%.2f s CPU)%n",
        run,
        (System.nanoTime() - start) / 1e9,
        (cpuNanos() - cpuStart) / 1e9);
    to.flush();
  }

  /** This JVM's CPU time so far, 0 where the platform does not say. */
  private static long cpuNanos() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime()
        : 0;
  }

  /** The first three of {@code changed}, relative to the working folder when below it. */
  private static String list(List<Path> changed) {
    return changed.stream()
            .limit(3)
            .map(p -> relative(p).toString())
            .collect(Collectors.joining(", "))
        + (changed.size() > 3 ? " and " + (changed.size() - 3) + " more" : "");
  }

  /** {@code file} relative to the working folder when below it, else as it is. */
  private static Path relative(Path file) {
    Path here = Path.of("").toAbsolutePath();
    Path absolute = file.toAbsolutePath();
    return absolute.startsWith(here) ? here.relativize(absolute) : absolute;
  }

  /** One run of every selected fixture: the summary, the reports; 0 when every fixture passed. */
  private int runOnce(FixtureRunner runner, Help.Ansi ansi, PrintWriter out, PrintWriter err)
      throws IOException {
    boolean json = format.equals("json");
    FixtureSuite suite =
        new FixtureSuite(runner, json ? null : out)
            .warningsTo(err)
            .selecting(select)
            .failingFast(failFast)
            .accepting(accept)
            .withTolerance(tolerance)
            .coloured(!json && ansi.enabled())
            .hinting(hints);
    Progress progress = Progress.onTerminal(err);
    suite.listening(progress.projects());
    HtmlReport html = new HtmlReport();
    if (report != null) {
      suite.listening(html);
    }
    boolean passed = suite.run(paths);
    progress.done();
    // every output that can be written is: one that cannot (a folder gone read-only since the
    // checks) loses only itself, is said with its path, and the run exits 1
    boolean written = true;
    if (json) {
      SuiteReports.json(suite, out);
      out.flush();
    }
    if (junitXml != null) {
      try {
        // written beside and moved into place whole, over the file saying the run had not finished
        SuiteReports.writeWhole(junitXml, w -> SuiteReports.junitXml(suite, w));
        err.println("streamform test: wrote JUnit XML to " + junitXml);
      } catch (IOException e) {
        err.println(
            "streamform test: cannot write JUnit XML to "
                + junitXml
                + ": "
                + FileErrors.reason(e)
                + " — give --junit-xml a file in a folder you can write to");
        written = false;
      }
    }
    if (report != null) {
      try {
        html.write(report, title(), suite.summary());
        err.println("report: " + report.toAbsolutePath());
      } catch (IOException e) {
        // checked before the fixtures ran; what changed since is said as the file system says it
        err.println(
            "streamform test: cannot write the report to "
                + report
                + ": "
                + FileErrors.reason(e)
                + " — give --report a file in a folder you can write to");
        written = false;
      }
    }
    out.flush();
    return passed && written ? 0 : 1;
  }
}
