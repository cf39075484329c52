package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.DeclaredPipeline;
import dev.streamform.policies.plan.PlanManifest;
import dev.streamform.policies.project.Project;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code streamform inspect-plan} and {@code streamform plan} as an operator meets them. */
class PlanCommandsTest {
  private static final Path HOURLY = Path.of("../test-streams/fixtures/time/hourly-revenue");

  @TempDir Path dir;

  private StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();

  private int run(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  /** A copy of the hourly-revenue project whose files can be edited. */
  private Path copy() throws Exception {
    Path target = dir.resolve("hourly");
    try (Stream<Path> files = Files.walk(HOURLY)) {
      for (Path f : (Iterable<Path>) files.sorted(Comparator.naturalOrder())::iterator) {
        Path to = target.resolve(HOURLY.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to);
        }
      }
    }
    return target;
  }

  private Path saved(Path project) throws Exception {
    return saved(project, "hourly_revenue");
  }

  private Path saved(Path project, String model) throws Exception {
    assertThat(err.toString(), run("inspect-plan", project.toString(), model), is(0));
    Path manifest = dir.resolve("running.json");
    Files.writeString(manifest, out.toString());
    return manifest;
  }

  @Test
  void inspectPlanPrintsTheSameManifestEveryTime() {
    assertThat(run("inspect-plan", HOURLY.toString(), "hourly_revenue"), is(0));
    String first = out.toString();
    assertThat(first, containsString("\"manifest\": \"streamform-plan/1\""));
    assertThat(first, containsString("\"timestamp_extractor\": \"ordered_at\""));
    assertThat(first, containsString("\"window\": \"tumbling 1h\""));
    assertThat(run("inspect-plan", HOURLY.toString(), "hourly_revenue"), is(0));
    assertThat(out.toString(), is(first));
  }

  @Test
  void anUnchangedProjectIsSafeAndExitsZero() throws Exception {
    Path manifest = saved(HOURLY);
    assertThat(
        run("plan", HOURLY.toString(), "hourly_revenue", "--against", manifest.toString()), is(0));
    assertThat(out.toString(), containsString("Source orders              SAFE"));
    assertThat(
        out.toString(),
        containsString(
            "plan: 2 nodes: 0 STATE MIGRATION REQUIRED, 0 COMPATIBLE, 2 SAFE"
                + " -> nothing changes"));
  }

  /**
   * A new generation and nothing else: every node is SAFE and the plan may be deployed, but it is
   * not "nothing changes" — a new generation writes projections of its own and shows nothing until
   * it is promoted (docs/guides/rollout.md), so the plan says that instead.
   */
  /** Saved by an editor that writes a UTF-8 byte-order mark first: the mark is no part of it. */
  @Test
  void aManifestWithAByteOrderMarkIsRead() throws Exception {
    Path manifest = saved(HOURLY);
    Files.writeString(manifest, "\uFEFF" + Files.readString(manifest));
    assertThat(
        run("plan", HOURLY.toString(), "hourly_revenue", "--against", manifest.toString()), is(0));
    assertThat(err.toString(), is(""));
    assertThat(out.toString(), containsString("-> nothing changes"));
  }

  /**
   * An empty file (a redirect that failed) and one saved as UTF-16 (PowerShell's {@code >}) are
   * said as what they are, with the fix: both were "it is not a JSON object" (found by a read-only
   * audit of plans).
   */
  @Test
  void anEmptyOrUtf16ManifestIsSaidAsWhatItIs() throws Exception {
    Path empty = dir.resolve("empty.json");
    Files.writeString(empty, "\n");
    assertThat(
        run("plan", HOURLY.toString(), "hourly_revenue", "--against", empty.toString()), is(1));
    assertThat(err.toString(), containsString(empty + " is empty;"));
    assertThat(err.toString(), containsString("streamform inspect-plan"));

    Path wide = dir.resolve("wide.json");
    Files.write(
        wide,
        ("\uFEFF" + Files.readString(saved(HOURLY)))
            .getBytes(java.nio.charset.StandardCharsets.UTF_16LE));
    assertThat(
        run("plan", HOURLY.toString(), "hourly_revenue", "--against", wide.toString()), is(1));
    assertThat(err.toString(), containsString(wide + ": is UTF-16"));
    assertThat(err.toString(), containsString("iconv -f UTF-16"));
  }

  @Test
  void aNewGenerationAloneIsSafeButNotNothingChanges() throws Exception {
    Path project = copy();
    Path manifest = saved(project);
    Path models = project.resolve("streamform.yml");
    Files.writeString(models, Files.readString(models) + "    generation: 2\n");
    assertThat(
        err.toString(),
        run("plan", project.toString(), "hourly_revenue", "--against", manifest.toString()),
        is(0));
    String text = out.toString();
    assertThat(text, containsString("0 STATE MIGRATION REQUIRED, 0 COMPATIBLE, 2 SAFE"));
    assertThat(text, not(containsString("nothing changes")));
    assertThat(
        text,
        containsString(
            "generation 1 -> 2: a new generation writes projections of its own; readers see it"
                + " once it is promoted (streamform alias set)"));
  }

  /**
   * ADR 0103: another topic with a new generation is "safe to deploy as generation N", not "over
   * the running plan" — the new generation does not restore the running one's clock.
   */
  @Test
  void anotherTopicWithANewGenerationIsSafeToDeployAsThatGeneration() throws Exception {
    Path project = copy();
    Path manifest = saved(project);
    Path sources = project.resolve("sources.yml");
    Files.writeString(
        sources, Files.readString(sources).replace("topic: orders", "topic: orders_v2"));
    Path models = project.resolve("streamform.yml");
    Files.writeString(models, Files.readString(models) + "    generation: 2\n");
    assertThat(
        err.toString(),
        run("plan", project.toString(), "hourly_revenue", "--against", manifest.toString()),
        is(0));
    assertThat(out.toString(), containsString("-> safe to deploy as generation 2\n"));
    assertThat(out.toString(), not(containsString("over the running plan")));
  }

  /**
   * An upsert model's new generation (docs/decisions/0139): {@code plan} does not send it to {@code
   * --shadow}, which refuses upsert models, but to a new job started from the log without {@code
   * --from-savepoint}; the advice, followed as printed, runs, and {@code plan} then exits 0.
   */
  @Test
  void anUpsertModelsNewGenerationIsANewJobFromTheLogAndPlanThenSaysSo() throws Exception {
    Path examples = Path.of("../examples/orders-on-file");
    Path project = dir.resolve("orders");
    try (Stream<Path> files = Files.walk(examples)) {
      for (Path f : (Iterable<Path>) files.sorted(Comparator.naturalOrder())::iterator) {
        Path to = project.resolve(examples.relativize(f).toString());
        if (f.toString().contains("/target")) {
          continue;
        }
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to);
        }
      }
    }
    Path manifest = saved(project, "customer_metrics");
    Path sources = project.resolve("sources.yml");
    Files.writeString(sources, Files.readString(sources).replace("watermark: 5m", "watermark: 6m"));
    assertThat(
        run("plan", project.toString(), "customer_metrics", "--against", manifest.toString()),
        is(2));
    String advice =
        out.toString()
            .lines()
            .filter(l -> l.contains("set generation: 2 on model customer_metrics"))
            .findFirst()
            .orElseThrow(() -> new AssertionError(out.toString()));
    assertThat(advice, not(containsString("--shadow")));
    assertThat(advice, containsString("without --from-savepoint"));

    // follow it: declare generation 2, and run the command it prints
    Path models = project.resolve("streamform.yml");
    Files.writeString(
        models,
        Files.readString(models)
            .replace("    retention: 10m\n", "    retention: 10m\n    generation: 2\n"));
    String command = advice.substring(advice.indexOf("(streamform run ") + "(streamform ".length());
    command = command.substring(0, command.indexOf(')'));
    assertThat(err.toString(), run(command.split(" ")), is(0));

    int status =
        run("plan", project.toString(), "customer_metrics", "--against", manifest.toString());
    assertThat(out.toString(), status, is(0));
    assertThat(out.toString(), not(containsString("NEW GENERATION REQUIRED")));
    assertThat(out.toString(), not(containsString("promoted (streamform alias set)")));
    assertThat(out.toString(), containsString("without --from-savepoint"));
  }

  /**
   * Generation numbers go forward (docs/decisions/0115): a declaration moved back from the running
   * generation 2 to 1 is not "a new generation", and is not deployed as is.
   */
  @Test
  void aGenerationBelowTheRunningOneIsRefusedAsNotNew() throws Exception {
    Path project = copy();
    Path models = project.resolve("streamform.yml");
    String declared = Files.readString(models);
    Files.writeString(models, declared + "    generation: 2\n");
    Path manifest = saved(project);
    Files.writeString(models, declared);
    assertThat(
        run("plan", project.toString(), "hourly_revenue", "--against", manifest.toString()), is(2));
    String text = out.toString();
    assertThat(text, not(containsString("a new generation writes projections of its own")));
    assertThat(text, not(containsString("safe to deploy")));
    assertThat(
        text,
        containsString(
            "generation 2 -> 1: generation numbers go forward, and generation 1 is older than the"
                + " running generation 2"));
    assertThat(text, containsString("-> do not deploy over the running plan as is\n"));
  }

  /**
   * A generation below the running one with the watermark topology changed as well: only a new
   * generation deploys it, so the advice names that alone (found by a read-only audit of the
   * rollout: it also said "keep generation: 2 to deploy over the running plan").
   */
  @Test
  void aGenerationBelowTheRunningOneWithATopologyChangeIsToldOnlyOfANewOne() throws Exception {
    Path project = copy();
    Path models = project.resolve("streamform.yml");
    String declared = Files.readString(models);
    Files.writeString(models, declared + "    generation: 2\n");
    Path manifest = saved(project);
    Files.writeString(models, declared.replace("allowed_lateness: 24h", "allowed_lateness: 48h"));
    assertThat(
        run("plan", project.toString(), "hourly_revenue", "--against", manifest.toString()), is(2));
    String text = out.toString();
    assertThat(text, containsString("NEW GENERATION REQUIRED"));
    assertThat(text, containsString("    set generation: 3 on model hourly_revenue"));
    assertThat(text, not(containsString("keep generation: 2")));
    assertThat(
        text,
        containsString(
            "(it is not new: its projections may still be in the ledger); set generation: 3"
                + " (above)"));
  }

  /**
   * A manifest is the record of what runs (docs/decisions/0114): edited by hand under its old
   * digests, it is refused, naming the file, the node, the field and the fix.
   */
  @Test
  void aManifestEditedUnderItsDigestsIsRefusedWithTheFix() throws Exception {
    Path manifest = saved(HOURLY);
    ObjectMapper json = new ObjectMapper();
    ObjectNode tree = (ObjectNode) json.readTree(manifest.toFile());
    JsonNode nodes = tree.get("nodes");
    ((ObjectNode) nodes.get(nodes.size() - 1).get("state").get("fingerprint"))
        .putArray("key")
        .add("x");
    Files.writeString(manifest, json.writerWithDefaultPrettyPrinter().writeValueAsString(tree));
    assertThat(
        run("plan", HOURLY.toString(), "hourly_revenue", "--against", manifest.toString()), is(1));
    assertThat(out.toString(), not(containsString("SAFE")));
    assertThat(
        err.toString(),
        containsString(
            "streamform plan: "
                + manifest
                + ": node 2 (aggregate) has \"state\".\"fingerprint\" that does not match its"
                + " \"state\".\"digest\""));
    assertThat(
        err.toString(),
        containsString("streamform inspect-plan <project> hourly_revenue > " + manifest));
  }

  @Test
  void aLongerWatermarkWithoutANewGenerationExitsTwoAndSaysWhy() throws Exception {
    Path project = copy();
    Path manifest = saved(project);
    Path sources = project.resolve("sources.yml");
    Files.writeString(
        sources, Files.readString(sources).replace("watermark: 5m", "watermark: 30m"));
    assertThat(
        err.toString(),
        run("plan", project.toString(), "hourly_revenue", "--against", manifest.toString()),
        is(2));
    String text = out.toString();
    assertThat(text, containsString("Source orders              COMPATIBLE\n"));
    assertThat(text, containsString("definition.watermark: 5m -> 30m"));
    assertThat(text, containsString("Aggregate                  STATE MIGRATION REQUIRED\n"));
    assertThat(text, containsString("source orders watermark: 5m -> 30m"));
    assertThat(text, containsString("NEW GENERATION REQUIRED"));
    assertThat(text, containsString("set generation: 2 on model hourly_revenue"));

    Path models = project.resolve("streamform.yml");
    Files.writeString(models, Files.readString(models) + "    generation: 2\n");
    assertThat(err.toString(), run("check", project.toString()), is(0));
    // the new generation starts from the log: the state that needed a migration starts empty, so
    // the plan may be deployed as that generation, not restored into (ADR 0139)
    assertThat(
        run("plan", project.toString(), "hourly_revenue", "--against", manifest.toString()), is(0));
    assertThat(out.toString(), not(containsString("NEW GENERATION REQUIRED")));
    assertThat(
        out.toString(),
        containsString(
            "1 STATE MIGRATION REQUIRED, 1 COMPATIBLE, 0 SAFE -> safe to deploy as generation 2, as"
                + " a new job started from the log without --from-savepoint (no state is restored:"
                + " 1 STATE MIGRATION REQUIRED node starts empty)\n"));
  }

  @Test
  void theGenerationFixIsACommandRunParses() throws Exception {
    Path project = copy();
    Path manifest = saved(project);
    Path sources = project.resolve("sources.yml");
    Files.writeString(
        sources, Files.readString(sources).replace("watermark: 5m", "watermark: 30m"));
    assertThat(
        run("plan", project.toString(), "hourly_revenue", "--against", manifest.toString()), is(2));
    String text = out.toString();
    int open = text.indexOf("(streamform run ");
    assertThat(text, open >= 0, is(true));
    String command = text.substring(open + "(streamform ".length(), text.indexOf(')', open));
    // the operator copies it: picocli must take it as run's options, with the new generation's
    // number where --generation needs one (before, "--generation --shadow" was refused)
    CommandLine.ParseResult parsed =
        new CommandLine(new Streamform()).parseArgs(command.split(" "));
    CommandLine.ParseResult runArgs = parsed.subcommand();
    assertThat(runArgs.commandSpec().name(), is("run"));
    assertThat(command, runArgs.matchedOptionValue("--generation", 0), is(2));
    assertThat(command, runArgs.hasMatchedOption("--shadow"), is(true));
    assertThat(command, runArgs.matchedOptionValue("--model", ""), is("hourly_revenue"));
    assertThat(command, runArgs.matchedPositionalValue(0, Path.of("")), is(project));
    assertThat(command, runArgs.hasMatchedOption("--jdbc-url"), is(true));
  }

  @Test
  void theGenerationFixOfAProjectInAFolderWithASpaceIsACommandAShellParses() throws Exception {
    Path project =
        Files.move(copy(), Files.createDirectories(dir.resolve("my project")).resolve("hourly"));
    Path manifest = saved(project);
    Path sources = project.resolve("sources.yml");
    Files.writeString(
        sources, Files.readString(sources).replace("watermark: 5m", "watermark: 30m"));
    assertThat(
        run("plan", project.toString(), "hourly_revenue", "--against", manifest.toString()), is(2));
    String text = out.toString();
    int open = text.indexOf("(streamform run ");
    assertThat(text, open >= 0, is(true));
    String command = text.substring(open + "(streamform ".length(), text.lastIndexOf(')'));
    // the operator pastes it into a POSIX shell: the shell's words are what run is given (the
    // <url> placeholder aside, which the operator replaces)
    List<String> words = shellWords(command.replace("<url>", "URL"));
    CommandLine.ParseResult runArgs =
        new CommandLine(new Streamform()).parseArgs(words.toArray(String[]::new)).subcommand();
    assertThat(command, runArgs.commandSpec().name(), is("run"));
    assertThat(command, runArgs.matchedPositionalValue(0, Path.of("")), is(project));
    assertThat(command, runArgs.matchedOptionValue("--generation", 0), is(2));
  }

  /** {@code line}'s words as sh splits and unquotes them. */
  private static List<String> shellWords(String line) throws Exception {
    Process sh = new ProcessBuilder("sh", "-c", "printf '%s\\n' " + line).start();
    String printed =
        new String(sh.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(line, sh.waitFor(), is(0));
    return List.of(printed.split("\n"));
  }

  @Test
  void explainsFingerprintLineShowsTheWindowAsTheManifestRecordsIt() throws Exception {
    // time_zone: UTC written out is the default (ADR 0097): explain says so on its window= line,
    // but the state fingerprint never sees it, so the fingerprint= line shows the manifest's
    Path project = copy();
    Path models = project.resolve("streamform.yml");
    Files.writeString(models, Files.readString(models) + "    time_zone: UTC\n");
    assertThat(err.toString(), run("inspect-plan", project.toString(), "hourly_revenue"), is(0));
    JsonNode recorded = null;
    for (JsonNode node : new ObjectMapper().readTree(out.toString()).path("nodes")) {
      if (node.has("state")) {
        recorded = node.path("state").path("fingerprint");
      }
    }
    assertThat(out.toString(), recorded != null, is(true));
    assertThat(err.toString(), run("explain", project.toString(), "hourly_revenue"), is(0));
    String text = out.toString();
    assertThat(text, containsString("  window=tumbling 1h (time_zone UTC declared: the default)"));
    String fingerprint =
        text.substring(
            text.indexOf("  fingerprint="), text.indexOf('\n', text.indexOf("  fingerprint=")));
    assertThat(
        fingerprint,
        containsString(
            " window="
                + recorded.path("window").asText()
                + " allowed_lateness="
                + recorded.path("allowed_lateness").asText()
                + " "));
  }

  @Test
  void timeZoneUtcWrittenOnAFixedWindowIsTheManifestWithoutIt() throws Exception {
    Path project = copy();
    Path manifest = saved(project);
    String before = Files.readString(manifest);
    Path models = project.resolve("streamform.yml");
    String declared = Files.readString(models);
    // UTC is the default zone (ADR 0021): writing it out means the same, so the manifest, its
    // digests and the plan are those of the model without it
    Files.writeString(models, declared + "    time_zone: UTC\n");
    assertThat(err.toString(), run("check", project.toString()), is(0));
    assertThat(err.toString(), run("inspect-plan", project.toString(), "hourly_revenue"), is(0));
    assertThat(out.toString(), is(before));
    assertThat(
        run("plan", project.toString(), "hourly_revenue", "--against", manifest.toString()), is(0));
    assertThat(
        out.toString(),
        containsString("plan: 2 nodes: 0 STATE MIGRATION REQUIRED, 0 COMPATIBLE, 2 SAFE"));

    // another name is another declaration (ADR 0097): Etc/UTC is recorded as written
    Files.writeString(models, declared + "    time_zone: Etc/UTC\n");
    assertThat(
        run("plan", project.toString(), "hourly_revenue", "--against", manifest.toString()), is(2));
    assertThat(out.toString(), containsString("time_zone: UTC -> Etc/UTC"));
    assertThat(
        out.toString(), containsString("tumbling 1h -> tumbling 1h (time_zone Etc/UTC declared)"));
  }

  /** A project reading sales from a file, with the {@code daily} model declared as {@code yml}. */
  private Path sales(String yml) throws Exception {
    Path project = dir.resolve("sales");
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n"
            + "  sales:\n"
            + "    connector: file\n"
            + "    path: sales.jsonl\n"
            + "    format: json\n"
            + "    schema:\n"
            + "      store_id: string\n"
            + "      amount: decimal(12,2)\n"
            + "      sold_at: timestamp\n"
            + "    event_time: sold_at\n");
    Files.writeString(project.resolve("sales.jsonl"), "");
    Files.writeString(project.resolve("streamform.yml"), yml);
    Files.writeString(
        project.resolve("models/daily.sql"),
        "SELECT store_id, SUM(amount) AS revenue, COUNT(*) AS sales FROM source('sales')"
            + " GROUP BY store_id");
    return project;
  }

  /** Whether {@code text} has {@code 1d} as a duration (not inside a digest or a name). */
  private static boolean oneDayAs1d(String text) {
    return java.util.regex.Pattern.compile("(?<![0-9A-Za-z_])1d(?![0-9A-Za-z_])")
        .matcher(text)
        .find();
  }

  /**
   * ADR 0021: {@code 1d} as the whole window is a calendar day, so a fixed window of one day is
   * written back as {@code 24h} wherever the tool writes it, never as {@code 1d}: explain, the
   * manifest, the zone warning and the plan of a change from {@code 24h} to {@code 1d} (which must
   * read as two different windows, not {@code 1d -> 1d}).
   */
  @Test
  void aFixedDayIsWritten24hNever1d() throws Exception {
    String fixed = "models:\n  daily:\n    key: [store_id]\n    window: 24h\n";
    Path project = sales(fixed);
    assertThat(err.toString(), run("check", project.toString()), is(0));
    assertThat(err.toString(), run("explain", project.toString(), "daily"), is(0));
    String explained = out.toString();
    assertThat(explained, containsString("  window=tumbling 24h (aligned to the epoch, UTC)\n"));
    assertThat(explained, containsString(" window=tumbling 24h allowed_lateness=0s "));
    assertThat(explained, containsString("Window: tumbling 24h\n"));
    assertThat(explained, oneDayAs1d(explained), is(false));

    Path manifest = saved(project, "daily");
    assertThat(Files.readString(manifest), containsString("\"window\": \"tumbling 24h\""));
    assertThat(oneDayAs1d(Files.readString(manifest)), is(false));

    // the zone warning names the window's start interval as a fixed duration too
    Files.writeString(project.resolve("streamform.yml"), fixed + "    time_zone: Asia/Kolkata\n");
    assertThat(run("check", project.toString()), is(0));
    assertThat(
        err.toString(),
        containsString("Asia/Kolkata has the offset +05:30, not a whole multiple of 24h:"));
    assertThat(err.toString(), not(containsString("multiple of 1d")));

    // 24h -> 1d is a fixed day becoming a calendar day: the plan says both, each as it is written
    Files.writeString(
        project.resolve("streamform.yml"), fixed.replace("window: 24h", "window: 1d"));
    assertThat(run("plan", project.toString(), "daily", "--against", manifest.toString()), is(2));
    assertThat(out.toString(), containsString("state.window: tumbling 24h -> calendar day in UTC"));
    assertThat(out.toString(), containsString("window: tumbling 24h -> calendar day in UTC"));
  }

  @Test
  void aFileThatIsNotAManifestIsNamedWithWhatIsWrong() throws Exception {
    Path notJson = dir.resolve("broken.json");
    Files.writeString(notJson, "{\n  \"manifest\": \n");
    assertThat(
        run("plan", HOURLY.toString(), "hourly_revenue", "--against", notJson.toString()), is(1));
    assertThat(err.toString(), containsString(notJson + ":"));
    assertThat(err.toString(), containsString("not JSON"));
    assertThat(err.toString(), not(containsString("Exception")));

    Path other = dir.resolve("other.json");
    Files.writeString(other, "{\"nodes\": []}");
    assertThat(
        run("plan", HOURLY.toString(), "hourly_revenue", "--against", other.toString()), is(1));
    assertThat(
        err.toString(), containsString(other + " is not a plan manifest: it has no \"manifest\""));

    assertThat(
        run(
            "plan",
            HOURLY.toString(),
            "hourly_revenue",
            "--against",
            dir.resolve("none.json").toString()),
        is(1));
    assertThat(
        err.toString(),
        containsString(
            "no such file; write the running plan's manifest with streamform inspect-plan"));
  }

  /** A folder given as the manifest, and a missing one whose hint a shell can run as printed. */
  @Test
  void aFolderOrAMissingFileWithASpaceGetsAPlainReasonAndARunnableHint() throws Exception {
    Path folder = Files.createDirectories(dir.resolve("a folder"));
    assertThat(
        run("plan", HOURLY.toString(), "hourly_revenue", "--against", folder.toString()), is(1));
    assertThat(
        err.toString(),
        containsString(
            "streamform plan: "
                + folder
                + ": is a folder, not a file; give the file streamform inspect-plan wrote"));

    err.getBuffer().setLength(0);
    Path missing = folder.resolve("running plan.json");
    assertThat(
        run("plan", HOURLY.toString(), "hourly_revenue", "--against", missing.toString()), is(1));
    assertThat(
        err.toString(),
        containsString("streamform inspect-plan <project> <model> > '" + missing + "'"));
  }

  /** A file damaged on disk: its bytes, its JSON and its fields, each named in plain words. */
  @Test
  void aDamagedManifestSaysWhereAndWhatInPlainWords() throws Exception {
    Path latin = dir.resolve("latin.json");
    Files.write(latin, new byte[] {'{', '\n', ' ', (byte) 0xff, (byte) 0xfe, '}'});
    assertThat(
        run("plan", HOURLY.toString(), "hourly_revenue", "--against", latin.toString()), is(1));
    assertThat(
        err.toString(), containsString(latin + ":2: not UTF-8 text: byte 2 of the line is 0xFF"));

    Path cut = dir.resolve("cut.json");
    Files.writeString(cut, "{\"nodes\": [");
    assertThat(
        run("plan", HOURLY.toString(), "hourly_revenue", "--against", cut.toString()), is(1));
    assertThat(err.toString(), containsString(cut + ":1:12: not JSON: "));
    assertThat(err.toString(), not(containsString("Source:")));
    assertThat(err.toString(), not(containsString("StreamReadFeature")));

    Path manifest = saved(HOURLY);
    ObjectMapper json = new ObjectMapper();
    ObjectNode tree = (ObjectNode) json.readTree(manifest.toFile());
    tree.put("generation", "two");
    Files.writeString(manifest, json.writeValueAsString(tree));
    assertThat(
        run("plan", HOURLY.toString(), "hourly_revenue", "--against", manifest.toString()), is(1));
    assertThat(
        err.toString(), containsString(manifest + " is not a plan manifest: \"generation\""));

    tree.put("generation", 1);
    ((ObjectNode) tree.get("nodes").get(0)).put("kind", "Bogus");
    Files.writeString(manifest, json.writeValueAsString(tree));
    assertThat(
        run("plan", HOURLY.toString(), "hourly_revenue", "--against", manifest.toString()), is(1));
    assertThat(err.toString(), containsString("'Bogus'"));
  }

  /** Two manifests in one file (`inspect-plan >>` twice): which one runs is not known. */
  @Test
  void aFileWithMoreThanOneManifestIsRefused() throws Exception {
    assertThat(run("inspect-plan", HOURLY.toString(), "hourly_revenue"), is(0));
    String manifest = out.toString();
    Path twice = dir.resolve("twice.json");
    Files.writeString(twice, manifest + manifest);
    assertThat(
        run("plan", HOURLY.toString(), "hourly_revenue", "--against", twice.toString()), is(1));
    assertThat(
        err.toString(),
        containsString(
            twice
                + ":"
                + (manifest.split("\n", -1).length)
                + ": more follows the manifest (a second JSON value); give the file"
                + " streamform inspect-plan wrote, once"));
  }

  /**
   * Issue 30: the manifest is derived from the built composite, so every step the composite applies
   * is listed — here the stateful duplicate detection of a source with {@code event_id}. The steps
   * expected are found by a plain walk of a pipeline the test builds itself.
   */
  @Test
  void everyStepTheCompositeAppliesIsInTheManifest() throws Exception {
    Path orders = Path.of("../test-streams/fixtures/duplicates/orders");
    for (String model : new String[] {"customer_metrics", "hourly_spend"}) {
      assertThat(err.toString(), run("inspect-plan", orders.toString(), model), is(0));
      JsonNode manifest = new ObjectMapper().readTree(out.toString());
      List<String> listed = new ArrayList<>();
      manifest.path("steps").forEach(s -> listed.add(s.path("name").asText()));

      DeclaredModel declared = DeclaredModel.of(Project.load(orders), model);
      Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
      p.apply(Create.empty(SourceRecordCoder.of(declared.recordSchema())))
          .apply("Composite", DeclaredPipeline.of(declared));
      // the top-level steps inside the composite, found by OnePipelineTest's own walk
      List<String> applied = new ArrayList<>();
      for (String step : OnePipelineTest.compositeSteps(p)) {
        String name = step.substring(0, step.lastIndexOf(" ("));
        if (!name.contains("/")) {
          applied.add(name);
        }
      }
      assertThat(model + ": " + applied, applied.isEmpty(), is(false));
      for (String step : applied) {
        assertThat(
            model + ": step '" + step + "' is missing from " + listed, listed.contains(step));
      }
      assertThat(out.toString(), containsString("\"transform\": \"Deduplicate\""));
      assertThat(out.toString(), containsString("\"Event id: order_id\""));
    }
  }

  /**
   * The manifest's nodes and time policy, derived from the built pipeline, read byte for byte as
   * the declarations give them, for every fixture project's every model: only {@code steps} is new.
   */
  @Test
  void theDerivedManifestKeepsEveryLineOfTheDeclaredOne() throws Exception {
    int models = 0;
    try (Stream<Path> files = Files.walk(Path.of("../test-streams/fixtures"))) {
      for (Path yml : (Iterable<Path>) files.filter(f -> f.endsWith("streamform.yml"))::iterator) {
        Project project = Project.load(yml.getParent());
        for (String model : project.models().keySet()) {
          assertThat(err.toString(), run("inspect-plan", yml.getParent().toString(), model), is(0));
          ObjectNode derived = (ObjectNode) new ObjectMapper().readTree(out.toString());
          assertThat(derived.has("steps"), is(true));
          derived.remove("steps");
          ObjectNode declared = (ObjectNode) PlanManifest.of(project, model).toTree();
          assertThat(yml + " " + model, derived, is(declared));
          models++;
        }
      }
    }
    assertThat(models > 10, is(true));
  }

  @Test
  void anUnknownModelListsTheModels() {
    assertThat(run("inspect-plan", HOURLY.toString(), "nope"), is(1));
    assertThat(err.toString(), containsString("no model named 'nope'"));
    assertThat(err.toString(), containsString("models: hourly_revenue"));
  }

  private static final String REWARD =
      "    effects:\n      - type: reward\n        subject: merchant_id\n"
          + "        when: \"revenue >= 100\"\n"
          + "        provider: {kind: webhook, url: \"http://127.0.0.1:8099/effects\","
          + " idempotency: key, receipts: true}\n";

  /** The copy with the reward rule {@code revenue >= 100} on hourly_revenue. */
  private Path withReward() throws Exception {
    Path project = copy();
    Path models = project.resolve("streamform.yml");
    Files.writeString(models, Files.readString(models) + REWARD);
    return project;
  }

  /**
   * A changed effect rule is a line of its own, COMPATIBLE, with the change and what becomes of the
   * effects of windows already written; not "nothing changes" (ADR 0149).
   */
  @Test
  void aChangedEffectRuleIsItsOwnCompatibleLine() throws Exception {
    Path project = withReward();
    Path manifest = saved(project);
    assertThat(Files.readString(manifest), containsString("\"when\": \"revenue >= 100\""));
    Path models = project.resolve("streamform.yml");
    Files.writeString(models, Files.readString(models).replace("revenue >= 100", "revenue >= 50"));
    assertThat(
        err.toString(),
        run("plan", project.toString(), "hourly_revenue", "--against", manifest.toString()),
        is(0));
    String text = out.toString();
    assertThat(text, containsString("Effects hourly_revenue     COMPATIBLE\n"));
    assertThat(text, containsString("    effects[reward].when: revenue >= 100 -> revenue >= 50\n"));
    // SHA-256 of the rules' compact canonical JSON, computed apart from Streamform
    assertThat(text, containsString("    effects digest 7d5155254fea -> a9b8a4b4c36f\n"));
    assertThat(text, containsString("not evaluated again under the new rules"));
    assertThat(
        text,
        containsString(
            "plan: 2 nodes: 0 STATE MIGRATION REQUIRED, 0 COMPATIBLE, 2 SAFE; effect rules"
                + " COMPATIBLE -> safe to deploy over the running plan"));
    assertThat(text, not(containsString("nothing changes")));
  }

  /** A manifest saved before effect rules were recorded is read and said to predate them. */
  @Test
  void aManifestWithoutEffectRulesIsSaidToPredateThem() throws Exception {
    Path project = withReward();
    Path manifest = saved(project);
    ObjectNode older = (ObjectNode) new ObjectMapper().readTree(manifest.toFile());
    older.remove("effects");
    Files.writeString(manifest, older.toPrettyString());
    assertThat(
        err.toString(),
        run("plan", project.toString(), "hourly_revenue", "--against", manifest.toString()),
        is(0));
    assertThat(out.toString(), containsString("predates effect rules"));
    assertThat(out.toString(), containsString("0 STATE MIGRATION REQUIRED, 0 COMPATIBLE, 2 SAFE"));
  }

  /** Another model's manifest is refused in one line, exit 2, no diff. */
  @Test
  void anotherModelsManifestIsRefusedInOneLine() throws Exception {
    Path project = copy();
    Path models = project.resolve("streamform.yml");
    Files.writeString(
        models,
        Files.readString(models)
            + "  daily_revenue:\n    key: [merchant_id]\n    window: 1d\n"
            + "    allowed_lateness: 24h\n");
    Files.copy(
        project.resolve("models/hourly_revenue.sql"), project.resolve("models/daily_revenue.sql"));
    Path manifest = saved(project, "daily_revenue");
    assertThat(
        run("plan", project.toString(), "hourly_revenue", "--against", manifest.toString()), is(2));
    assertThat(out.toString(), is(""));
    assertThat(
        err.toString(),
        is(
            "streamform plan: "
                + manifest
                + " is the manifest of model daily_revenue, not of hourly_revenue: pass --against"
                + " hourly_revenue's manifest (streamform inspect-plan "
                + project
                + " hourly_revenue), or plan daily_revenue (streamform plan "
                + project
                + " daily_revenue --against "
                + manifest
                + ")\n"));
  }
}
