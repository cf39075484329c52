package dev.streamform.cli;

import dev.streamform.core.time.Durations;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectRule;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code streamform dispatch}: moves a windowed model's declared effects out of the effect ledger
 * to their providers (docs/semantics.md §10), one {@link Dispatcher#runOnce} pass at a time.
 */
@Command(
    name = "dispatch",
    header = "Delivers a model's prepared effects to their providers, never twice.",
    mixinStandardHelpOptions = true,
    description = {
      "Delivers the model's declared effects (effects: in streamform.yml) that streamform run --jdbc-url"
          + " prepared in the ledger: each pass expires dispatches older than the lease to UNKNOWN,"
          + " resolves UNKNOWN effects by receipt query only (never a blind retry), claims PREPARED effects"
          + " confirmed against the canonical generation and revision, and delivers them with the effect"
          + " key as Idempotency-Key. Prints what each pass did. Several dispatchers may run at once.",
      "Without --once, passes repeat every --interval until the command is stopped; a dispatcher"
          + " stopped mid-pass leaves at most DISPATCHING effects, which a later pass expires to UNKNOWN"
          + " after the lease and resolves by receipt."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:the passes ran (effects left UNKNOWN are shown by streamform effects show)",
      "1:the model declares no effects, or the project or database cannot be used",
      "2:bad command line"
    })
final class DispatchCommand implements Callable<Integer> {
  @Mixin LedgerCommand.Target target;

  @Option(names = "--once", description = "one pass, then exit")
  boolean once;

  @Option(names = "--name", paramLabel = "N",
      description = "this dispatcher's name, recorded on the effects it claims (default: dispatch-<pid>)")
  String name;

  @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "1s",
      description = "pause between passes (default: ${DEFAULT-VALUE})")
  String interval;

  @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
      description = "PREPARED effects claimed per pass at most (default: ${DEFAULT-VALUE})")
  int limit;

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10s",
      description = "how long to wait for a provider's answer; no answer is UNKNOWN (default: ${DEFAULT-VALUE})")
  String timeout;

  @Option(names = "--lease", paramLabel = "DURATION", defaultValue = "1m",
      description = "an effect DISPATCHING for longer belongs to a dispatcher that died: UNKNOWN;"
          + " must exceed --timeout (default: ${DEFAULT-VALUE})")
  String lease;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Duration pause = duration("--interval", interval);
    Duration wait = duration("--timeout", timeout);
    Duration held = duration("--lease", lease);
    if (held.compareTo(wait) <= 0) {
      throw new ParameterException(spec.commandLine(), "--lease (" + lease + ") must exceed --timeout ("
          + timeout + "): a delivery still waiting for its answer would be taken for abandoned");
    }
    if (limit < 1) {
      throw new ParameterException(spec.commandLine(), "--limit must be 1 or more");
    }
    String me = name != null ? name : "dispatch-" + ProcessHandle.current().pid();
    Optional<ModelLedger> opened =
        ModelLedger.open(target.project, target.model,
            target.credentials.target(target.jdbcUrl, spec.commandLine()), false, "dispatch", spec.commandLine());
    if (opened.isEmpty()) {
      return 1;
    }
    try (ModelLedger l = opened.get()) {
      List<EffectRule> rules = DeclaredEffects.rules(l.model.model());
      if (rules.isEmpty()) {
        err.println("streamform dispatch: model '" + l.name() + "' declares no effects (effects: in streamform.yml)");
        return 1;
      }
      Dispatcher dispatcher = new Dispatcher(l.pool(), me, l.name(), DeclaredEffects.providers(rules, wait), held,
          new Dispatcher.Hooks() {});
      err.println("streamform dispatch: " + me + " for model " + l.name() + ": "
          + rules.stream().map(r -> r.type() + " -> " + r.provider().describe()).toList());
      err.flush();
      for (int pass = 1; ; pass++) {
        Dispatcher.Report report = dispatcher.runOnce(limit);
        if (once || busy(report)) {
          out.println("pass " + pass + ": " + report.describe());
          out.flush();
        }
        if (once) {
          return 0;
        }
        try {
          Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return 0;
        }
      }
    } catch (SQLException e) {
      err.println("streamform dispatch: " + ModelLedger.firstLine(e));
      return 1;
    }
  }

  /** A pass that changed something: worth a line when looping (effects still UNKNOWN are not news). */
  private static boolean busy(Dispatcher.Report r) {
    return r.expired() + r.resolvedDone() + r.redispatched() + r.claimed() + r.done()
        + r.unknown() + r.notSent() > 0;
  }

  private Duration duration(String option, String text) {
    try {
      return Durations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), option + ": " + e.getMessage());
    }
  }
}
