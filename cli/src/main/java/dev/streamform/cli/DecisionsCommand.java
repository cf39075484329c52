package dev.streamform.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.declarations.DecisionsSpec;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.InvalidProjectException;
import dev.streamform.policies.project.Project;
import dev.streamform.sink.JdbcTarget;
import dev.streamform.sink.LedgerSchema;
import dev.streamform.sink.decisions.DecisionLedger;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureStream;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.transforms.decisions.ScoreEvents;
import dev.streamform.transforms.envelope.DeclaredId;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
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
 * {@code streamform decisions show}: the decisions of a fixture, or of the decision ledger in
 * PostgreSQL ({@code --jdbc-url}), each traced to its inputs; {@code streamform decisions verify}:
 * every decision's identity in the ledger recomputed from its stored inputs.
 */
@Command(
    name = "decisions",
    header = "A scoring model's decisions and their identity.",
    mixinStandardHelpOptions = true,
    description = "The decisions of a scoring model (decisions:).",
    subcommands = {DecisionsCommand.Show.class, DecisionsCommand.Verify.class})
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
            + " their reasons.",
        "With --jdbc-url, reads the decision ledger that streamform run --jdbc-url wrote instead:"
            + " the model's decisions by event and revision, then its reconcile queue."
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

    @Option(
        names = "--model",
        paramLabel = "M",
        description = "the scoring model (default: the project's only one)")
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
            "only this event: its place <partition>-<offset> (e.g. 1-0), its event_id when the"
                + " source declares one, or its number in the fixture")
    String event;

    @Option(
        names = "--jdbc-url",
        paramLabel = "URL",
        description =
            "read the decision ledger in this PostgreSQL database instead of running a fixture"
                + " (no password in it)")
    String jdbcUrl;

    @Mixin JdbcCredentials jdbcCredentials;

    @Mixin RunnerOptions runnerOptions;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      if (jdbcUrl != null) {
        if (fixture != null) {
          throw new picocli.CommandLine.ParameterException(
              spec.commandLine(), "give --fixture (run a fixture) or --jdbc-url (the ledger)");
        }
        Map<String, Object> runnerGiven = runnerOptions.given();
        if (!runnerGiven.isEmpty()) {
          // refused, not ignored (docs/decisions/0087)
          throw new picocli.CommandLine.ParameterException(
              spec.commandLine(),
              Streamform.typed(runnerGiven)
                  + (runnerGiven.size() == 1 ? " chooses" : " choose")
                  + " where a fixture runs, and --jdbc-url reads the decision ledger, which runs"
                  + " nothing: leave "
                  + (runnerGiven.size() == 1 ? "it" : "them")
                  + " out, or leave out --jdbc-url to run a fixture");
        }
        jdbcCredentials.check(jdbcUrl, spec.commandLine()); // before the project is loaded
        return fromLedger(out, err);
      }
      jdbcCredentials.refuseWithout(jdbcUrl, spec.commandLine());
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
      model = DecisionsModelArgument.name(spec.commandLine(), found.get(), model);
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
      Optional<String> idColumn = declared.source().eventId();
      for (FixtureOutcome.Routed r : outcome.routed) {
        Fixture.Given item = stream.itemOf(r.eventId());
        // a late or dead-lettered row has no decision identity: its declared id is its event's
        String declaredId =
            item == null || idColumn.isEmpty() || item.event().isEmpty()
                ? null
                : DeclaredId.text(item.event().get().get(idColumn.get()));
        if (event != null
            && !event.equals(r.eventId())
            && !event.equals(r.identity().get("event_id"))
            && !event.equals(declaredId)
            && !(item != null && event.equals(String.valueOf(item.eventNumber())))) {
          continue;
        }
        shown++;
        show(out, r, item, declaredId);
      }
      if (shown == 0) {
        err.println("streamform decisions show: " + noneFor(f, stream, outcome, idColumn));
        return 1;
      }
      out.flush();
      return 0;
    }

    /**
     * Why {@link #event} has nothing to show in the fixture's run: it was dropped as a duplicate or
     * quarantined (neither makes a decision nor a routed row), or the fixture has no such event.
     */
    private String noneFor(
        Fixture f, FixtureStream stream, FixtureOutcome outcome, Optional<String> idColumn) {
      java.util.List<Fixture.Given> given = new java.util.ArrayList<>();
      for (Fixture.Given g : f.given()) {
        if (g.event().isEmpty()) {
          continue;
        }
        String id = stream.eventIdOf(g);
        String declaredId =
            idColumn.isEmpty() ? null : DeclaredId.text(g.event().get().get(idColumn.get()));
        if (event.equals(id)
            || event.equals(declaredId)
            || event.equals(String.valueOf(g.eventNumber()))) {
          given.add(g);
        }
      }
      if (given.isEmpty()) {
        return "the fixture "
            + f.file()
            + " has no event "
            + event
            + ": give its number in the fixture (1 to "
            + f.given().stream().filter(g -> g.event().isPresent()).count()
            + "), its place <partition>-<offset>"
            + (idColumn.isPresent() ? ", or its " + idColumn.get() : "");
      }
      java.util.List<String> said = new java.util.ArrayList<>();
      for (Fixture.Given g : given) {
        String id = stream.eventIdOf(g);
        String which = "event " + g.eventNumber() + " (line " + g.line() + ", " + id + ")";
        if (outcome.duplicates.stream().anyMatch(d -> d.eventId.equals(id))) {
          said.add(
              which
                  + " was dropped as a duplicate: a repeat of an earlier event"
                  + idColumn.map(c -> " with the same " + c).orElse("")
                  + ", which makes no decision of its own");
        } else {
          outcome.quarantined.stream()
              .filter(q -> q.eventId.equals(id))
              .findFirst()
              .ifPresentOrElse(
                  q -> said.add(which + " was quarantined (" + q.reason + "): no decision"),
                  () -> said.add(which + " made no decision or routed row"));
        }
      }
      return String.join("; ", said);
    }

    /** The ledger's decisions (and reconcile queue) of the model, or of one event. */
    private int fromLedger(PrintWriter out, PrintWriter err) {
      Optional<Project> found = ProjectArgument.load(project, "decisions show", err);
      if (found.isEmpty()) {
        return 1;
      }
      model = DecisionsModelArgument.name(spec.commandLine(), found.get(), model);
      DecisionsModelArgument.model(spec.commandLine(), found.get(), model);
      JdbcTarget target = jdbcCredentials.target(jdbcUrl, spec.commandLine());
      List<DecisionLedger.StoredDecision> decisions;
      List<DecisionLedger.Reconcile> queue;
      try (HikariDataSource pool = target.openPool("streamform-decisions", 2, 10_000)) {
        // a reading command: a database without a ledger is said, not given one (ADR 0136)
        Optional<String> refused =
            ModelLedger.toRead(pool, target.describe(), "decisions show", err);
        if (refused.isPresent()) {
          err.println("streamform decisions show: " + refused.get());
          return 1;
        }
        DecisionLedger ledger = DecisionLedger.at(pool);
        decisions = ledger.decisions(model, event);
        queue = ledger.reconcileQueue(model);
      } catch (LedgerSchema.Unusable e) {
        err.println("streamform decisions show: " + e.getMessage());
        return 1;
      } catch (RuntimeException | SQLException e) {
        err.println(
            "streamform decisions show: cannot read the database "
                + target.describe()
                + ": "
                + ModelLedger.firstLine(e));
        return 1;
      }
      if (event != null) {
        queue.removeIf(q -> !event.equals(q.columns().get("event_id")));
      }
      out.printf(
          "model %s: %d %s, %d in the reconcile queue, in %s%n%n",
          model,
          decisions.size(),
          decisions.size() == 1 ? "decision" : "decisions",
          queue.size(),
          target.describe());
      for (DecisionLedger.StoredDecision d : decisions) {
        Map<String, Object> c = d.columns();
        out.println("decision " + d.decisionId());
        out.println(
            "  "
                + (d.revision() == 1 ? "scored" : "revised")
                + ", revision "
                + d.revision()
                + ", of event "
                + d.eventId()
                + " (partition "
                + c.get("event_partition")
                + ", offset "
                + c.get("event_offset")
                + ")");
        for (String k : LEDGER_FIELDS) {
          Object v = c.get(k);
          if (k.equals("arrival_watermark") && v == null) {
            v = "undefined (nothing earlier on its partition)";
          }
          if (v != null) {
            out.println("  " + k + ": " + v);
          }
        }
        out.println(
            "  features: "
                + new java.util.TreeMap<>(DecisionLedger.json((String) c.get("features"))));
        out.println("  score: " + c.get("score"));
        out.println();
      }
      for (DecisionLedger.Reconcile q : queue) {
        Map<String, Object> c = q.columns();
        out.println(
            "reconciled: event "
                + c.get("event_id")
                + " (partition "
                + c.get("event_partition")
                + ", offset "
                + c.get("event_offset")
                + ")");
        out.println("  occurred_at: " + c.get("occurred_at"));
        out.println("  arrival_watermark: " + c.get("arrival_watermark"));
        out.println("  affected_decisions: " + c.get("affected_decisions"));
        out.println("  queued_at: " + c.get("queued_at"));
        out.println(
            "  resolved_at: " + (c.get("resolved_at") == null ? "- (open)" : c.get("resolved_at")));
        out.println();
      }
      if (event != null && decisions.isEmpty() && queue.isEmpty()) {
        err.println("streamform decisions show: no decision in the ledger for event " + event);
        return 1;
      }
      out.flush();
      return 0;
    }

    private static final List<String> LEDGER_FIELDS =
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
            "revised_by",
            "recorded_at");

    private static void show(
        PrintWriter out, FixtureOutcome.Routed r, Fixture.Given item, String declaredId) {
      Map<String, String> id = r.identity();
      String[] po = r.eventId().split("-");
      // the declared id, when the source declares one
      String named = id.get("event_id") != null ? id.get("event_id") : declaredId;
      String where =
          "event "
              + (named == null ? r.eventId() : named)
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

  @Command(
      name = "verify",
      header =
          "Recomputes each decision's identity and score in the decision ledger; reports"
              + " mismatches.",
      mixinStandardHelpOptions = true,
      description = {
        "Reads the model's decisions from the decision ledger (streamform run --jdbc-url) and"
            + " recomputes each decision_id from its stored inputs (event, partition, offset,"
            + " occurred_at, contract, state cutoff and revision, digests, generation, revision,"
            + " supersedes); recomputes each score from its stored features and event with the"
            + " model as declared now, when the decision's model and preprocessing digests are"
            + " its (a decision of another version is listed as not rescored); checks that each"
            + " revision supersedes its event's previous revision. Prints every mismatch.",
        "Features changed together with a score that fits them cannot be told from the row"
            + " alone: the identity does not cover them (docs/decisions/0094)."
      },
      exitCodeListHeading = "%nExit status:%n",
      exitCodeList = {
        "0:every decision verified",
        "1:a mismatch, or the project or database cannot be used",
        "2:bad command line"
      })
  static final class Verify implements Callable<Integer> {
    @Parameters(paramLabel = "<project>", description = "the project folder")
    Path project;

    @Option(
        names = "--model",
        paramLabel = "M",
        description = "the scoring model (default: the project's only one)")
    String model;

    @Option(
        names = "--jdbc-url",
        paramLabel = "URL",
        required = true,
        description = "the PostgreSQL database of the decision ledger (no password in it)")
    String jdbcUrl;

    @Mixin JdbcCredentials jdbcCredentials;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      jdbcCredentials.check(jdbcUrl, spec.commandLine()); // before the project is loaded
      Optional<Project> found = ProjectArgument.load(project, "decisions verify", err);
      if (found.isEmpty()) {
        return 1;
      }
      model = DecisionsModelArgument.name(spec.commandLine(), found.get(), model);
      DeclaredModel declared = DecisionsModelArgument.model(spec.commandLine(), found.get(), model);
      ScoreEvents scoring;
      try {
        scoring = declared.scoreEvents(); // the scorer that recomputes each stored score
      } catch (IllegalArgumentException e) {
        err.println("streamform decisions verify: " + e.getMessage());
        return 1;
      }
      JdbcTarget target = jdbcCredentials.target(jdbcUrl, spec.commandLine());
      DecisionLedger.Verification v;
      try (HikariDataSource pool = target.openPool("streamform-decisions", 2, 10_000)) {
        // a reading command: a database without a ledger is said, not given one (ADR 0136)
        Optional<String> refused =
            ModelLedger.toRead(pool, target.describe(), "decisions verify", err);
        if (refused.isPresent()) {
          err.println("streamform decisions verify: " + refused.get());
          return 1;
        }
        v = DecisionLedger.at(pool).verify(model, scoring, declared.recordSchema());
      } catch (LedgerSchema.Unusable e) {
        err.println("streamform decisions verify: " + e.getMessage());
        return 1;
      } catch (RuntimeException | SQLException e) {
        err.println(
            "streamform decisions verify: cannot read the database "
                + target.describe()
                + ": "
                + ModelLedger.firstLine(e));
        return 1;
      }
      v.problems().forEach(p -> out.println("MISMATCH " + p));
      v.notRescored().forEach(p -> out.println("NOT RESCORED " + p));
      v.notes().forEach(p -> out.println("NOTE " + p));
      int other = v.notRescored().size();
      String rescored =
          other == 0
              ? "every score from its stored features and event"
              : "every score of the declared model version from its stored features and event ("
                  + other
                  + (other == 1 ? " decision" : " decisions")
                  + " of another version not rescored)";
      out.printf(
          "%d %s of %s in %s: %s%n",
          v.decisions(),
          v.decisions() == 1 ? "decision" : "decisions",
          model,
          target.describe(),
          v.clean()
              ? "every decision_id recomputes from its stored inputs; "
                  + rescored
                  + "; every supersedes chain whole"
              : v.problems().size() + (v.problems().size() == 1 ? " mismatch" : " mismatches"));
      out.flush();
      return v.clean() ? 0 : 1;
    }
  }
}
