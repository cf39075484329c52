package dev.streamform.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.policies.plan.PlanDiff;
import dev.streamform.policies.plan.PlanDiff.Classification;
import dev.streamform.policies.plan.PlanDiff.NodeChange;
import dev.streamform.policies.plan.PlanManifest;
import dev.streamform.policies.project.NotUtf8;
import dev.streamform.policies.project.Project;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code streamform plan <project> <model> --against <manifest.json>}: what deploying the project's
 * model over a running plan would do to each node, and whether it needs a new generation.
 */
@Command(
    name = "plan",
    header = "Classifies each node against a running plan's manifest, with the reason.",
    mixinStandardHelpOptions = true,
    description = {
      "Compares a model's plan with a running plan's manifest (written by streamform inspect-plan)"
          + " and classifies each node, with the reason:",
      "  SAFE                      nothing the node's state depends on changed",
      "  COMPATIBLE                a stateless node changed, or a clock changed with no keyed state"
          + " below",
      "  STATE MIGRATION REQUIRED  the state fingerprint moved (key, accumulators, retention,"
          + " window, allowed lateness, state layout), or the clock above keyed state changed",
      "A change of the model's effect rules is a line of its own, COMPATIBLE (no state depends"
          + " on it): windows already written are evaluated under the new rules only when the"
          + " canonical generation changes (streamform alias set).",
      "A clock edit is never SAFE. A change of the watermark topology (watermark, idleness,"
          + " partition count, a source's topic, window, allowed lateness) needs a new generation:"
          + " plan says so when"
          + " the generation did not change."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {
      "0:every node SAFE or COMPATIBLE, no generation missing; or a generation after the running"
          + " one, which starts from the log",
      "1:the project has problems, no such model, the file is not a plan manifest, or it was"
          + " edited after inspect-plan wrote it (a field no longer matches its digest)",
      "2:the manifest is of another model, a node needs a STATE MIGRATION under the running"
          + " generation, the change needs a new"
          + " generation, or the generation is lower than the running one (also: a command line"
          + " that could not be understood, with its message)"
    })
final class PlanCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Parameters(index = "0", paramLabel = "<project>", description = "the project folder")
  Path dir;

  @Parameters(index = "1", paramLabel = "<model>", description = "a model of streamform.yml")
  String model;

  @Option(
      names = "--against",
      paramLabel = "<manifest.json>",
      required = true,
      description = "the running plan's manifest, as streamform inspect-plan printed it")
  Path against;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Optional<Project> project = ModelArgument.load(dir, model, "plan", err);
    if (project.isEmpty()) {
      return 1;
    }
    Optional<JsonNode> read = readManifest(against, model, "plan", err);
    if (read.isEmpty()) {
      return 1;
    }
    JsonNode running = read.get();
    String runningModel = running.path("model").asText("");
    if (!runningModel.equals(model)) {
      // another model's plan: every node would read as changed, so nothing is compared
      err.println(
          "streamform plan: "
              + against
              + " is the manifest of model "
              + runningModel
              + ", not of "
              + model
              + ": pass --against "
              + model
              + "'s manifest (streamform inspect-plan "
              + ShellWords.quote(dir)
              + " "
              + ShellWords.quote(model)
              + "), or plan "
              + runningModel
              + " (streamform plan "
              + ShellWords.quote(dir)
              + " "
              + ShellWords.quote(runningModel)
              + " --against "
              + ShellWords.quote(against)
              + ")");
      return 2;
    }
    PlanDiff diff = PlanDiff.between(running, PlanManifest.of(project.get(), model).toTree());
    print(diff, dir, model, withoutShadow(project.get(), model), out);
    out.flush();
    return diff.exitCode();
  }

  /**
   * The plan manifest in {@code against}, as streamform inspect-plan wrote it; empty when it is not
   * one (not UTF-8, not JSON, edited after it was written, no such file), said on {@code err} after
   * "streamform {@code command}: " with the fix.
   */
  static Optional<JsonNode> readManifest(
      Path against, String model, String command, PrintWriter err) {
    JsonNode running;
    try {
      byte[] bytes = Files.readAllBytes(against);
      Optional<NotUtf8.WideEncoding> wide = NotUtf8.wideEncoding(bytes);
      if (wide.isPresent()) {
        // saved by an editor or a shell (PowerShell's >) as UTF-16 or UTF-32
        err.println(
            "streamform "
                + command
                + ": "
                + against
                + ": is "
                + wide.get().name()
                + " ("
                + wide.get().shows()
                + "), not UTF-8: a plan manifest is read as UTF-8 — "
                + wide.get().fix(against));
        return Optional.empty();
      }
      if (new String(bytes, java.nio.charset.StandardCharsets.UTF_8).strip().isEmpty()) {
        err.println(
            "streamform "
                + command
                + ": "
                + against
                + " is empty; write the running plan's manifest into it with streamform"
                + " inspect-plan <project> "
                + ShellWords.quote(model)
                + " > "
                + ShellWords.quote(against));
        return Optional.empty();
      }
      Optional<NotUtf8.Malformed> bad = NotUtf8.firstMalformed(bytes);
      if (bad.isPresent()) {
        err.println(
            String.format(
                Locale.ROOT,
                "streamform plan: %s:%d: not UTF-8 text: byte %d of the line is 0x%02X, which UTF-8"
                    + " does not allow there; give the file streamform inspect-plan wrote",
                against,
                bad.get().line(),
                bad.get().byteOfLine(),
                bad.get().value()));
        return Optional.empty();
      }
      String text = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
      if (text.startsWith("\uFEFF")) {
        // a UTF-8 byte-order mark (an editor's "UTF-8 with BOM") is no part of the manifest
        text = text.substring(1);
      }
      try (JsonParser parser = JSON.createParser(text)) {
        running = JSON.readTree(parser);
        if (parser.nextToken() != null) {
          err.println(
              "streamform "
                  + command
                  + ": "
                  + against
                  + ":"
                  + parser.currentTokenLocation().getLineNr()
                  + ": more follows the manifest (a second JSON value); give the file streamform"
                  + " inspect-plan wrote, once");
          return Optional.empty();
        }
      }
      PlanDiff.requireManifest(running);
    } catch (NoSuchFileException e) {
      err.println(
          "streamform "
              + command
              + ": "
              + against
              + ": no such file; write the running plan's manifest with"
              + " streamform inspect-plan <project> <model> > "
              + ShellWords.quote(against));
      return Optional.empty();
    } catch (JsonProcessingException e) {
      err.println(
          "streamform "
              + command
              + ": "
              + against
              + ":"
              + JsonProblems.position(e)
              + ": not JSON: "
              + JsonProblems.reason(e)
              + "; give the file streamform inspect-plan wrote");
      return Optional.empty();
    } catch (PlanDiff.EditedManifestException e) {
      // a manifest is the record of what runs: refused rather than compared (ADR 0114)
      err.println(
          "streamform "
              + command
              + ": "
              + against
              + ": "
              + e.getMessage()
                  .replace("<model>", ShellWords.quote(model))
                  .replace("<manifest.json>", ShellWords.quote(against)));
      return Optional.empty();
    } catch (PlanDiff.NotAManifestException e) {
      err.println(
          "streamform "
              + command
              + ": "
              + against
              + " is not a plan manifest: "
              + e.getMessage()
              + "; give the file streamform inspect-plan wrote");
      return Optional.empty();
    } catch (IOException e) {
      err.println(
          "streamform "
              + command
              + ": "
              + against
              + ": "
              + dev.streamform.policies.project.FileErrors.reason(e)
              + "; give the file streamform inspect-plan wrote");
      return Optional.empty();
    }
    return Optional.of(running);
  }

  /**
   * What kind of model {@code model} is ("an upsert model ...") when it has no shadow generation,
   * so that its new generation is a new job from the log in place of the running one
   * (docs/decisions/0139); null for a windowed model, whose new generation runs in the shadow.
   */
  static String withoutShadow(Project project, String model) {
    dev.streamform.planner.ModelKind kind =
        dev.streamform.planner.DeclaredModel.of(project, model).kind();
    return kind.hasRevisionLedger() ? null : kind.description();
  }

  /**
   * What {@code plan} prints of {@code diff}: each node with its class and reasons, a missing or
   * backward generation, and the summary line with the verdict ({@code dir} and {@code model} name
   * the project in the fix; {@code withoutShadow}, from {@link #withoutShadow}, says the model's
   * new generation is a new job rather than a shadow). Shared with {@code run --from-savepoint},
   * which refuses a restore whose diff {@code plan} would exit 2 on.
   */
  static void print(PlanDiff diff, Path dir, String model, String withoutShadow, PrintWriter out) {
    Map<Classification, Integer> counts = new EnumMap<>(Classification.class);
    for (NodeChange node : diff.nodes()) {
      counts.merge(node.classification(), 1, Integer::sum);
      out.println(
          String.format("%-26s %s", node.kind() + " " + name(node), node.classification().label()));
      node.reasons().forEach(r -> out.println("    " + r));
    }
    diff.effects()
        .ifPresent(
            fx -> {
              out.println(
                  String.format("%-26s %s", "Effects " + model, fx.classification().label()));
              fx.reasons().forEach(r -> out.println("    " + r));
            });
    if (!diff.generationRequired().isEmpty()) {
      out.println(
          "NEW GENERATION REQUIRED: the watermark topology changed but generation is "
              + (diff.generationGoesBack()
                  ? diff.newGeneration() + ", not after the running " + diff.runningGeneration()
                  : "still " + diff.newGeneration())
              + ":");
      diff.generationRequired().forEach(r -> out.println("    " + r));
      int next = diff.runningGeneration() + 1;
      if (withoutShadow != null) {
        // no projections per generation, no shadow: the new generation replaces the running job,
        // started from the log (ADR 0139); run takes the declared generation
        out.println(
            "    set generation: "
                + next
                + " on model "
                + model
                + " in streamform.yml, and deploy it as a new job started from the log, without"
                + " --from-savepoint, in place of the running one (streamform run "
                + ShellWords.quote(dir)
                + " --model "
                + ShellWords.quote(model)
                + "); "
                + withoutShadow
                + " has no shadow generation");
      } else {
        // a command run parses as printed: --generation takes the number (--shadow needs the
        // ledger)
        out.println(
            "    set generation: "
                + next
                + " on model "
                + model
                + " in streamform.yml, and roll it out as a new generation (streamform run "
                + ShellWords.quote(dir)
                + " --model "
                + ShellWords.quote(model)
                + " --generation "
                + next
                + " --shadow --jdbc-url <url>)");
      }
    }
    if (diff.generationGoesBack()) {
      out.println(
          "generation "
              + diff.runningGeneration()
              + " -> "
              + diff.newGeneration()
              + ": generation numbers go forward, and generation "
              + diff.newGeneration()
              + " is older than the running generation "
              + diff.runningGeneration()
              + " (it is not new: its projections may still be in the ledger); "
              + (diff.generationRequired().isEmpty()
                  ? "keep generation: "
                      + diff.runningGeneration()
                      + " to deploy over the running plan, or set generation: "
                      + (diff.runningGeneration() + 1)
                      + " for a new one"
                  // the watermark topology changed: only a new generation deploys it (above)
                  : "set generation: " + (diff.runningGeneration() + 1) + " (above)"));
    } else if (diff.newGeneration() != diff.runningGeneration()) {
      out.println(
          "generation "
              + diff.runningGeneration()
              + " -> "
              + diff.newGeneration()
              + (withoutShadow != null
                  ? ": "
                      + withoutShadow
                      + " has no shadow generation: the new job, started from the log in place"
                      + " of the running one, writes the model's outputs again from the first"
                      + " event"
                  : ": a new generation writes projections of its own; readers see it once it is"
                      + " promoted (streamform alias set)"));
    }
    out.println(
        "plan: "
            + diff.nodes().size()
            + " nodes: "
            + counts.getOrDefault(Classification.STATE_MIGRATION_REQUIRED, 0)
            + " STATE MIGRATION REQUIRED, "
            + counts.getOrDefault(Classification.COMPATIBLE, 0)
            + " COMPATIBLE, "
            + counts.getOrDefault(Classification.SAFE, 0)
            + " SAFE"
            + diff.effects().map(fx -> "; effect rules " + fx.classification().label()).orElse("")
            + (diff.generationRequired().isEmpty() ? "" : "; a new generation is required")
            + " -> "
            + verdict(diff));
  }

  private static String name(NodeChange node) {
    int colon = node.id().indexOf(':');
    return colon < 0 ? "" : node.id().substring(colon + 1);
  }

  private static String verdict(PlanDiff diff) {
    if (diff.exitCode() != 0) {
      return "do not deploy over the running plan as is";
    }
    if (diff.newGeneration() != diff.runningGeneration()) {
      // a new generation does not restore the running one: it is deployed beside it (ADR 0103),
      // started from the log, so state that needed a migration starts empty (ADR 0139)
      long migrated =
          diff.nodes().stream()
              .filter(n -> n.classification() == Classification.STATE_MIGRATION_REQUIRED)
              .count();
      return "safe to deploy as generation "
          + diff.newGeneration()
          + (migrated == 0
              ? ""
              : ", as a new job started from the log without --from-savepoint (no state is"
                  + " restored: "
                  + dev.streamform.core.text.Counts.of(migrated, "STATE MIGRATION REQUIRED node")
                  + " "
                  + (migrated == 1 ? "starts" : "start")
                  + " empty)");
    }
    return diff.overall() == Classification.SAFE
        ? "nothing changes"
        : "safe to deploy over the running plan";
  }
}
