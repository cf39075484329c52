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
 * <model>.idle.jsonl}, each naming its partition's policy generation.
 *
 * <p>Idleness is processing time: partition 0 (one line) is read at once, partition 1 (10,000
 * lines) keeps the run busy well past {@code idle_after: 100ms}, so partition 0 goes idle at its
 * {@code W_p} (10:00, its one event; no bound declared). With 500 lines a warm JVM (the CI's, after
 * the module's other tests) read them in 0.4 s and partition 0 never went idle: 1 of 6 repetitions
 * failed with {@code but: was empty}; 10,000 lines take ~3 s, 15 of 15 repetitions passed. Whether
 * partition 1 went idle before its first line came depends on how the runner scheduled the two
 * files: its markers are only held to the rules every marker keeps (the generation, and a resumed
 * one never moving the watermark back).
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
    for (int i = 0; i < 10_000; i++) {
      many.append(
          String.format(
              "{\"merchant_id\":%d,\"amount\":5.00,\"paid_at\":\"2026-08-30T11:%02d:00Z\"}%n",
              8 + i % 50, i % 60));
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
      if (m.path("kind").asText().equals("resumed")
          && !m.path("watermark").isNull()
          && m.path("watermark_after").asText().compareTo(m.path("watermark").asText()) < 0) {
        wrong.add("the watermark moved back: " + line);
      }
    }
    assertEquals(List.of(), wrong, "markers in " + idle + ": " + lines);
    assertThat(
        lines,
        hasItem(
            "{\"kind\":\"idle\",\"generation\":4,\"partition\":0,"
                + "\"watermark\":\"2026-08-30T10:00:00Z\"}"));
  }
}
