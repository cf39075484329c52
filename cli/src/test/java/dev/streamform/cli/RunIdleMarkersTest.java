package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * {@code streamform run} writes the clock's idle markers (docs/semantics.md §9.7) to {@code
 * <model>.idle.jsonl}, each naming its partition's policy generation, and a file's partition goes
 * idle only once its file has been read (ADR 0063).
 *
 * <p>Idleness is processing time: partition 0 (one line) is read at once, partition 1 (10,000
 * lines) keeps the run busy well past {@code idle_after: 100ms}, so partition 0 goes idle at its
 * {@code W_p} (10:00, its one event; no bound declared). With 500 lines a warm JVM (the CI's, after
 * the module's other tests) read them in 0.4 s and partition 0 never went idle: 1 of 6 repetitions
 * failed with {@code but: was empty}; 10,000 lines take ~3 s, 15 of 15 repetitions passed. Whether
 * partition 1 goes idle after its last line depends on how soon the run ends; it may not go idle
 * before: the clock learns each file's length and starts a partition's idleness only once the
 * partition's last line is judged. Before that, a partition went idle at an undefined watermark
 * when its file's first lines reached the clock more than {@code idle_after} after the run began
 * (the DirectRunner hands a file's lines on once it has read them all), and its first event was
 * then stamped with its own event time rather than the undefined watermark — which reorders an
 * upsert model's key spread over the files ({@link #anIdleAfterDoesNotReorderAKeySpreadOverFiles}).
 */
class RunIdleMarkersTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @Test
  void aPartitionIdleInARunLeavesAMarkerNamingItsGeneration() throws Exception {
    Path project = dir.resolve("payments");
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  payments:\n    connector: file\n    path: \"payments-*.jsonl\"\n    schema:\n"
            + "      merchant_id: int64\n      amount: decimal(12,2)\n      paid_at: timestamp\n"
            + "    event_time: paid_at\n    idle_after: 100ms\n");
    Files.writeString(
        project.resolve("streamform.yml"),
        "models:\n  hourly_revenue:\n    key: [merchant_id]\n    window: 1h\n    generation: 4\n");
    Files.writeString(
        project.resolve("models/hourly_revenue.sql"),
        "SELECT merchant_id, SUM(amount) AS revenue FROM source('payments')"
            + " GROUP BY merchant_id\n");
    Files.writeString(
        project.resolve("payments-0.jsonl"),
        "{\"merchant_id\":7,\"amount\":10.00,\"paid_at\":\"2026-08-30T10:00:00Z\"}\n");
    StringBuilder many = new StringBuilder();
    // in time order, so W_1 reaches its last value (11:49:59.700) only with the file's last line
    java.time.Instant start = java.time.Instant.parse("2026-08-30T11:00:00Z");
    for (int i = 0; i < 10_000; i++) {
      many.append(
          String.format(
              "{\"merchant_id\":%d,\"amount\":5.00,\"paid_at\":\"%s\"}%n",
              8 + i % 50, start.plusMillis(300L * i)));
    }
    Files.writeString(project.resolve("payments-1.jsonl"), many);

    int status =
        Streamform.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "run",
            project.toString(),
            "--model",
            "hourly_revenue");

    assertThat(err.toString(), status, is(0));
    Path idle = project.resolve("target/hourly_revenue/hourly_revenue.idle.jsonl");
    assertThat(out.toString(), out.toString().contains("wrote " + idle + " ("), is(true));
    List<String> lines = Files.readAllLines(idle);
    List<String> wrong = new ArrayList<>();
    for (String line : lines) {
      JsonNode m = JSON.readTree(line);
      if (m.path("generation").asInt() != 4) {
        wrong.add("not generation 4: " + line);
      }
      // a file's partition goes idle once its file is read, so never before its last W_p, and
      // nothing of the file comes after it: no partition resumes
      String last = m.path("partition").asInt() == 0 ? "10:00:00Z" : "11:49:59.700Z";
      if (m.path("kind").asText().equals("resumed")) {
        wrong.add("resumed, so idle before its file was read: " + line);
      } else if (!m.path("watermark").asText().equals("2026-08-30T" + last)) {
        wrong.add("idle before its file was read (its last W_p is " + last + "): " + line);
      }
    }
    assertEquals(List.of(), wrong, "markers in " + idle + ": " + lines);
    assertThat(
        lines,
        hasItem(
            "{\"kind\":\"idle\",\"generation\":4,\"partition\":0,"
                + "\"watermark\":\"2026-08-30T10:00:00Z\"}"));
  }

  /**
   * A key in both files of an upsert model: its two events are each their file's first, judged
   * while their partition's watermark is undefined, so both are stamped with the undefined
   * watermark and log order (stamp, then partition, then offset; docs/semantics.md §3.1) applies
   * partition 0's first — {@code insert 5} by {@code 0-0}, then {@code update 15} by {@code 1-0} —
   * whatever the event times (partition 0's is the later one). Declaring {@code idle_after} may not
   * change that: a file's partition is idle only once its file is read. Each file is long (5,000
   * lines) so that its first line reaches the clock well after {@code idle_after: 100ms}.
   */
  @Test
  void anIdleAfterDoesNotReorderAKeySpreadOverFiles() throws Exception {
    Path project = dir.resolve("spread");
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  payments:\n    connector: file\n    path: \"payments-*.jsonl\"\n    schema:\n"
            + "      merchant_id: int64\n      amount: int64\n      paid_at: timestamp\n"
            + "    event_time: paid_at\n    watermark: 5m\n    idle_after: 100ms\n");
    Files.writeString(
        project.resolve("streamform.yml"),
        "models:\n  revenue:\n    key: [merchant_id]\n    generation: 4\n");
    Files.writeString(
        project.resolve("models/revenue.sql"),
        "SELECT merchant_id, SUM(amount) AS revenue FROM source('payments')"
            + " GROUP BY merchant_id\n");
    // merchant 1 first in each file; the rest of each file is its own merchants' (2-26, 27-51)
    for (int p = 0; p < 2; p++) {
      StringBuilder lines = new StringBuilder();
      lines.append(
          p == 0
              ? "{\"merchant_id\":1,\"amount\":5,\"paid_at\":\"2026-08-30T10:05:00Z\"}\n"
              : "{\"merchant_id\":1,\"amount\":10,\"paid_at\":\"2026-08-30T10:00:00Z\"}\n");
      java.time.Instant start = java.time.Instant.parse("2026-08-30T10:06:00Z");
      for (int i = 0; i < 5_000; i++) {
        lines.append(
            String.format(
                "{\"merchant_id\":%d,\"amount\":1,\"paid_at\":\"%s\"}%n",
                2 + 25 * p + i % 25, start.plusMillis(250L * i)));
      }
      Files.writeString(project.resolve("payments-" + p + ".jsonl"), lines);
    }

    int status =
        Streamform.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "run",
            project.toString(),
            "--model",
            "revenue");

    assertThat(err.toString(), status, is(0));
    List<String> merchant1 = new ArrayList<>();
    for (String line : Files.readAllLines(project.resolve("target/revenue/revenue.jsonl"))) {
      if (JSON.readTree(line).path("merchant_id").asInt() == 1) {
        merchant1.add(line);
      }
    }
    List<String> idle = Files.readAllLines(project.resolve("target/revenue/revenue.idle.jsonl"));
    assertEquals(
        List.of(
            "{\"op\":\"insert\",\"merchant_id\":1,\"revenue\":5,\"__event\":\"0-0\"}",
            "{\"op\":\"update\",\"merchant_id\":1,\"revenue\":15,\"__event\":\"1-0\"}"),
        merchant1,
        "merchant 1's changelog; idle markers: " + idle);
  }
}
