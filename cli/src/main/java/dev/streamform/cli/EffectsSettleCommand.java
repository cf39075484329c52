package dev.streamform.cli;

import dev.streamform.planner.Schemas;
import dev.streamform.sink.Ledger;
import dev.streamform.sink.effects.EffectRule;
import dev.streamform.sink.effects.EffectSettlement;
import java.io.PrintWriter;
import java.sql.SQLException;
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
 * {@code streamform effects settle}: records what a person did about what the effect ledger leaves
 * for a person (docs/semantics.md §10, ADR 0140) — an UNKNOWN effect no receipt query settles, or
 * an open compensation record. Sends nothing to any provider.
 */
@Command(
    name = "settle",
    header = "Records a person's settlement of an UNKNOWN effect or a compensation.",
    mixinStandardHelpOptions = true,
    customSynopsis = {
      "streamform effects settle [-hV] [--by=NAME] [--jdbc-password-file=FILE] --jdbc-url=URL",
      "                                 [--jdbc-user=USER] [--model=M] --reason=TEXT"
          + " [--receipt=TEXT]",
      "                                 (--effect=KEYPREFIX | --compensation=ID) (--applied |",
      "                                 --not-applied | --done) <project>"
    },
    description = {
      "Records what a person found or did, with who, when and why (--reason), in the ledger's"
          + " table effect_settlement; sends nothing to any provider.",
      "--effect KEYPREFIX --applied [--receipt TEXT]: an UNKNOWN effect the person found applied"
          + " at the provider becomes DONE, the receipt given (or 'settled by NAME') as its"
          + " receipt, as if a receipt query had found it.",
      "--effect KEYPREFIX --not-applied: an UNKNOWN effect the person found never applied. Its"
          + " provider dedupes by key (idempotency: key): PREPARED again, and the next dispatcher"
          + " pass delivers it under the same key; its rule is evaluated first on its window's"
          + " canonical values now, as alias set does: still true, it follows them; false,"
          + " CANCELLED (nothing is sent; a revision that makes it true again prepares it again)."
          + " It does not (idempotency: none): NOT_APPLIED,"
          + " never sent again (a retry after dispatch could be a second effect); the person"
          + " makes it happen at the provider if it is owed. Refused for incremental effects with"
          + " deltas.",
      "--compensation ID --done: closes an open compensation record (the id effects show"
          + " prints); effects verify no longer counts it open.",
      "Only an UNKNOWN effect is settled: any other state, a key prefix that matches no effect or"
          + " several (listed), a closed compensation, is refused in one line and nothing"
          + " changes. A dispatcher's receipt query that moves the effect first wins."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:settled and recorded",
      "1:refused (the effect is not UNKNOWN, the key prefix is unknown or ambiguous, the"
          + " compensation is closed or unknown), or the project or database cannot be used",
      "2:bad command line"
    })
final class EffectsSettleCommand implements Callable<Integer> {
  @Mixin LedgerCommand.Target target;

  // plain options, not exclusive @ArgGroups: their mistakes were picocli's own words ("Error:
  // Missing required argument (specify one of these)", "expected only one match"); validate()
  // says them as every command does
  @Option(
      names = "--effect",
      paramLabel = "KEYPREFIX",
      description = "the UNKNOWN effect: its key or a prefix of it (effects show prints 12 digits)")
  String effect;

  @Option(
      names = "--compensation",
      paramLabel = "ID",
      description = "the open compensation record: its id (effects show prints it)")
  Long compensation;

  @Option(names = "--applied", description = "the provider applied the effect")
  boolean applied;

  @Option(names = "--not-applied", description = "the provider never applied the effect")
  boolean notApplied;

  @Option(names = "--done", description = "the compensation has been dealt with")
  boolean done;

  @Option(
      names = "--receipt",
      paramLabel = "TEXT",
      description = "with --applied: the provider's receipt or reference the person found")
  String receipt;

  @Option(
      names = "--reason",
      paramLabel = "TEXT",
      required = true,
      description = "why: what the person checked or did, recorded and shown by effects show")
  String reason;

  @Option(
      names = "--by",
      paramLabel = "NAME",
      description = "who settles, recorded (default: the operating-system user)")
  String by;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    validate();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Optional<ModelLedger> opened =
        // an effect to settle is in a ledger already: one is never created here (an older one is
        // brought up to date)
        target.open(false, "effects settle", spec.commandLine(), ModelLedger.Reads.EFFECTS);
    if (opened.isEmpty()) {
      return 1;
    }
    String who = by == null ? EffectsPauseCommand.defaultActor() : by;
    try (ModelLedger l = opened.get()) {
      // an effect made PREPARED again is evaluated on the canonical values now, as alias set does
      List<EffectRule> rules = DeclaredEffects.rules(l.model.model());
      EffectSettlement settlement =
          new EffectSettlement(
              l.pool(),
              rules.isEmpty()
                  ? EffectSettlement.Reevaluation.NONE
                  : Ledger.reevaluation(rules, Schemas.of(l.model.outputColumns())));
      if (compensation != null) {
        EffectSettlement.Settlement s =
            settlement.closeCompensation(l.name(), compensation, who, reason);
        out.println(
            l.name()
                + ": compensation "
                + compensation
                + " of effect "
                + s.effectKey().substring(0, 12)
                + " closed "
                + s.describe());
        return 0;
      }
      EffectSettlement.Settled s =
          applied
              ? settlement.applied(l.name(), effect, who, reason, receipt)
              : settlement.notApplied(l.name(), effect, who, reason);
      out.println(l.name() + ": effect " + s.effectKey() + " " + said(s));
      return 0;
    } catch (EffectSettlement.Refused e) {
      err.println("streamform effects settle: " + e.getMessage());
      return 1;
    } catch (SQLException e) {
      err.println("streamform effects settle: " + ModelLedger.firstLine(e));
      return 1;
    }
  }

  private static String said(EffectSettlement.Settled s) {
    return switch (s.toState()) {
      case "DONE" -> "UNKNOWN -> DONE: applied at the provider, settled by a person";
      case "PREPARED" ->
          "UNKNOWN -> PREPARED: never applied; the next dispatcher pass delivers it again under"
              + " the same idempotency key";
      case "CANCELLED" ->
          "UNKNOWN -> CANCELLED: never applied, and its rule is false on the canonical values now"
              + " (generation "
              + s.generation()
              + " revision "
              + s.revision()
              + "): nothing is sent; a revision that makes it true again prepares it again";
      default ->
          "UNKNOWN -> NOT_APPLIED: never applied; never sent again (its provider does not dedupe"
              + " by key)";
    };
  }

  private void validate() {
    if (effect != null && compensation != null) {
      throw new ParameterException(
          spec.commandLine(), "--effect and --compensation are mutually exclusive: give one");
    }
    if (effect == null && compensation == null) {
      throw new ParameterException(
          spec.commandLine(),
          "what is settled is missing: give --effect KEYPREFIX or --compensation ID");
    }
    List<String> outcomes = new java.util.ArrayList<>();
    if (applied) {
      outcomes.add("--applied");
    }
    if (notApplied) {
      outcomes.add("--not-applied");
    }
    if (done) {
      outcomes.add("--done");
    }
    if (outcomes.size() > 1) {
      throw new ParameterException(
          spec.commandLine(), String.join(" and ", outcomes) + " are mutually exclusive: give one");
    }
    if (outcomes.isEmpty()) {
      throw new ParameterException(
          spec.commandLine(),
          "what the person found is missing: give --applied or --not-applied (with --effect),"
              + " or --done (with --compensation)");
    }
    if (effect != null && !effect.matches("[0-9a-fA-F]{1,64}")) {
      // the ledger refused it too, after connecting (EffectSettlement.resolve)
      throw new ParameterException(
          spec.commandLine(),
          "--effect "
              + effect
              + ": a key prefix is hex digits (0-9, a-f), as effects show prints them; give the"
              + " key or its first digits");
    }
    if (compensation != null && !done) {
      throw new ParameterException(
          spec.commandLine(),
          "--compensation takes --done (--applied and --not-applied are for" + " --effect)");
    }
    if (effect != null && done) {
      throw new ParameterException(
          spec.commandLine(),
          "--effect takes --applied or --not-applied (--done is for" + " --compensation)");
    }
    if (receipt != null && !applied) {
      throw new ParameterException(spec.commandLine(), "--receipt goes with --applied");
    }
  }
}
