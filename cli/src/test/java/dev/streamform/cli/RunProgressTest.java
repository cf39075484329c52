package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.not;

import java.io.BufferedWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * While {@code run} processes its files, a line every interval (10 s; shorter here, through a
 * system property) says how many of the lines read so far the job has dealt with; a short run
 * prints none. On the DirectRunner, files of more than a MiB are said at the start to be more than
 * it is meant for, naming Flink (docs/decisions/0153).
 */
@Isolated // sets System.out/err or a system property every test of the JVM reads
class RunProgressTest {
  private static final Path GETTING_STARTED = Path.of("../examples/getting-started");
  private static final int PAYMENTS = 16_000;

  /** {@link ProcessingProgress#INTERVAL_PROPERTY}, spelled out so the test ran before it. */
  private static final String INTERVAL = "streamform.run.processingProgressMs";

  private static final Pattern PROCESSING =
      Pattern.compile(
          "streamform run: processing: ([0-9,]+) of the ([0-9,]+) lines? read so far dealt with"
              + " \\(([0-9]+)%\\), ([0-9]+) s in");

  @TempDir Path dir;

  @AfterEach
  void clear() {
    System.clearProperty(INTERVAL);
  }

  @Test
  void aLongRunSaysWhatItHasDealtWithAndThatItsInputIsLargeForTheDirectRunner() throws Exception {
    System.setProperty(INTERVAL, "250");
    Path project = project(PAYMENTS);
    String[] said = run(project);
    assertThat(said[1], said[0], is("0"));
    String err = said[1];
    List<long[]> figures = new ArrayList<>();
    for (String line : err.split("\n")) {
      Matcher m = PROCESSING.matcher(line);
      if (m.matches()) {
        figures.add(
            new long[] {
              Long.parseLong(m.group(1).replace(",", "")),
              Long.parseLong(m.group(2).replace(",", "")),
              Long.parseLong(m.group(4))
            });
      } else {
        assertThat(line, not(containsString("processing")));
      }
    }
    assertThat(err, figures, not(empty()));
    long lines = Files.readAllLines(project.resolve("payments.jsonl")).size();
    long[] last = {0, 0, 0};
    for (long[] f : figures) {
      assertThat(err, f[0], lessThanOrEqualTo(f[1] - 1)); // a line only while some wait
      assertThat(err, f[1], lessThanOrEqualTo(lines));
      assertThat(err, last[0], lessThanOrEqualTo(f[0]));
      assertThat(err, last[1], lessThanOrEqualTo(f[1]));
      assertThat(err, last[2], lessThanOrEqualTo(f[2]));
      last = f;
    }
    assertThat(
        err,
        err.lines().filter(l -> l.contains("DirectRunner")).toList(),
        is(
            List.of(
                String.format(
                    java.util.Locale.ROOT,
                    "streamform run: %.1f MB of input on the DirectRunner, which is meant for small"
                        + " inputs and fixtures (it holds the records in memory and applies them"
                        + " one at a time): for volume, run it with --runner flink (see"
                        + " docs/guides/files.md)",
                    Files.size(project.resolve("payments.jsonl")) / 1e6))));
  }

  @Test
  void aShortRunSaysNeither() throws Exception {
    String[] said = run(project(0));
    assertThat(said[1], said[0], is("0"));
    assertThat(said[1], not(containsString("processing")));
    assertThat(said[1], not(containsString("DirectRunner")));
  }

  private String[] run(Path project) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status =
        Streamform.run(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            "run",
            project.toString(),
            "--output",
            dir.resolve("out").toString());
    return new String[] {String.valueOf(status), err.toString(), out.toString()};
  }

  /** getting-started with {@code payments} more payments after its own. */
  private Path project(int payments) throws Exception {
    Path copy = dir.resolve("project");
    try (Stream<Path> all = Files.walk(GETTING_STARTED)) {
      for (Path f : (Iterable<Path>) all::iterator) {
        Path rel = GETTING_STARTED.relativize(f);
        Path to = copy.resolve(rel.toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else if (!rel.startsWith("target")) {
          Files.copy(f, to);
        }
      }
    }
    Instant t = Instant.parse("2026-08-30T00:00:00Z");
    try (BufferedWriter w =
        Files.newBufferedWriter(
            copy.resolve("payments.jsonl"),
            StandardCharsets.UTF_8,
            java.nio.file.StandardOpenOption.APPEND)) {
      for (int i = 0; i < payments; i++) {
        w.write(
            "{\"merchant_id\": "
                + (i % 50)
                + ", \"amount\": 1.00, \"paid_at\": \""
                + t.plusSeconds(i)
                + "\"}\n");
      }
    }
    return copy;
  }
}
