package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Event time is kept to the millisecond, as Beam keeps it (ADR 0090): a fixture's instant with a
 * finer fraction is refused by {@code check} and {@code test} at its file and line with the
 * millisecond to write; a record's (and a {@code __watermark} line's) is floored to the
 * millisecond, events and watermark alike.
 */
class SubMillisecondTimesTest {
  private static final Path LATE_EVENT = Path.of("../test-streams/fixtures/time/late-event");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  /** The late-event project with its one fixture replaced by {@code lines}. */
  private Path project(String... lines) throws Exception {
    Path project = RunOnFilesTest.copyAsFileProject(LATE_EVENT, dir.resolve("late-event"));
    // a file project: run reads orders-*.jsonl; check and test only read the fixture
    Files.delete(project.resolve("fixtures/late_event.yml"));
    Files.writeString(project.resolve("fixtures/sub_ms.yml"), String.join("\n", lines) + "\n");
    return project;
  }

  /** Reproduction (a): the watermark item's and the event's microseconds. */
  @Test
  void aWatermarkItemFinerThanAMillisecondIsRefusedByCheckAndTest() throws Exception {
    Path project =
        project(
            "model: customer_metrics",
            "given:",
            "  - watermark: \"2026-08-30T10:00:00.0005Z\"",
            "  - event: { customer_id: 1, amount: 1, ordered_at: \"2026-08-30T10:00:00.0001Z\" }",
            "expect: []",
            "late:",
            "  - { customer_id: 1, amount: 1, ordered_at: \"2026-08-30T10:00:00.0001Z\" }");
    for (String command : List.of("check", "test")) {
      StringWriter said = new StringWriter();
      // check prints problems on stderr, test in its report: either is where a user reads them
      PrintWriter both = new PrintWriter(said);
      int status = Streamform.run(both, both, command, "" + project);
      assertThat(command + ": " + said, status, is(1));
      assertThat(
          command,
          said.toString(),
          containsString(
              "fixtures/sub_ms.yml:3: given item 1, key 'watermark':"
                  + " '2026-08-30T10:00:00.0005Z' is finer than a millisecond: Streamform keeps"
                  + " event time to the millisecond (records read from files and Kafka are"
                  + " floored to it) — write watermark: \"2026-08-30T10:00:00.000Z\"\n"));
      assertThat(
          command,
          said.toString(),
          containsString(
              "fixtures/sub_ms.yml:4: event 1, key 'ordered_at':"
                  + " '2026-08-30T10:00:00.0001Z' is finer than a millisecond"));
      assertThat(
          command,
          said.toString(),
          containsString(
              "fixtures/sub_ms.yml:7: late row 1, key 'ordered_at':"
                  + " '2026-08-30T10:00:00.0001Z' is finer than a millisecond: Streamform keeps"
                  + " event time to the millisecond (records read from files and Kafka are"
                  + " floored to it) — write ordered_at: \"2026-08-30T10:00:00.000Z\"\n"));
    }
  }

  /**
   * Reproduction (b): the late row could never match the event as the engine reports it (…59.999Z);
   * it is refused, and digits past the millisecond that are all zeros are accepted.
   */
  @Test
  void aLateRowFinerThanAMillisecondIsRefusedAndTrailingZerosAreNot() throws Exception {
    Path project =
        project(
            "model: customer_metrics",
            "given:",
            "  - event: { customer_id: 1, amount: 1, ordered_at: \"2026-08-30T10:00:00.000000Z\" }",
            "  - event: { customer_id: 1, amount: 2, ordered_at: \"2026-08-30T09:54:59.999000Z\" }",
            "expect:",
            "  - { op: insert, customer_id: 1, total_spend: 1 }",
            "late:",
            "  - { customer_id: 1, amount: 2, ordered_at: \"2026-08-30T09:54:59.9999Z\" }");
    assertThat(run("check", project.toString()), is(1));
    assertThat(
        err.toString(),
        containsString(
            "fixtures/sub_ms.yml:8: late row 1, key 'ordered_at':"
                + " '2026-08-30T09:54:59.9999Z' is finer than a millisecond"));
    assertThat(err.toString(), containsString("write ordered_at: \"2026-08-30T09:54:59.999Z\""));
    assertThat(err.toString(), containsString("1 problem\n"));

    // written to the millisecond (trailing zeros allowed), the same fixture passes
    Files.writeString(
        project.resolve("fixtures/sub_ms.yml"),
        Files.readString(project.resolve("fixtures/sub_ms.yml"))
            .replace("09:54:59.9999Z\" }\n", "09:54:59.999000Z\" }\n"));
    StringWriter passed = new StringWriter();
    assertThat(
        passed.toString(),
        Streamform.run(new PrintWriter(passed), new PrintWriter(err), "test", "" + project),
        is(0));
    assertThat(passed.toString(), containsString("1 late event dropped"));
  }

  /**
   * Reproduction (c), on a file: the {@code __watermark} line and the events are floored to the
   * millisecond alike, so 10:00:00.0001 against a watermark of 10:00:00.0005 is 10:00:00.000
   * against 10:00:00.000 — on time, as documented — and an event dropped as late is shown with the
   * floored time the engine judged.
   */
  @Test
  void aFileRunFloorsEventsAndWatermarkLinesAlike() throws Exception {
    Path project =
        project(
            "model: customer_metrics",
            "given:",
            "  - event: { customer_id: 1, amount: 1, ordered_at: \"2026-08-30T10:00:00Z\" }");
    Files.writeString(
        project.resolve("orders-0.jsonl"),
        String.join(
            "\n",
            "{\"__watermark\": \"2026-08-30T10:00:00.0005Z\"}",
            "{\"customer_id\": 1, \"amount\": 1, \"ordered_at\": \"2026-08-30T10:00:00.0001Z\"}",
            "{\"customer_id\": 1, \"amount\": 2, \"ordered_at\": \"2026-08-30T10:05:00.000999Z\"}",
            "{\"customer_id\": 1, \"amount\": 4, \"ordered_at\": \"2026-08-30T09:59:59.9999Z\"}",
            ""));
    Path output = dir.resolve("out");
    assertThat(
        err.toString(),
        run("run", project.toString(), "--model", "customer_metrics", "--output", "" + output),
        is(0));
    assertThat(
        out.toString(),
        containsString(
            "4 lines read: 2 events processed, 1 late, 0 quarantined, 1 watermark line"));
    List<JsonNode> late = rows(output.resolve("customer_metrics.late.jsonl"));
    assertThat(late, hasSize(1));
    JsonNode row = late.get(0);
    assertThat(row.toString(), row.get("event_time").asText(), is("2026-08-30T09:59:59.999Z"));
    // W = 10:05:00.000 (floored) - 5m: the event at 09:59:59.999 lost to 10:00:00.000
    assertThat(row.toString(), row.get("watermark").asText(), is("2026-08-30T10:00:00Z"));
  }

  private static List<JsonNode> rows(Path file) throws Exception {
    List<JsonNode> rows = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      if (!line.isBlank()) {
        rows.add(JSON.readTree(line));
      }
    }
    return rows;
  }
}
