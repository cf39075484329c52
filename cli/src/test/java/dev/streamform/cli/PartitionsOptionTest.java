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
 * {@code produce} and {@code run} refuse {@code --partitions} below 1 as a bad command line, before
 * the broker is contacted: 0 and -1 were accepted and the broker asked.
 */
class PartitionsOptionTest {
  private static final Path HOURLY = Path.of("../test-streams/fixtures/time/hourly-revenue");

  /** Nobody listens here: a command that contacts it fails, exit 1. */
  private static final String NO_BROKER = "127.0.0.1:1";

  @TempDir Path dir;

  @Test
  void produceAndRunRefuseZeroAndMinusOne() {
    String p = HOURLY.toString();
    String[][] commands = {
      {"produce", p, HOURLY.resolve("fixtures/hourly_revenue.yml").toString()},
      {"run", p, "--output", dir.resolve("o").toString()},
    };
    for (String[] command : commands) {
      for (String n : new String[] {"0", "-1"}) {
        String[] args = new String[command.length + 4];
        System.arraycopy(command, 0, args, 0, command.length);
        args[command.length] = "--bootstrap-servers";
        args[command.length + 1] = NO_BROKER;
        args[command.length + 2] = "--partitions";
        args[command.length + 3] = n;
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
        assertThat(String.join(" ", args) + ": " + err, status, is(2));
        assertThat(
            err.toString(),
            is(
                "streamform "
                    + command[0]
                    + ": --partitions "
                    + n
                    + ": a topic has at least 1 partition; give --partitions 1 or more, or leave"
                    + " it out — see 'streamform "
                    + command[0]
                    + " --help'\n"));
      }
    }
    assertThat(Files.exists(dir.resolve("o")), is(false));
  }
}
