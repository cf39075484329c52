package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A number option given something else says the range the option takes, not Java's: "--parallelism
 * 1.5" said "is not a whole number from -2147483648 to 2147483647" though no negative is valid, and
 * "--tolerance abc" "'abc' is not a double"; {@code fuzz --traces -1} said "--traces, --parallelism
 * and --batch must be at least 1" without naming which.
 */
class NumberOptionMessagesTest {
  private static final Path GETTING_STARTED = Path.of("../examples/getting-started");
  private static final String P = GETTING_STARTED.toString();

  private static void refused(String command, String expected, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
    assertThat(String.join(" ", args) + ": " + err, status, is(2));
    assertThat(
        String.join(" ", args),
        err.toString(),
        is(
            "streamform "
                + command
                + ": "
                + expected
                + " — see 'streamform "
                + command
                + " --help'\n"));
  }

  @Test
  void aWholeNumberOptionSaysItsRange() {
    refused(
        "test",
        "--parallelism: '1.5' is not a whole number from 1 to 2147483647",
        "test",
        P,
        "--runner",
        "flink",
        "--parallelism",
        "1.5");
    refused(
        "fuzz",
        "--traces: 'abc' is not a whole number from 1 to 2147483647",
        "fuzz",
        P,
        "--traces",
        "abc");
    refused(
        "provider",
        "--port: 'abc' is not a whole number from 0 to 65535",
        "provider",
        "--port",
        "abc");
    refused(
        "alias set",
        "--generation: 'abc' is not a whole number from 1 to 2147483647",
        "alias",
        "set",
        P,
        "--jdbc-url",
        "jdbc:postgresql://h/d",
        "--generation",
        "abc");
    refused(
        "run",
        "--checkpointing-interval: 'x' is not a whole number of milliseconds, positive, or -1 for"
            + " none",
        "run",
        P,
        "--checkpointing-interval",
        "x");
  }

  @Test
  void aSeedTakesAnyWholeNumber() {
    refused(
        "fuzz",
        "--seed: 'abc' is not a whole number from " + Long.MIN_VALUE + " to " + Long.MAX_VALUE,
        "fuzz",
        P,
        "--traces",
        "1",
        "--seed",
        "abc");
  }

  @Test
  void aDecimalOptionSaysANumber() {
    refused(
        "test",
        "--tolerance: 'abc' is not a number from 0, e.g. 1e-9",
        "test",
        P,
        "--tolerance",
        "abc");
  }

  @Test
  void fuzzNamesTheCountBelowOne() {
    refused(
        "fuzz",
        "--traces: '-1' is not a whole number from 1 to 2147483647",
        "fuzz",
        P,
        "--traces",
        "-1");
    refused(
        "fuzz",
        "--parallelism: '0' is not a whole number from 1 to 2147483647",
        "fuzz",
        P,
        "--traces",
        "1",
        "--parallelism",
        "0");
    refused(
        "fuzz",
        "--batch: '0' is not a whole number from 1 to 2147483647",
        "fuzz",
        P,
        "--traces",
        "1",
        "--batch",
        "0");
  }
}
