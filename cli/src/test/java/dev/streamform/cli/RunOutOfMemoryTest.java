package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run whose JVM runs out of heap (a DirectRunner worker's OutOfMemoryError) ends at once with
 * exit 1 and one line saying what ran out and what to do, no stack trace; before, the worker's
 * stack trace was printed and the run hung until killed (docs/decisions/0152). The run is a JVM of
 * its own with a heap far too small for its file.
 */
class RunOutOfMemoryTest {
  private static final Path GETTING_STARTED = Path.of("../examples/getting-started");

  @TempDir Path dir;

  @Test
  void outOfHeapSaysSoInOneLineAndExits1() throws Exception {
    Path project = project();
    Path output = Files.createDirectories(dir.resolve("out"));
    Path log = dir.resolve("run.log");
    Process run =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty(
                    "surefire.test.class.path", System.getProperty("java.class.path")),
                Streamform.class.getName(),
                "run",
                project.toString(),
                "--output",
                output.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      boolean ended = run.waitFor(4, TimeUnit.MINUTES);
      String said = Files.readString(log);
      assertThat("ended within 4 minutes; it said:\n" + said, ended, is(true));
      assertThat(said, run.exitValue(), is(1));
      assertThat(said, not(containsString("Exception in thread")));
      assertThat(said, not(containsString("\tat ")));
      String oom =
          said.lines().filter(l -> l.contains("out of memory")).reduce("", (a, b) -> a + b + "\n");
      assertThat(
          said,
          oom,
          matchesPattern(
              "streamform: out of memory: the Java heap \\(at most [0-9]+ MiB\\) is full: give the"
                  + " JVM more with STREAMFORM_JAVA_OPTS=-Xmx<size> \\(e\\.g\\. -Xmx[0-9]+g\\), or"
                  + " on the DirectRunner run it with --runner flink, which holds far less of the"
                  + " input in memory\n"));
    } finally {
      run.destroyForcibly();
      run.waitFor();
    }
  }

  /**
   * getting-started whose payments each carry a 3 MB note (a declared column): the DirectRunner
   * holds the records it read, and a 64 MiB heap runs out after a few of them, at once rather than
   * after minutes of collecting (many small records filled it slowly, and how long the collector
   * thrashed before giving up varied from 20 s to more than 4 minutes).
   */
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
    Path sources = copy.resolve("sources.yml");
    String declared = Files.readString(sources);
    String withNote =
        declared.replace(
            "      paid_at: timestamp\n", "      paid_at: timestamp\n      note: string\n");
    assertThat("getting-started's schema gained a note column", withNote, not(declared));
    Files.writeString(sources, withNote);
    String note = "x".repeat(3_000_000);
    Instant t = Instant.parse("2026-08-30T00:00:00Z");
    try (BufferedWriter w =
        Files.newBufferedWriter(copy.resolve("payments.jsonl"), StandardCharsets.UTF_8)) {
      for (int i = 0; i < 60; i++) {
        w.write(
            "{\"merchant_id\": "
                + (i % 5)
                + ", \"amount\": 1.00, \"paid_at\": \""
                + t.plusSeconds(i)
                + "\", \"note\": \""
                + note
                + "\"}\n");
      }
    }
    return copy;
  }
}
