package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --checkpointing-interval} is a positive number of milliseconds or -1 for none: 0 or -5
 * started Flink for every fixture of {@code test}, each failing with "The checkpoint interval must
 * be positive" and a "report it" hint, and {@code run} exited 1 leaving its output's lock.
 */
class CheckpointingIntervalTest {
  private static final Path GETTING_STARTED = Path.of("../examples/getting-started");

  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  @Test
  void zeroIsRefusedBeforeAFixtureRuns() {
    int status =
        run(
            "test",
            GETTING_STARTED.toString(),
            "--runner",
            "flink",
            "--checkpointing-interval",
            "0");

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        is(
            "streamform test: --checkpointing-interval 0: checkpoints need a positive number of"
                + " milliseconds between them; give one, or -1 for no checkpoints — see"
                + " 'streamform test --help'\n"));
    assertThat(out.toString(), is(""));
  }

  @Test
  void belowMinusOneIsRefusedBeforeARunStarts() {
    Path output = dir.resolve("o");
    int status =
        run(
            "run",
            GETTING_STARTED.toString(),
            "--runner",
            "flink",
            "--checkpointing-interval",
            "-5",
            "--output",
            output.toString());

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        is(
            "streamform run: --checkpointing-interval -5: checkpoints need a positive number of"
                + " milliseconds between them; give one, or -1 for no checkpoints — see"
                + " 'streamform run --help'\n"));
    assertThat(Files.exists(output), is(false));
  }
}
