package dev.streamform.cli;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 31: {@code streamform test --watch} runs the fixtures again when a file changes. */
class TestWatchTest {
  private static final Path LATE_EVENT = Path.of("../test-streams/fixtures/time/late-event");

  @Test
  void aChangedFixtureRunsAgainInTheSameJvmUntilInterrupted(@TempDir Path dir) throws Exception {
    Path project = dir.resolve("late-event");
    try (Stream<Path> files = Files.walk(LATE_EVENT)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path to = project.resolve(LATE_EVENT.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to);
        }
      }
    }
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    AtomicInteger status = new AtomicInteger(-1);
    Thread watching =
        new Thread(
            () ->
                status.set(
                    Streamform.run(
                        new PrintWriter(out, true),
                        new PrintWriter(err, true),
                        "test",
                        "--watch",
                        "--color",
                        "never",
                        project.toString())));
    watching.start();
    try {
      await("the first run and the watch")
          .atMost(Duration.ofMinutes(2))
          .until(() -> err.toString().contains("for changes (Ctrl-C to stop)"));
      assertThat(out.toString(), containsString("1 fixture on direct: 1 passed, 0 failed"));

      Path fixture = project.resolve("fixtures/late_event.yml");
      Files.writeString(
          fixture,
          Files.readString(fixture).replace("total_spend: 31 }", "total_spend: 32 }")); // now wrong
      await("a second run after the change")
          .atMost(Duration.ofMinutes(1))
          .until(() -> out.toString().contains("1 fixture on direct: 0 passed, 1 failed"));
    } finally {
      watching.interrupt();
      watching.join(Duration.ofSeconds(30).toMillis());
    }
    assertThat("the watch stopped when interrupted", watching.isAlive(), is(false));
    assertThat(status.get(), is(0)); // the first run's status: it passed
  }
}
