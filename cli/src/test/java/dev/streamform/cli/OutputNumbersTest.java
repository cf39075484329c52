package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a file run writes, as a client reads it (docs/reference/output-formats.md): a decimal as a
 * plain number with its scale, a double as the Kafka record has it, and windows in the order of
 * their instants (found by a read-only audit of the output formats: {@code 1E-8} for a decimal,
 * {@code 12345678} for the double {@code 1.2345678E7} in the file only, and the window ending
 * {@code 10:00:01.500Z} before the one ending {@code 10:00:01Z}).
 */
class OutputNumbersTest {
  @TempDir Path project;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private void write(String relative, String text) throws Exception {
    Path f = project.resolve(relative);
    Files.createDirectories(f.getParent());
    Files.writeString(f, text);
  }

  private List<String> run(String model) throws Exception {
    int status =
        Streamform.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "run",
            project.toString(),
            "--model",
            model,
            "--output",
            project.resolve("out").toString());
    assertThat(err.toString(), status, is(0));
    return Files.readAllLines(project.resolve("out").resolve(model + ".jsonl"));
  }

  @Test
  void decimalsArePlainDoublesAsOnKafkaAndWindowsInInstantOrder() throws Exception {
    write(
        "sources.yml",
        "sources:\n  readings:\n    connector: file\n    path: readings.jsonl\n    schema:\n"
            + "      sensor: int64\n      dose: decimal(20,8)\n      level: double\n"
            + "      at: timestamp\n    event_time: at\n    watermark: 0s\n");
    write(
        "streamform.yml",
        "models:\n  totals:\n    key: [sensor]\n  halves:\n    key: [sensor]\n"
            + "    window: 500ms\n");
    write(
        "models/totals.sql",
        "SELECT sensor, SUM(dose) AS dose, SUM(level) AS level FROM source('readings')"
            + " GROUP BY sensor\n");
    write(
        "models/halves.sql",
        "SELECT sensor, COUNT(*) AS readings FROM source('readings') GROUP BY sensor\n");
    write(
        "readings.jsonl",
        "{\"sensor\":1,\"dose\":\"0.00000001\",\"level\":12345678.0,\"at\":\"2026-08-30T10:00:00.200Z\"}\n"
            + "{\"sensor\":1,\"dose\":\"0\",\"level\":0.5,\"at\":\"2026-08-30T10:00:00.700Z\"}\n"
            + "{\"sensor\":1,\"dose\":\"0\",\"level\":0.5,\"at\":\"2026-08-30T10:00:01.200Z\"}\n");
    List<String> totals = run("totals");
    assertThat(
        totals.get(0),
        is(
            "{\"op\":\"insert\",\"sensor\":1,\"dose\":0.00000001,\"level\":1.2345678E7,"
                + "\"__event\":\"0-0\"}"));
    List<String> ends =
        run("halves").stream()
            .map(l -> l.replaceAll(".*\"window_end\":\"([^\"]*)\".*", "$1"))
            .distinct()
            .toList();
    assertThat(
        ends,
        is(
            List.of(
                "2026-08-30T10:00:00.500Z", "2026-08-30T10:00:01Z", "2026-08-30T10:00:01.500Z")));
  }
}
