package dev.streamform.cli;

import dev.streamform.core.text.Counts;
import dev.streamform.sink.effects.EffectsPause;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code streamform effects pause|resume}: the stop switch of a windowed model's effects
 * (docs/semantics.md §10.12), kept in the database ({@link EffectsPause}) so that every dispatcher
 * of the model obeys it, wherever it runs.
 */
final class EffectsPauseCommand {
  private EffectsPauseCommand() {}

  /** Who pauses or resumes, when {@code --by} is not given: the operating-system user. */
  static String defaultActor() {
    return System.getProperty("user.name", "unknown");
  }

  @Command(
      name = "pause",
      header = "Stops a model's dispatchers from claiming any effect, until resumed.",
      mixinStandardHelpOptions = true,
      description = {
        "Pauses the model's effects, in the database: from their next claim on, the model's"
            + " dispatchers claim nothing — no PREPARED effect, and no UNKNOWN effect that a"
            + " receipt query found never applied — and each pass says so. Effects already being"
            + " delivered (DISPATCHING) finish and their outcomes are recorded; receipt queries"
            + " still resolve UNKNOWN effects. The revision sink keeps preparing effects. Shown by"
            + " streamform effects show; undone by streamform effects resume. Pausing a paused"
            + " model changes nothing. In a database with no Streamform ledger yet, one is set up"
            + " to hold the pause (said on standard error), so a job not started yet is paused"
            + " from its first pass."
      },
      exitCodeListHeading = "%nExit status:%n",
      exitCodeList = {
        "0:paused (or already paused)",
        "1:the model declares no effects (effects: in streamform.yml), or without --model the"
            + " project has no windowed model with effects, or the project or database cannot be"
            + " used",
        "2:bad command line"
      })
  static final class Pause implements Callable<Integer> {
    @Mixin LedgerCommand.Target target;

    @Option(
        names = "--reason",
        paramLabel = "TEXT",
        description = "why, recorded with the pause and shown by streamform effects show")
    String reason;

    @Option(
        names = "--by",
        paramLabel = "NAME",
        description = "who pauses, recorded with the pause (default: the operating-system user)")
    String by;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      Optional<ModelLedger> opened =
          target.open(
              true, "effects pause", spec.commandLine(), ModelLedger.Reads.DECLARED_EFFECTS);
      if (opened.isEmpty()) {
        return 1;
      }
      try (ModelLedger l = opened.get()) {
        EffectsPause.Change c =
            new EffectsPause(l.pool()).pause(l.name(), by == null ? defaultActor() : by, reason);
        out.println(l.name() + ": " + describe(c));
        if (l.setUpNow()) {
          // a job not started yet is paused from its first pass; one writing elsewhere is not
          err.println(
              "note: there was no Streamform ledger in "
                  + l.database()
                  + ": one was set up to hold the pause, which the model's dispatchers obey once"
                  + " its job writes to this database");
        }
        return 0;
      } catch (SQLException e) {
        err.println("streamform effects pause: " + ModelLedger.firstLine(e));
        return 1;
      }
    }
  }

  /** What a pause did, for people: also part of {@code alias set --pause-effects}'s output. */
  static String describe(EffectsPause.Change c) {
    String inFlight =
        Counts.of(c.inFlight(), "effect")
            + " in flight (DISPATCHING) "
            + (c.inFlight() == 1 ? "finishes and is recorded" : "finish and are recorded");
    if (!c.changed()) {
      return "effects already paused (" + c.before().get().describe() + "); " + inFlight;
    }
    return "effects paused: dispatchers claim nothing from their next claim on; " + inFlight;
  }

  @Command(
      name = "resume",
      header = "Lets a paused model's dispatchers claim effects again.",
      mixinStandardHelpOptions = true,
      description = {
        "Resumes the model's effects: its dispatchers claim PREPARED effects again from their next"
            + " pass (those prepared meanwhile included). Recorded with the pause in"
            + " streamform.effect_pause_history. Resuming a model that is not paused changes"
            + " nothing."
      },
      exitCodeListHeading = "%nExit status:%n",
      exitCodeList = {
        "0:resumed (or was not paused)",
        "1:the model declares no effects (effects: in streamform.yml), or without --model the"
            + " project has no windowed model with effects, or the project or database cannot be"
            + " used, or the database has no Streamform ledger (nothing is paused there; a resume"
            + " creates none)",
        "2:bad command line"
      })
  static final class Resume implements Callable<Integer> {
    @Mixin LedgerCommand.Target target;

    @Option(
        names = "--by",
        paramLabel = "NAME",
        description = "who resumes, recorded (default: the operating-system user)")
    String by;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      Optional<ModelLedger> opened =
          // a resume never sets a ledger up: where there is none, nothing is paused
          target.open(
              false, "effects resume", spec.commandLine(), ModelLedger.Reads.DECLARED_EFFECTS);
      if (opened.isEmpty()) {
        return 1;
      }
      try (ModelLedger l = opened.get()) {
        EffectsPause.Change c =
            new EffectsPause(l.pool()).resume(l.name(), by == null ? defaultActor() : by);
        out.println(
            l.name()
                + ": "
                + (c.changed()
                    ? "effects resumed (paused " + c.before().get().describe() + ")"
                    : "effects were not paused; nothing changed"));
        return 0;
      } catch (SQLException e) {
        err.println("streamform effects resume: " + ModelLedger.firstLine(e));
        return 1;
      }
    }
  }
}
