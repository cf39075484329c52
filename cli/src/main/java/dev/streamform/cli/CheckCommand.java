package dev.streamform.cli;

import dev.streamform.core.text.Counts;
import dev.streamform.core.time.Durations;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Problem;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureKind;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamform check <project-dir>}: loads a project and checks every declaration and every
 * fixture file. Valid: one summary line on stdout, exit 0. Invalid: every problem on stderr, one
 * per line, then their count, exit 1; a file source's data file saved as UTF-16 or UTF-32 is such a
 * problem (ADR 0131). Warnings (a fixture that spreads a key over partitions, which
 * docs/semantics.md §7 does not promise; a file source whose path matches no file, ADR 0119) go to
 * stderr, as {@code streamform test} prints them, and do not change the status.
 */
@Command(
    name = "check",
    header = "Checks declarations, SQL and fixtures; each problem with file, line and fix.",
    mixinStandardHelpOptions = true,
    description = {
      "Checks a project's sources.yml, streamform.yml and models/*.sql and fixtures/*.yml and"
          + " reports every problem found, each with its file, line, key and how to fix it."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {"0:the project is valid", "1:the project has problems", "2:bad command line"})
final class CheckCommand implements Callable<Integer> {

  @Parameters(paramLabel = "<project-dir>", description = "the project folder")
  Path dir;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    List<Problem> problems = new ArrayList<>();
    try {
      Project project = Project.load(dir);
      List<Path> fixtures = Fixture.filesOf(project);
      List<Problem> warnings = new ArrayList<>(project.warnings());
      // a file source's data is run's to read, not test's: said, not refused (ADR 0119)
      warnings.addAll(project.missingFiles());
      // but a data file that is there and that run cannot read (permission denied, saved as
      // UTF-16) is one run refuses: a problem (ADR 0131)
      problems.addAll(project.unreadableFiles());
      for (Path fixture : fixtures) {
        try {
          Fixture f = Fixture.load(project, fixture);
          // a key spread over partitions (§6, §7), epoch seconds written as milliseconds (§4)
          warnings.addAll(FixtureKind.of(DeclaredModel.of(project, f.model())).warnings(f));
        } catch (InvalidProjectException e) {
          problems.addAll(e.problems());
        }
      }
      for (Problem w : warnings) {
        err.println("warning: " + w);
      }
      if (problems.isEmpty()) {
        out.println(
            summary(project)
                + (fixtures.isEmpty() ? "" : ", " + Counts.of(fixtures.size(), "fixture")));
        return 0;
      }
    } catch (InvalidProjectException e) {
      problems.addAll(e.problems());
    }
    for (Problem problem : problems) {
      err.println(problem);
    }
    err.println(Counts.of(problems.size(), "problem"));
    return 1;
  }

  /**
   * One line saying what a valid project declares, e.g. {@code ok: 1 source (orders: event time
   * ordered_at, watermark 5m, late drop), 1 model (customer_metrics)}; a windowed model shows its
   * window and allowed lateness ({@code hourly: window tumbling 1h, allowed lateness 10m}).
   */
  static String summary(Project project) {
    return "ok: "
        + list(project.sources().values(), "source", CheckCommand::describe)
        + ", "
        + list(project.models().values(), "model", CheckCommand::describe);
  }

  private static String describe(SourceDeclaration s) {
    if (!s.hasEventTime()) {
      return s.name() + ": processing time";
    }
    String text =
        s.name()
            + ": event time "
            + s.eventTime().get()
            + ", watermark "
            + Durations.format(s.watermark())
            + ", late "
            + s.lateEvents().yamlName();
    return s.idleAfter().map(idle -> text + ", idle after " + Durations.format(idle)).orElse(text);
  }

  private static String describe(ModelDeclaration m) {
    if (m.window().isPresent()) {
      return m.name()
          + ": window "
          + m.window().get().describe()
          + ", allowed lateness "
          + Durations.format(m.allowedLateness())
          + (m.earlyResults().isNone() ? "" : ", early results " + m.earlyResults().yamlText())
          + (m.generation() == 1 ? "" : ", generation " + m.generation());
    }
    return m.retention().map(r -> m.name() + ": retention " + Durations.format(r)).orElse(m.name());
  }

  private static <T> String list(Collection<T> items, String noun, Function<T, String> describe) {
    if (items.isEmpty()) {
      return Counts.of(0, noun);
    }
    List<String> parts = new ArrayList<>();
    items.forEach(item -> parts.add(describe.apply(item)));
    return Counts.of(items.size(), noun) + " (" + String.join("; ", parts) + ")";
  }
}
