package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.teststreams.fuzz.FixtureYaml;
import dev.streamform.teststreams.oracle.Oracle;
import dev.streamform.teststreams.trace.TraceGenerator;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A source without {@code event_time} behaves as if event time did not exist (docs/semantics.md
 * §1): it has no watermark and nothing is late, so a fixture's {@code - watermark:} item or {@code
 * late:} section for it would say something that can never happen. {@code check} and {@code test}
 * refuse them at their file and line, with the fix.
 */
class ProcessingTimeFixturesTest {
  private static final Path LATE_EVENT = Path.of("../test-streams/fixtures/time/late-event");

  @TempDir Path dir;

  /** The late-event project with its source on processing time and one fixture of {@code lines}. */
  private Path project(String... lines) throws Exception {
    Path project = RunOnFilesTest.copyAsFileProject(LATE_EVENT, dir.resolve("late-event"));
    Path sources = project.resolve("sources.yml");
    String yml =
        Files.readString(sources)
            .replaceAll("(?m)^    (event_time|watermark|late_events):.*\n", "");
    assertThat(yml, is(yml.replace("event_time", "")));
    Files.writeString(sources, yml);
    Files.delete(project.resolve("fixtures/late_event.yml"));
    Files.writeString(project.resolve("fixtures/arrival.yml"), String.join("\n", lines) + "\n");
    return project;
  }

  /** Both commands, problems from stdout and stderr together: check and test both refuse. */
  private static void refusedByCheckAndTest(Path project, String problem) {
    for (String command : List.of("check", "test")) {
      StringWriter said = new StringWriter();
      PrintWriter both = new PrintWriter(said);
      int status = Streamform.run(both, both, command, project.toString());
      assertThat(command + ": " + said, status, is(1));
      assertThat(command, said.toString(), containsString(problem));
    }
  }

  @Test
  void aWatermarkItemIsRefused() throws Exception {
    Path project =
        project(
            "model: customer_metrics",
            "given:",
            "  - event: { customer_id: 1, amount: 1, ordered_at: \"2026-08-30T10:00:00Z\" }",
            "  - watermark: \"2026-08-30T10:10:00Z\"",
            "  - event: { customer_id: 1, amount: 2, ordered_at: \"2026-08-30T10:01:00Z\" }",
            "expect:",
            "  - { op: insert, customer_id: 1, total_spend: 1 }",
            "  - { op: update, customer_id: 1, total_spend: 3 }");
    refusedByCheckAndTest(
        project,
        "fixtures/arrival.yml:4: given item 2, key 'watermark': source 'orders' declares no"
            + " event_time, so a watermark item has no meaning — remove it, or declare"
            + " event_time: <timestamp column> on source 'orders' in sources.yml\n");

    // without the item the same fixture passes: the events are applied in arrival order
    Path fixture = project.resolve("fixtures/arrival.yml");
    Files.writeString(
        fixture,
        Files.readString(fixture).replace("  - watermark: \"2026-08-30T10:10:00Z\"\n", ""));
    StringWriter out = new StringWriter();
    assertThat(
        out.toString(),
        Streamform.run(new PrintWriter(out), new PrintWriter(out), "test", project.toString()),
        is(0));
  }

  @Test
  void aLateSectionIsRefused() throws Exception {
    Path project =
        project(
            "model: customer_metrics",
            "given:",
            "  - event: { customer_id: 1, amount: 1, ordered_at: \"2026-08-30T10:10:00Z\" }",
            "  - event: { customer_id: 1, amount: 2, ordered_at: \"2026-08-30T10:00:00Z\" }",
            "expect:",
            "  - { op: insert, customer_id: 1, total_spend: 1 }",
            "late:",
            "  - { customer_id: 1, amount: 2, ordered_at: \"2026-08-30T10:00:00Z\" }");
    refusedByCheckAndTest(
        project,
        "fixtures/arrival.yml:7: key 'late': source 'orders' declares no"
            + " event_time, so no event is ever late — remove late:, or declare"
            + " event_time: <timestamp column> on source 'orders' in sources.yml\n");
  }

  /**
   * {@code streamform fuzz} writes a disagreeing trace as a fixture that must read back: for a
   * processing-time model its traces have no watermark items, which the fixture would refuse.
   */
  @Test
  void fuzzTracesOfAProcessingTimeModelReadBackAsFixtures() throws Exception {
    Path project =
        project(
            "model: customer_metrics",
            "given:",
            "  - event: { customer_id: 1, amount: 1, ordered_at: \"2026-08-30T10:00:00Z\" }");
    Project loaded = Project.load(project);
    DeclaredModel model = DeclaredModel.of(loaded, "customer_metrics");
    TraceGenerator generator = TraceGenerator.forModel(model);
    Oracle oracle = Oracle.of(model);
    Path written = project.resolve("fixtures/arrival.yml");
    for (int i = 0; i < 60; i++) {
      Fixture trace = generator.generate(2026, i);
      Files.writeString(written, FixtureYaml.render(trace, oracle.run(trace), List.of()));
      Fixture back = Fixture.load(loaded, written);
      assertThat(back.given().size(), is(trace.given().size()));
    }
  }
}
