package dev.streamform.cli;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C (SIGINT) and SIGTERM end {@code streamform run} as before (130, 143), but no longer
 * silently: one line on standard error says the run was interrupted, how many lines it had read,
 * and that the previous outputs in the folder were left as they were (docs/decisions/0142). The run
 * is a JVM of its own, on a file long enough to be interrupted while it reads.
 */
class RunInterruptTest {
  private static final Path GETTING_STARTED = Path.of("../examples/getting-started");
  private static final String PREVIOUS = "{\"a previous run's\":\"row\"}\n";

  @TempDir Path dir;

  @Test
  void ctrlCSaysTheRunWasInterruptedWhatItReadAndThatThePreviousOutputsStay() throws Exception {
    interrupted("INT", 130);
  }

  @Test
  void sigtermSaysItToo() throws Exception {
    interrupted("TERM", 143);
  }

  private void interrupted(String signal, int status) throws Exception {
    Path project = project();
    Path output = Files.createDirectories(dir.resolve("out"));
    Path previous = Files.writeString(output.resolve("hourly_revenue.jsonl"), PREVIOUS);
    Path log = dir.resolve("run.log");
    Process run = runInAJvm(project, output, log);
    try {
      // the source's progress line: the job is reading
      await("the run reading its file")
          .atMost(Duration.ofMinutes(3))
          .until(() -> !run.isAlive() || read(log).contains("streamform run: read 100,000 lines"));
      assertThat(read(log), run.isAlive(), is(true));
      new ProcessBuilder("kill", "-" + signal, String.valueOf(run.pid()))
          .inheritIO()
          .start()
          .waitFor();
      assertThat("ended after SIG" + signal, run.waitFor(60, TimeUnit.SECONDS), is(true));
      String said = read(log);
      assertThat(said, run.exitValue(), is(status));
      assertThat(
          said,
          matchesPattern(
              "(?s).*\nstreamform run: interrupted \\(SIG"
                  + signal
                  + "\\): [0-9]{3},[0-9]{3} lines read; nothing was written to "
                  + java.util.regex.Pattern.quote(output.toString())
                  + ": the previous outputs there were left as they were \\(the next run removes"
                  + " this run's \\.parts folder\\)\n.*"));
      assertThat(Files.readString(previous), is(PREVIOUS));
    } finally {
      run.destroyForcibly();
      run.waitFor();
    }
  }

  /** getting-started with 400,000 payments: enough to read for a while. */
  private Path project() throws Exception {
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
        Files.newBufferedWriter(copy.resolve("payments.jsonl"), StandardCharsets.UTF_8)) {
      for (int i = 0; i < 400_000; i++) {
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

  private static Process runInAJvm(Path project, Path output, Path log) throws Exception {
    return new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx512m",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
            Streamform.class.getName(),
            "run",
            project.toString(),
            "--output",
            output.toString())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private static String read(Path log) {
    try {
      return Files.readString(log);
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }
}
