package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code --bootstrap-servers} broker that is not HOST:PORT is a bad command line naming the
 * option: {@code localhost} was "Invalid url in bootstrap.servers: localhost — check the Kafka
 * client settings (--kafka-properties, kafka.properties:)", exit 1, on consume, produce and run.
 */
class BootstrapServersTest {
  private static final Path HOURLY = Path.of("../test-streams/fixtures/time/hourly-revenue");

  @TempDir Path dir;

  @Test
  void aBrokerWithoutAPortIsRefusedOnConsumeProduceAndRun() {
    String p = HOURLY.toString();
    String[][] commands = {
      {"consume", "t"},
      {"produce", p, HOURLY.resolve("fixtures/hourly_revenue.yml").toString()},
      {"run", p},
    };
    String[][] servers = {
      {"localhost", "localhost"},
      {"127.0.0.1:9092,kafka2", "kafka2"},
      {"localhost:99999", "localhost:99999"},
      {"localhost:", "localhost:"},
    };
    for (String[] command : commands) {
      for (String[] given : servers) {
        String[] args = new String[command.length + 2];
        System.arraycopy(command, 0, args, 0, command.length);
        args[command.length] = "--bootstrap-servers";
        args[command.length + 1] = given[0];
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
        assertThat(String.join(" ", args) + ": " + err, status, is(2));
        assertThat(
            err.toString(),
            is(
                "streamform "
                    + command[0]
                    + ": --bootstrap-servers "
                    + given[0]
                    + ": '"
                    + given[1]
                    + "' is not HOST:PORT (a port is 1–65535); give each broker as HOST:PORT,"
                    + " e.g. 127.0.0.1:9092 — see 'streamform "
                    + command[0]
                    + " --help'\n"));
      }
    }
  }

  /**
   * A list of blank entries names no broker: it passed the check (each blank entry was skipped) and
   * failed at Kafka's client, blamed on the client settings, exit 1.
   */
  @Test
  void aListOfBlankEntriesIsRefusedAsNamingNoBroker() {
    for (String[] command : new String[][] {{"consume", "t"}, {"run", HOURLY.toString()}}) {
      String[] args = {command[0], command[1], "--bootstrap-servers", " , "};
      StringWriter err = new StringWriter();
      int status = Streamform.run(new PrintWriter(new StringWriter()), new PrintWriter(err), args);
      assertThat(String.join(" ", args) + ": " + err, status, is(2));
      assertThat(
          err.toString(),
          is(
              "streamform "
                  + command[0]
                  + ": --bootstrap-servers ' , ' names no broker: give each broker as HOST:PORT,"
                  + " e.g. 127.0.0.1:9092 — see 'streamform "
                  + command[0]
                  + " --help'\n"));
    }
  }

  /**
   * A host that does not resolve is said as such, naming --bootstrap-servers and the host: it was
   * blamed on the Kafka client settings, though no settings file was given.
   */
  @Test
  void aHostThatDoesNotResolveNamesTheOptionAndTheHost() {
    StringWriter err = new StringWriter();
    int status =
        Streamform.run(
            new PrintWriter(new StringWriter()),
            new PrintWriter(err),
            "consume",
            "t",
            "--bootstrap-servers",
            "nohost.invalid:9092",
            "--max-wait",
            "1s");
    assertThat(err.toString(), status, is(1));
    assertThat(
        err.toString(),
        org.hamcrest.Matchers.containsString(
            " — no broker host of --bootstrap-servers resolves (nohost.invalid): check the host"
                + " names in --bootstrap-servers"));
    assertThat(
        err.toString(),
        org.hamcrest.Matchers.not(org.hamcrest.Matchers.containsString("client settings")));
  }
}
