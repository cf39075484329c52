package dev.streamform.cli;

import dev.streamform.core.text.Counts;
import dev.streamform.core.time.Durations;
import dev.streamform.planner.Schemas;
import dev.streamform.sink.Ledger;
import dev.streamform.sink.effects.Dispatcher;
import dev.streamform.sink.effects.EffectProvider;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.WebhookProvider;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.checkerframework.checker.nullness.qual.Nullable;
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
      "Delivers the model's declared effects (effects: in streamform.yml) that streamform run"
          + " --jdbc-url prepared in the ledger: each pass expires dispatches whose lease is over"
          + " (the lease of the dispatcher that claimed them) to UNKNOWN, resolves UNKNOWN effects"
          + " by receipt query only (never a blind retry), claims PREPARED effects confirmed"
          + " against the canonical generation and revision, and delivers them with the effect key"
          + " as Idempotency-Key. Prints what each pass did. Several dispatchers may run at once.",
      "Effects are claimed one at a time, each right before its delivery (its lease starts then),"
          + " and every outcome is written only over the dispatcher's own attempt. After nothing"
          + " was sent or an unknown outcome, an effect's next attempt waits --backoff, doubling"
          + " per attempt up to --max-backoff. An UNKNOWN effect is asked about at the next pass;"
          + " a receipt query that leaves it UNKNOWN (it failed, or found it never applied and"
          + " the provider does not dedupe by key) counts as an attempt: the next query waits"
          + " the same backoff, and the pass line says why.",
      "Without --once, passes repeat every --interval until the command is stopped; when the"
          + " database fails, the dispatcher keeps the outcomes it learned, says so, and writes"
          + " them when the database is back (passes claim nothing meanwhile). A dispatcher stopped"
          + " mid-pass leaves at most DISPATCHING effects, which a later pass expires to UNKNOWN"
          + " after the lease and resolves by receipt.",
      "While the model's effects are paused (streamform effects pause, or alias set"
          + " --pause-effects) a pass claims nothing and its line begins 'effects paused (since"
          + " ... by ...)'; effects already being delivered finish and are recorded."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:the passes ran (effects left UNKNOWN are shown by streamform effects show)",
      "1:the model declares no effects (or, without --model, the project has no windowed model"
          + " with effects), the project or database cannot be used, a provider's"
          + " credential cannot be read, or (--once) an outcome could not be written",
      "2:bad command line"
    })
final class DispatchCommand implements Callable<Integer> {
  @Mixin LedgerCommand.Target target;

  @Option(names = "--once", description = "one pass, then exit")
  boolean once;

  @Option(
      names = "--name",
      paramLabel = "N",
      description =
          "this dispatcher's name, recorded on the effects it claims (default: dispatch-<pid>)")
  String name;

  @Option(
      names = "--interval",
      paramLabel = "DURATION",
      defaultValue = "1s",
      description = "pause between passes (default: ${DEFAULT-VALUE})")
  String interval;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "100",
      description = "PREPARED effects claimed per pass at most (default: ${DEFAULT-VALUE})")
  int limit;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "10s",
      description =
          "how long to wait for a provider's answer, more than 0; no answer is UNKNOWN"
              + " (default: ${DEFAULT-VALUE})")
  String timeout;

  @Option(
      names = "--lease",
      paramLabel = "DURATION",
      defaultValue = "1m",
      description =
          "the lease this dispatcher's claims take: an effect it claimed and still holds"
              + " DISPATCHING after it belongs to a dispatcher that died and becomes UNKNOWN;"
              + " must exceed --timeout (default: ${DEFAULT-VALUE})")
  String lease;

  @Option(
      names = "--backoff",
      paramLabel = "DURATION",
      defaultValue = "1s",
      description =
          "after an attempt that sent nothing or whose outcome is unknown, the effect's next"
              + " attempt waits this long, doubling per attempt (default: ${DEFAULT-VALUE})")
  String backoff;

  @Option(
      names = "--max-backoff",
      paramLabel = "DURATION",
      defaultValue = "5m",
      description =
          "the longest wait between two attempts of an effect (default: ${DEFAULT-VALUE})")
  String maxBackoff;

  /**
   * Tries of writing kept outcomes before {@code --once} gives up: with waits doubling to 15 s and
   * each try waiting up to the pool's connection timeout, about three minutes with a database that
   * does not answer (docs/guides/effects.md).
   */
  private static final int ONCE_OUTCOME_TRIES = 8;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Duration pause = duration("--interval", interval);
    Duration wait = duration("--timeout", timeout);
    Duration held = duration("--lease", lease);
    Duration firstBackoff = duration("--backoff", backoff);
    Duration longestBackoff = duration("--max-backoff", maxBackoff);
    if (longestBackoff.compareTo(firstBackoff) < 0) {
      throw new ParameterException(
          spec.commandLine(),
          "--max-backoff (" + maxBackoff + ") must be at least" + " --backoff (" + backoff + ")");
    }
    if (wait.isZero() || wait.isNegative()) {
      // the HTTP client refuses a zero timeout: it was an internal error, exit 1
      throw new ParameterException(
          spec.commandLine(),
          "--timeout ("
              + timeout
              + ") must be more than 0: it is how long a delivery or receipt query waits for"
              + " the provider");
    }
    if (held.compareTo(wait) <= 0) {
      throw new ParameterException(
          spec.commandLine(),
          "--lease ("
              + lease
              + ") must exceed --timeout ("
              + timeout
              + "): a delivery still waiting for its answer would be taken for abandoned");
    }
    if (limit < 1) {
      throw new ParameterException(spec.commandLine(), "--limit must be 1 or more");
    }
    String me = name != null ? name : "dispatch-" + ProcessHandle.current().pid();
    Optional<ModelLedger> opened =
        target.open(false, "dispatch", spec.commandLine(), ModelLedger.Reads.DECLARED_EFFECTS);
    if (opened.isEmpty()) {
      return 1;
    }
    // opening brought a ledger of an older version up to date (the pause switch's table with it)
    try (ModelLedger l = opened.get()) {
      // a model without effects was refused before the database (ModelLedger.Reads)
      List<EffectRule> rules = DeclaredEffects.rules(l.model.model(), target.project);
      Map<String, EffectProvider> providers = DeclaredEffects.providers(rules, wait);
      for (Map.Entry<String, EffectProvider> p : providers.entrySet()) {
        Optional<String> problem = ((WebhookProvider) p.getValue()).authorizationProblem();
        if (problem.isPresent()) {
          err.println("streamform dispatch: effect " + p.getKey() + ": " + problem.get());
          return 1;
        }
      }
      Dispatcher dispatcher =
          new Dispatcher(l.pool(), me, l.name(), providers, held, new Dispatcher.Hooks() {})
              .withBackoff(firstBackoff, longestBackoff)
              // an UNKNOWN effect found never applied whose window moved meanwhile is evaluated
              // on the canonical values before it is delivered again (ADR 0159)
              .withReevaluation(Ledger.reevaluation(rules, Schemas.of(l.model.outputColumns())));
      err.println(
          "streamform dispatch: "
              + me
              + " for model "
              + l.name()
              + ": "
              + rules.stream()
                  .map(
                      r ->
                          r.type()
                              + " -> "
                              + r.provider().describe()
                              + (r.provider().authorizationEnv() == null
                                      && r.provider().authorizationFile() == null
                                  ? ""
                                  : " (" + r.provider().describeAuthorization() + ")"))
                  .toList());
      err.flush();
      Duration failing = Duration.ZERO;
      boolean wasPaused = false;
      for (int pass = 1; ; pass++) {
        try {
          Dispatcher.Report report = dispatcher.runOnce(limit);
          failing = Duration.ZERO;
          // a pause is news when it starts and when it ends, not every pass in between
          boolean paused = report.paused().isPresent();
          if (once || busy(report) || paused != wasPaused) {
            out.println(
                "pass "
                    + pass
                    + ": "
                    + (wasPaused && !paused ? "effects resumed; " : "")
                    + report.describe());
            out.flush();
          }
          wasPaused = paused;
          if (once) {
            return finishOnce(dispatcher, err);
          }
        } catch (SQLException e) {
          // the database failed: keep what was learned, say so, try again later (never exit here)
          failing = failing.isZero() ? pause : min(failing.multipliedBy(2), Duration.ofSeconds(30));
          err.println(
              databaseFailed(
                  pass,
                  e instanceof Dispatcher.PassFailed f ? f.report() : null,
                  failure(e, ""),
                  dispatcher.unwrittenOutcomes(),
                  once ? null : failing));
          err.flush();
          if (once) {
            finishOnce(dispatcher, err);
            return 1;
          }
        }
        if (!sleep(failing.isZero() ? pause : failing)) {
          return 0;
        }
      }
    }
  }

  /**
   * What stopped a pass ({@code again} after the verb, or empty): {@code the database failed:
   * Connection refused …}, or, when the database refused a statement for its data (SQLState class
   * 22 or 23), {@code the database refused a write (not an outage: SQLState 22021, ERROR: invalid
   * byte sequence …)} — a refusal is not an outage, and its cause is what a person needs (ADR
   * 0184).
   */
  static String failure(SQLException e, String again) {
    return Dispatcher.dataRefusal(e)
        .map(r -> "the database refused a write" + again + " (not an outage: " + r + ")")
        .orElseGet(() -> "the database failed" + again + ": " + ModelLedger.firstLine(e));
  }

  /**
   * The line of a pass the database stopped: what the pass did before (so the claims and outcomes
   * printed add up over the passes), the failure ({@link #failure}), the outcomes kept, and when
   * the next pass runs ({@code next} null: no next pass).
   */
  static String databaseFailed(
      int pass,
      Dispatcher.@Nullable Report before,
      String failure,
      int unwritten,
      @Nullable Duration next) {
    String did =
        before == null || before.claimed() + before.resolvedDone() + before.redispatched() == 0
            ? ""
            : before.claimed()
                + " claimed, "
                + before.done()
                + " done, "
                + before.unknown()
                + " unknown, "
                + before.notSent()
                + " not sent (prepared again)"
                + (before.resolvedDone() == 0
                    ? ""
                    : ", " + before.resolvedDone() + " resolved by receipt")
                + (before.redispatched() == 0
                    ? ""
                    : ", " + before.redispatched() + " delivered again")
                + ", then ";
    return "streamform dispatch: pass "
        + pass
        + ": "
        + did
        + failure
        + (unwritten > 0 ? "; " + Counts.of(unwritten, "outcome") + " kept to be written" : "")
        + (next == null ? "" : "; next pass in " + next.toMillis() + " ms");
  }

  /**
   * {@code --once}: outcomes the database refused are written again for a while; those still
   * refused stay DISPATCHING in the ledger (resolved by receipt after the lease): exit 1.
   */
  private static int finishOnce(Dispatcher dispatcher, PrintWriter err) {
    Duration wait = Duration.ofMillis(250);
    for (int i = 0; i < ONCE_OUTCOME_TRIES && dispatcher.unwrittenOutcomes() > 0; i++) {
      if (!sleep(wait)) {
        break;
      }
      wait = min(wait.multipliedBy(2), Duration.ofSeconds(15));
      try {
        dispatcher.runOnce(0);
      } catch (SQLException e) {
        err.println("streamform dispatch: " + failure(e, " again"));
      }
    }
    if (dispatcher.unwrittenOutcomes() > 0) {
      err.println(
          "streamform dispatch: "
              + Counts.of(dispatcher.unwrittenOutcomes(), "outcome")
              + " could not be written;"
              + " those effects stay DISPATCHING and are resolved by receipt after the lease");
      err.flush();
      return 1;
    }
    return 0;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static boolean sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * A pass that changed something or asked about an effect in vain: worth a line when looping
   * (effects still UNKNOWN and not asked about are not news; receipt queries back off, so these
   * lines do too).
   */
  private static boolean busy(Dispatcher.Report r) {
    return r.expired()
                + r.resolvedDone()
                + r.redispatched()
                + r.claimed()
                + r.done()
                + r.unknown()
                + r.notSent()
                + r.lost()
                + r.unwritten()
                + r.writeFailures()
                + r.receiptFailures()
                + r.receiptsForAPerson()
            > 0
        // the alias held past the lease stopped the claims: said every pass it does
        || r.aliasHeld() != null;
  }

  private Duration duration(String option, String text) {
    try {
      return Durations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), option + ": " + e.getMessage());
    }
  }
}
