package dev.streamform.cli;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.declarations.DecisionsSpec;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureStream;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamform decisions show}: the decision ledger of a fixture, each traced to its inputs.
 */
@Command(
    name = "decisions",
    header = "A scoring model's decisions and their identity.",
    mixinStandardHelpOptions = true,
    description = "The decisions of a scoring model (decisions:).",
    subcommands = {DecisionsCommand.Show.class})
final class DecisionsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return 2;
  }

  @Command(
      name = "show",
      header = "Shows each decision traced to its event, clocks, state cutoff and digests.",
      mixinStandardHelpOptions = true,
      description = {
        "Runs a fixture through a scoring model and prints its decision ledger: for each decision"
            + " its id, the event it decided (id, partition, offset, fixture line), its three"
            + " clocks (occurred, arrived, scored), the feature state it read (cutoff, state"
            + " revision, feature values), the model and preprocessing digests, the policy"
            + " generation, and which decision it supersedes; late events and dead letters with"
            + " their reasons."
      },
      exitCodeListHeading = "%nExit status:%n",
      exitCodeList = {
        "0:shown",
        "1:the project has problems or no such event",
        "2:bad command line"
      })
  static final class Show implements Callable<Integer> {
    @Parameters(paramLabel = "<project>", description = "the project folder")
    Path project;

    @Option(names = "--model", paramLabel = "M", required = true, description = "the scoring model")
    String model;

    @Option(
        names = "--fixture",
        paramLabel = "F",
        description =
            "the fixture under fixtures/ (default: the first one of the model, else the first)")
    String fixture;

    @Option(
        names = "--event",
        paramLabel = "E",
        description =
            "only this event: its id <partition>-<offset> (e.g. 1-0) or its number in the fixture")
    String event;

    @Mixin RunnerOptions runnerOptions;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      RunnerChoice choice;
      try {
        choice = runnerOptions.choice();
      } catch (IllegalStateException e) {
        err.println("streamform decisions show: " + e.getMessage());
        return 1;
      }
      Optional<Project> found = ProjectArgument.load(project, "decisions show", err);
      if (found.isEmpty()) {
        return 1;
      }
      DeclaredModel declared = DecisionsModelArgument.model(spec.commandLine(), found.get(), model);
      Fixture f;
      try {
        f = DecisionsModelArgument.fixture(spec.commandLine(), found.get(), model, fixture);
      } catch (InvalidProjectException e) {
        e.problems().forEach(p -> err.println(p));
        return 1;
      }
      FixtureStream stream = FixtureStream.compile(f, declared);
      FixtureOutcome outcome = FixtureRunner.on(choice).run(declared, f);
      DecisionsSpec spec = declared.model().decisions().get();
      out.printf(
          "model %s: %s, features over %s, lateness %s, late_action %s, late_updates_state %s%n",
          model,
          spec.contract().name().toLowerCase(java.util.Locale.ROOT),
          dev.streamform.core.time.Durations.format(spec.featuresOver()),
          dev.streamform.core.time.Durations.format(spec.lateness()),
          spec.lateAction().name().toLowerCase(java.util.Locale.ROOT),
          spec.lateUpdatesState());
      out.printf(
          "scorer: %s%n",
          spec.linearFile().map(l -> "linear " + l).orElse("class " + spec.scorer().orElse("?")));
      out.printf("fixture %s%n%n", f.file());
      int shown = 0;
      for (FixtureOutcome.Routed r : outcome.routed) {
        Fixture.Given item = stream.itemOf(r.eventId());
        if (event != null
            && !event.equals(r.eventId())
            && !(item != null && event.equals(String.valueOf(item.eventNumber())))) {
          continue;
        }
        shown++;
        show(out, r, item);
      }
      if (shown == 0) {
        err.println("streamform decisions show: no decision or routed event for event " + event);
        return 1;
      }
      out.flush();
      return 0;
    }

    private static void show(PrintWriter out, FixtureOutcome.Routed r, Fixture.Given item) {
      Map<String, String> id = r.identity();
      String[] po = r.eventId().split("-");
      String where =
          "event "
              + r.eventId()
              + " (partition "
              + po[0]
              + ", offset "
              + (po.length > 1 ? po[1] : "?")
              + (item == null
                  ? ""
                  : "; fixture event " + item.eventNumber() + ", line " + item.line())
              + ")";
      if (r.score() == null) {
        out.println(r.route() + ": " + where);
        id.forEach((k, v) -> out.println("  " + k + ": " + (v == null || v.isEmpty() ? "-" : v)));
        out.println();
        return;
      }
      out.println("decision " + id.get("decision_id"));
      out.println("  " + r.route() + ", revision " + r.revision() + ", of " + where);
      for (String k :
          List.of(
              "occurred_at",
              "arrived_at",
              "arrival_watermark",
              "scored_at",
              "contract",
              "state_cutoff",
              "state_revision",
              "model_digest",
              "preprocessing_digest",
              "policy_generation",
              "supersedes",
              "revised_by")) {
        String v = id.get(k);
        if (k.equals("arrival_watermark") && v == null) {
          v = "undefined (nothing earlier on its partition)";
        }
        if (v != null
            && !(v.equals("null") && (k.equals("supersedes") || k.equals("revised_by")))) {
          out.println("  " + k + ": " + v);
        }
      }
      out.println("  features: " + r.features());
      out.println("  score: " + r.score());
      out.println();
    }
  }
}
