package dev.streamform.cli;

import dev.streamform.core.text.Counts;
import dev.streamform.planner.Schemas;
import dev.streamform.sink.AliasRequest;
import dev.streamform.sink.CanaryShare;
import dev.streamform.sink.Ledger;
import dev.streamform.sink.LedgerWriter;
import dev.streamform.sink.effects.EffectRule;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code streamform alias set}: names the generation of a windowed model whose projections the
 * canonical view ({@code streamform.canonical_projection}) shows — a promotion or a rollback. No
 * revision is ever deleted; a job of another generation keeps writing its own projections.
 */
@Command(
    name = "alias",
    header = "Which generation of a model the canonical view shows.",
    mixinStandardHelpOptions = true,
    description =
        "The canonical alias of a windowed model: which generation readers of the canonical view"
            + " see.",
    synopsisSubcommandLabel = "COMMAND",
    subcommands = {AliasCommand.Set.class})
final class AliasCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return Streamform.USAGE;
  }

  @Command(
      name = "set",
      header = "Points the canonical view at a generation (promote or roll back).",
      mixinStandardHelpOptions = true,
      description = {
        "Makes generation N the model's canonical one: streamform.canonical_projection shows that"
            + " generation's projections from now on (promote a new generation, or roll back to an"
            + " old one). Deletes nothing — both generations keep every projection and ledger row;"
            + " recorded in streamform.canonical_alias_history. Refused for a generation with no"
            + " projection (the canonical view would go empty) unless --allow-empty.",
        "In the same transaction, the model's declared effect rules (effects: in"
            + " streamform.yml) are evaluated on every window's newly canonical values: a rule now"
            + " true with no effect prepares one; a PREPARED effect follows the new values, or is"
            + " CANCELLED when its rule is now false; an effect already dispatched whose rule is"
            + " now false, or whose payload changed, gets a compensation record for a person —"
            + " never a second effect. A window the generation has no projection of is left as it"
            + " is until a job of that generation writes it. The second line says what changed.",
        "--pause-effects also pauses the model's effects in that transaction (as streamform"
            + " effects pause): no dispatcher claims anything of the new canonical values until"
            + " streamform effects resume.",
        "--share P makes generation N a canary for a share of the keys: a key reads N iff its"
            + " bucket — the first 32 bits of SHA-256 of the key as PostgreSQL prints it as jsonb"
            + " (e.g. {\"merchant_id\": 7}; a composite key's fields in jsonb's order, shorter"
            + " names first, then by bytes: {\"region\": \"eu\", \"merchant_id\": 1}), unsigned,"
            + " modulo 10000 — is below P in hundredths of a percent (5%% = 500); the other keys"
            + " keep the generation canonical now. The same keys on every run, every window of a"
            + " key alike; a wider share keeps the keys of a narrower one. The canonical view, the"
            + " effects and compare-generations resolve per key. alias set without --share then"
            + " moves every key (promotion or rollback) and ends the canary."
      },
      exitCodeListHeading = "%nExit status:%n",
      exitCodeList = {
        "0:set",
        "1:the generation has no projection (without --allow-empty), a share without another"
            + " canonical generation, or the project or database cannot be used",
        "2:bad command line"
      })
  static final class Set implements Callable<Integer> {
    @Mixin LedgerCommand.Target target;

    @Option(
        names = "--generation",
        paramLabel = "N",
        required = true,
        description = "the generation to make canonical (a whole number from 1)")
    int generation;

    @Option(
        names = "--allow-empty",
        description =
            "also to a generation with no projection yet: the canonical view then shows"
                + " nothing of the model until a job of that generation writes")
    boolean allowEmpty;

    @Option(
        names = "--pause-effects",
        description =
            "pause the model's effects in the transaction that moves the alias (undone by"
                + " streamform effects resume)")
    boolean pauseEffects;

    @Option(
        names = "--reason",
        paramLabel = "TEXT",
        description = "with --pause-effects: why, recorded with the pause")
    String reason;

    @Option(
        names = "--share",
        paramLabel = "PERCENT",
        description =
            "a canary: only this share of the keys reads generation N, the others keep the"
                + " canonical generation; more than 0%% and less than 100%%, in steps of 0.01%%"
                + " (0.01%% to 99.99%%, e.g. 5%% or 0.5%%; give no share to move every key); see"
                + " the description for the hash")
    String share;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      if (generation < 1) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), "--generation: a whole number from 1, got " + generation);
      }
      int shareBasisPoints = 0;
      if (share != null) {
        try {
          shareBasisPoints = CanaryShare.basisPoints(share);
        } catch (IllegalArgumentException e) {
          throw new picocli.CommandLine.ParameterException(
              spec.commandLine(), "--share: " + e.getMessage());
        }
      }
      if (reason != null && !pauseEffects) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), "--reason is the reason of a pause: give it with --pause-effects");
      }
      // only --allow-empty may set up a ledger (before the first run): without it a generation
      // needs projections, which a database without a ledger cannot hold, so it is left as it was
      Optional<ModelLedger> opened = target.open(allowEmpty, "alias set", spec.commandLine());
      if (opened.isEmpty()) {
        return 1;
      }
      try (ModelLedger l = opened.get()) {
        Ledger.AliasChange change;
        List<EffectRule> rules = DeclaredEffects.rules(l.model.model());
        AliasRequest request = AliasRequest.of(l.name(), generation).withAllowEmpty(allowEmpty);
        if (!rules.isEmpty()) {
          request = request.withEffects(rules, Schemas.of(l.model.outputColumns()));
        }
        if (pauseEffects) {
          request = request.withPauseEffects(EffectsPauseCommand.defaultActor(), reason);
        }
        if (share != null) {
          request = request.withShare(shareBasisPoints);
        }
        try {
          change = l.ledger.setCanonicalGeneration(request);
        } catch (Ledger.CanaryRefused e) {
          err.println("streamform alias set: refused: " + e.getMessage());
          return 1;
        } catch (Ledger.EmptyGeneration e) {
          String nothing = "The canonical view would show nothing of " + l.name();
          if (share != null) {
            Ledger.ShareKeys keys =
                l.ledger.shareKeys(l.name(), new CanaryShare(generation, shareBasisPoints));
            nothing =
                "The "
                    + Counts.of(keys.inShare(), "key")
                    + " in the share (of "
                    + Counts.of(keys.keys(), "key")
                    + " of "
                    + l.name()
                    + ") would read nothing";
          }
          err.println(
              "streamform alias set: refused: "
                  + e.getMessage()
                  + ". "
                  + nothing
                  + "; run generation "
                  + generation
                  + " first (streamform run"
                  + " --generation "
                  + generation
                  + " --shadow), or give --allow-empty");
          return 1;
        }
        String previous =
            change.previous().isPresent() ? String.valueOf(change.previous().getAsInt()) : "none";
        if (change.canary().isPresent()) {
          out.println(
              l.name()
                  + ": canary: "
                  + change.canary().get().describe()
                  + " — "
                  + change.canaryKeys()
                  + " of "
                  + change.keys()
                  + " keys now; the others read generation "
                  + previous
                  + change
                      .endedCanary()
                      .map(c -> "; the canary ended: " + c.describe() + " before")
                      .orElse(""));
        } else {
          out.println(
              l.name()
                  + ": canonical generation "
                  + previous
                  + " -> "
                  + change.generation()
                  + " ("
                  + projections(change.projections())
                  + " of generation "
                  + change.generation()
                  + (change.previous().isPresent()
                          && change.previous().getAsInt() != change.generation()
                      ? "; generation "
                          + previous
                          + " keeps its "
                          + projections(change.previousProjections())
                      : "")
                  + ")"
                  + change
                      .endedCanary()
                      .map(
                          c ->
                              "; the canary ended: "
                                  + c.describe()
                                  + " before, all keys read generation "
                                  + change.generation()
                                  + " now")
                      .orElse(""));
        }
        if (!rules.isEmpty()) {
          LedgerWriter.Effects fx = change.effects();
          out.println(
              "effects evaluated on the canonical values: "
                  + fx.prepared()
                  + " prepared, "
                  + fx.updated()
                  + " following the new values, "
                  + fx.cancelled()
                  + " cancelled, "
                  + Counts.of(fx.compensations(), "compensation")
                  + " for a person"
                  + (fx.ruleErrors() == 0
                      ? ""
                      : ", "
                          + Counts.of(fx.ruleErrors(), "rule error")
                          + " (streamform effects show)"));
        }
        change
            .pause()
            .ifPresent(p -> out.println(l.name() + ": " + EffectsPauseCommand.describe(p)));
        if (change.canary().isPresent() && change.projections() > 0) {
          Ledger.ShareKeys keys = l.ledger.shareKeys(l.name(), change.canary().get());
          if (keys.withoutProjection() > 0) {
            err.println(
                "streamform alias set: warning: "
                    + keys.withoutProjection()
                    + " of the "
                    + keys.inShare()
                    + " keys in the share have no projection of generation "
                    + generation
                    + " (e.g. "
                    + keys.example().orElse("?")
                    + "): the canonical view shows nothing of them until a generation-"
                    + generation
                    + " job writes them");
          }
        }
        if (change.projections() == 0) {
          err.println(
              "streamform alias set: no projection of generation "
                  + generation
                  + " yet: the"
                  + " canonical view shows nothing for "
                  + l.name()
                  + " until a generation-"
                  + generation
                  + " job writes");
        }
        int declared = l.model.model().generation();
        if (declared != generation) {
          err.println(
              "streamform alias set: note: "
                  + target.project
                  + " declares generation "
                  + declared
                  + " for "
                  + l.name());
        }
        return 0;
      } catch (SQLException e) {
        err.println("streamform alias set: " + ModelLedger.firstLine(e));
        return 1;
      }
    }

    private static String projections(int n) {
      return n + (n == 1 ? " projection" : " projections");
    }
  }
}
