package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    assertThat(err.toString(), run("inspect-plan", project.toString(), "hourly_revenue"), is(0));
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
    assertThat(
        run("plan", project.toString(), "hourly_revenue", "--against", manifest.toString()), is(2));
    assertThat(out.toString(), not(containsString("NEW GENERATION REQUIRED")));
    assertThat(out.toString(), containsString("1 STATE MIGRATION REQUIRED, 1 COMPATIBLE, 0 SAFE"));
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

  @Test
  void anUnknownModelListsTheModels() {
    assertThat(run("inspect-plan", HOURLY.toString(), "nope"), is(1));
    assertThat(err.toString(), containsString("no model named 'nope'"));
    assertThat(err.toString(), containsString("models: hourly_revenue"));
  }
}
