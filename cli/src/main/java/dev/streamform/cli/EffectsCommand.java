package dev.streamform.cli;

import dev.streamform.core.text.Counts;
import dev.streamform.core.text.Excerpt;
import dev.streamform.sink.effects.EffectRuleErrors;
import dev.streamform.sink.effects.EffectSettlement;
import dev.streamform.sink.effects.EffectsLedger;
import dev.streamform.sink.effects.EffectsPause;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.checkerframework.checker.nullness.qual.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code streamform effects show|verify}: a windowed model's effect ledger (docs/semantics.md §10),
 * shown as a table or checked against its invariants. Reads only.
 */
@Command(
    name = "effects",
    header = "The effect ledger of a windowed model.",
    mixinStandardHelpOptions = true,
    description =
        "A windowed model's effect ledger in PostgreSQL: show its effects and compensations, verify"
            + " it, pause and resume its dispatchers, or record a person's settlement.",
    synopsisSubcommandLabel = "COMMAND",
    subcommands = {
      EffectsCommand.Show.class,
      EffectsCommand.Verify.class,
      EffectsPauseCommand.Pause.class,
      EffectsPauseCommand.Resume.class,
      EffectsSettleCommand.class
    })
final class EffectsCommand implements Callable<Integer> {
  static final List<String> STATES =
      List.of("PREPARED", "DISPATCHING", "DONE", "UNKNOWN", "CANCELLED", "NOT_APPLIED");

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return Streamform.USAGE;
  }

  @Command(
      name = "show",
      header = "Shows the effect ledger: effects, then compensations.",
      mixinStandardHelpOptions = true,
      description = {
        "Prints the model's effects, one line each: key (first 12 hex digits), type, subject,"
            + " window start, the generation and revision that confirmed it, state, delivery"
            + " attempts, the provider's receipt (a character that would not print escaped, as in"
            + " ledger show, a long one shortened to its start, length and end) and the last"
            + " error (for an UNKNOWN effect, also"
            + " what the receipt queries since said when they left it UNKNOWN: failed, or never"
            + " applied and for a person); then the compensation records (id, and when, by whom and"
            + " why a person closed it), what people settled (streamform effects settle), and the"
            + " rules the sink could not evaluate on a revision (that window's effect was left as"
            + " it was). When the model's effects are paused, a line under the first says since"
            + " when, by whom and why."
      },
      exitCodeListHeading = "%nExit status:%n",
      exitCodeList = {
        "0:printed",
        "1:the project has no windowed model with effects (without --model), or the project or"
            + " database cannot be used",
        "2:bad command line"
      })
  static final class Show implements Callable<Integer> {
    @Mixin LedgerCommand.Target target;
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      Optional<ModelLedger> opened =
          target.open(false, "effects show", spec.commandLine(), ModelLedger.Reads.EFFECTS);
      if (opened.isEmpty()) {
        return 1;
      }
      try (ModelLedger l = opened.get()) {
        EffectsLedger ledger = new EffectsLedger(l.pool());
        List<EffectsLedger.Effect> effects = ledger.effects(l.name());
        List<EffectsLedger.Compensation> compensations = ledger.compensations(l.name());
        out.println(
            l.name()
                + ": "
                + Counts.of(effects.size(), "effect")
                + ", "
                + Counts.of(compensations.size(), "compensation"));
        Optional<EffectsPause.State> paused = new EffectsPause(l.pool()).state(l.name());
        if (paused.isPresent()) {
          out.println(
              "effects paused "
                  + paused.get().describe()
                  + " (dispatchers claim nothing; streamform effects resume)");
        }
        if (!effects.isEmpty()) {
          List<List<String>> rows = new ArrayList<>();
          rows.add(
              List.of(
                  "key",
                  "type",
                  "subject",
                  "window",
                  "revision",
                  "state",
                  "attempts",
                  "receipt",
                  "last error"));
          for (EffectsLedger.Effect e : effects) {
            rows.add(
                List.of(
                    e.effectKey().substring(0, 12),
                    e.type(),
                    e.subject(),
                    instant(e.windowStart()),
                    "g" + e.generation() + " r" + e.revision(),
                    e.state(),
                    String.valueOf(e.attempts()),
                    receipt(e.receipt()),
                    e.lastError() == null ? "-" : HistoryTable.keyValue(e.lastError())));
          }
          table(rows, out);
        }
        if (!compensations.isEmpty()) {
          out.println(
              "compensations (for a person: an open one records an effect that happened and will"
                  + " not be repeated or undone, closed by streamform effects settle --compensation"
                  + " ID --done; a closed one says who closed it and why):");
          List<List<String>> rows = new ArrayList<>();
          rows.add(List.of("id", "key", "reason", "by", "effect was", "closed"));
          for (EffectsLedger.Compensation k : compensations) {
            rows.add(
                List.of(
                    String.valueOf(k.id()),
                    k.effectKey().substring(0, 12),
                    k.reason(),
                    "g" + k.generation() + " r" + k.revision(),
                    k.effectState(),
                    k.closed() == null ? "- (open)" : k.closed()));
          }
          table(rows, out);
        }
        List<EffectSettlement.Settlement> settled =
            new EffectSettlement(l.pool())
                .settlements(l.name()).stream().filter(x -> x.compensationId() == null).toList();
        if (!settled.isEmpty()) {
          out.println("settled by a person (streamform effects settle):");
          List<List<String>> rows = new ArrayList<>();
          rows.add(List.of("key", "found", "now", "receipt", "at, by, why"));
          for (EffectSettlement.Settlement x : settled) {
            rows.add(
                List.of(
                    x.effectKey().substring(0, 12),
                    x.outcome().replace('_', ' '),
                    x.toState(),
                    receipt(x.receipt()),
                    x.describe()));
          }
          table(rows, out);
        }
        List<EffectRuleErrors.RuleError> ruleErrors = new EffectRuleErrors(l.pool()).list(l.name());
        if (!ruleErrors.isEmpty()) {
          out.println(
              "rule errors (the rule could not be evaluated on the revision; the window's effect"
                  + " was left as it was):");
          List<List<String>> rows = new ArrayList<>();
          rows.add(List.of("type", "window", "by", "resolved", "rule", "error"));
          for (EffectRuleErrors.RuleError r : ruleErrors) {
            rows.add(
                List.of(
                    r.effectType(),
                    r.logicalWindowId().substring(0, 12),
                    "g" + r.generation() + " r" + r.revision(),
                    r.resolved() ? "yes" : "no",
                    "`" + r.rule() + "`",
                    r.error()));
          }
          table(rows, out);
        }
        return 0;
      } catch (SQLException e) {
        err.println("streamform effects show: " + ModelLedger.firstLine(e));
        return 1;
      }
    }
  }

  @Command(
      name = "verify",
      header = "Checks the effect ledger's invariants; exits 1 on a problem.",
      mixinStandardHelpOptions = true,
      description = {
        "Checks the model's effect ledger: every effect key and payload digest recomputes, DONE"
            + " effects have a receipt and a dispatch, nothing was delivered again after UNKNOWN"
            + " without a receipt query, a provider with neither idempotency keys nor receipts got"
            + " at most one dispatch, every effect's window has its confirming revision, no rule"
            + " error is open (a rule the sink could not evaluate on a revision); a person's"
            + " settlement counts as a receipt, and each one is recorded; each claim confirmed the"
            + " generation the alias gave its key at the alias version it recorded and a revision"
            + " its window has, and an effect sent carries what its last claim confirmed. Prints"
            + " each problem, then the figures: 'N effects: N done, N unknown, ...; N dispatches,"
            + " N open compensations; N problems', with 'N claims that cannot be checked' before"
            + " the problems when claims were made before the ledger recorded what a claim"
            + " confirmed."
      },
      exitCodeListHeading = "%nExit status:%n",
      exitCodeList = {
        "0:no problem",
        "1:a problem, the project has no windowed model with effects (without --model), or the"
            + " project or database cannot be used",
        "2:bad command line"
      })
  static final class Verify implements Callable<Integer> {
    @Mixin LedgerCommand.Target target;
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      Optional<ModelLedger> opened =
          target.open(false, "effects verify", spec.commandLine(), ModelLedger.Reads.EFFECTS);
      if (opened.isEmpty()) {
        return 1;
      }
      try (ModelLedger l = opened.get()) {
        EffectsLedger.Verification checked = new EffectsLedger(l.pool()).verify(l.name());
        List<String> problems = new ArrayList<>(checked.problems());
        for (EffectRuleErrors.RuleError r : new EffectRuleErrors(l.pool()).list(l.name())) {
          if (!r.resolved()) {
            problems.add("rule error: " + r.line());
          }
        }
        EffectsLedger.Verification v = new EffectsLedger.Verification(checked.figures(), problems);
        v.problems().forEach(out::println);
        out.println(summary(v));
        return v.ok() ? 0 : 1;
      } catch (SQLException e) {
        err.println("streamform effects verify: " + ModelLedger.firstLine(e));
        return 1;
      }
    }
  }

  /**
   * {@code 3 effects: 2 done, 1 unknown, 0 prepared, 0 dispatching, 0 cancelled; 3 dispatches, 0
   * open compensations; 0 problems}; {@code , 1 not applied} after {@code 0 cancelled} when a
   * person settled effects as never applied.
   */
  static String summary(EffectsLedger.Verification v) {
    Map<String, Integer> f = v.figures();
    List<String> states = new ArrayList<>();
    for (String state : List.of("DONE", "UNKNOWN", "PREPARED", "DISPATCHING", "CANCELLED")) {
      states.add(
          f.getOrDefault("state " + state, 0) + " " + state.toLowerCase(java.util.Locale.ROOT));
    }
    int notApplied = f.getOrDefault("state NOT_APPLIED", 0);
    if (notApplied > 0) {
      states.add(notApplied + " not applied");
    }
    return Counts.of(f.getOrDefault("effects", 0), "effect")
        + ": "
        + String.join(", ", states)
        + "; "
        + Counts.of(f.getOrDefault("dispatches", 0), "dispatch")
        + ", "
        + f.getOrDefault("open compensations", 0)
        + " open "
        + (f.getOrDefault("open compensations", 0) == 1 ? "compensation" : "compensations")
        + (f.getOrDefault("claims that cannot be checked", 0) == 0
            ? ""
            : ", "
                + Counts.of(f.get("claims that cannot be checked"), "claim")
                + " that cannot be checked (made before the ledger recorded what a claim"
                + " confirmed)")
        + "; "
        + Counts.of(v.problems().size(), "problem");
  }

  /**
   * An RFC 3339 time as {@link java.time.Instant} prints it (no .000); as stored when it is not
   * one.
   */
  private static String instant(String text) {
    if (text == null) {
      return "-";
    }
    try {
      return java.time.Instant.parse(text).toString();
    } catch (java.time.format.DateTimeParseException e) {
      return text;
    }
  }

  /**
   * A receipt as a table's cell shows it: the provider's text, escaped as {@code ledger show}
   * escapes a key value that would not print as itself ({@link HistoryTable#keyValue}: a newline or
   * a tab broke the table's row), and a long one shortened to its start, its length and its end
   * ({@link Excerpt}: a 5 MB body was printed whole). {@code -} when there is none.
   */
  static String receipt(@Nullable String receipt) {
    return receipt == null ? "-" : Excerpt.of(HistoryTable.keyValue(receipt));
  }

  /** Left-aligned columns, two spaces apart, indented by two; the last column unpadded. */
  private static void table(List<List<String>> rows, PrintWriter out) {
    int columns = rows.get(0).size();
    int[] width = new int[columns];
    for (List<String> row : rows) {
      for (int i = 0; i < columns; i++) {
        width[i] = Math.max(width[i], row.get(i).length());
      }
    }
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder("  ");
      for (int i = 0; i < columns; i++) {
        line.append(
            i == columns - 1 ? row.get(i) : String.format("%-" + (width[i] + 2) + "s", row.get(i)));
      }
      out.println(line.toString().stripTrailing());
    }
  }
}
