package dev.streamform.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code streamform fuzz} on a project it has never seen. */
class FuzzCommandTest {

  @Test
  void fuzzesANewProjectWithAnotherSchema(@TempDir Path dir) throws Exception {
    Path project = dir.resolve("rides");
    write(
        project,
        "sources.yml",
        String.join(
            "\n",
            "sources:",
            "  rides:",
            "    connector: kafka",
            "    topic: rides",
            "    schema:",
            "      driver: string",
            "      city: string",
            "      km: double",
            "      stops: int64",
            "      fare: decimal(10,2)",
            "      started: timestamp",
            "    event_time: started",
            "    watermark: 1m",
            ""));
    write(
        project,
        "streamform.yml",
        String.join(
            "\n", "models:", "  driver_stats:", "    key: [driver]", "    retention: 15m", ""));
    write(
        project,
        "models/driver_stats.sql",
        String.join(
            "\n",
            "SELECT driver, COUNT(*) AS rides, SUM(km) AS km, SUM(stops) AS stops,",
            "  MIN(km) AS shortest, MAX(stops) AS most_stops, AVG(km) AS avg_km,",
            "  AVG(stops) AS avg_stops, AVG(fare) AS avg_fare, COUNT(fare) AS paid",
            "FROM source('rides') WHERE city <> 'test' AND km > 0.5",
            "GROUP BY driver",
            ""));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status =
        Streamform.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "fuzz",
            project.toString(),
            "--model",
            "driver_stats",
            "--traces",
            "25",
            "--seed",
            "17");
    assertEquals(0, status, out + "\n" + err);
    assertTrue(out.toString().contains("25/25 traces agree"), out.toString());
  }

  @Test
  void refusesAnUnknownRunner(@TempDir Path dir) {
    StringWriter err = new StringWriter();
    int status =
        Streamform.run(
            new PrintWriter(new StringWriter()),
            new PrintWriter(err),
            "fuzz",
            dir.toString(),
            "--traces",
            "1",
            "--runners",
            "spark");
    assertEquals(Streamform.USAGE, status);
    assertTrue(err.toString().contains("--runners takes direct and/or flink"), err.toString());
  }

  /**
   * {@code --runners ,} names no runner: it compared nothing and printed "1/1 traces agree", exit 0
   * (found by a read-only audit of the command line).
   */
  @Test
  void refusesARunnerListThatNamesNone(@TempDir Path dir) {
    StringWriter err = new StringWriter();
    int status =
        Streamform.run(
            new PrintWriter(new StringWriter()),
            new PrintWriter(err),
            "fuzz",
            dir.toString(),
            "--traces",
            "1",
            "--runners",
            ",");
    assertEquals(Streamform.USAGE, status, err.toString());
    assertTrue(err.toString().contains("--runners names no runner"), err.toString());
  }

  @Test
  void refusesParallelismWhenNoRunnerIsFlink(@TempDir Path dir) {
    // it only sizes the Flink runner: on --runners direct it was dropped without a word (ADR 0087)
    StringWriter err = new StringWriter();
    int status =
        Streamform.run(
            new PrintWriter(new StringWriter()),
            new PrintWriter(err),
            "fuzz",
            dir.toString(),
            "--traces",
            "1",
            "--parallelism",
            "4");
    assertEquals(Streamform.USAGE, status, err.toString());
    assertEquals(
        "streamform fuzz: --parallelism 4 is a Flink option, and --runners direct runs no Flink:"
            + " give --runners direct,flink, or leave out --parallelism — see 'streamform fuzz"
            + " --help'\n",
        err.toString());
  }

  private static void write(Path dir, String relative, String text) throws Exception {
    Path f = dir.resolve(relative);
    Files.createDirectories(f.getParent());
    Files.writeString(f, text);
  }
}
