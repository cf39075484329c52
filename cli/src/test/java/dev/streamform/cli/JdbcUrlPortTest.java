package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code --jdbc-url} whose port is not 1–65535 (or not a number) is a bad command line, said
 * before anything connects: the PostgreSQL driver refused it with java.util.logging WARNING lines
 * and "internal error: ... Driver org.postgresql.Driver claims to not accept jdbcUrl", exit 1.
 */
class JdbcUrlPortTest {
  private static final Path GETTING_STARTED = Path.of("../examples/getting-started");
  private static final Path RECEIPTS = Path.of("../test-streams/fixtures/decisions/receipts");

  @TempDir Path dir;

  @Test
  void aPortOutsideOneTo65535IsRefusedOnEveryCommand() {
    String p = GETTING_STARTED.toString();
    String[][] commands = {
      {"ledger", "verify", p},
      {"ledger", "show", p},
      {"alias", "set", p, "--generation", "1"},
      {"compare-generations", p, "--from", "1", "--to", "2"},
      {"dispatch", p},
      {"effects", "verify", p},
      {"effects", "pause", p},
      {"gates", p},
      {"run", p, "--output", dir.resolve("o").toString()},
      {"decisions", "verify", RECEIPTS.toString()},
      {"decisions", "show", RECEIPTS.toString()},
    };
    String[][] ports = {
      {"99999", "jdbc:postgresql://127.0.0.1:99999/x"},
      {"0", "jdbc:postgresql://127.0.0.1:0/x"},
      {"abc", "jdbc:postgresql://127.0.0.1:abc/x"},
      {"70000", "jdbc:postgresql://127.0.0.1:5432,127.0.0.2:70000/x"},
    };
    for (String[] command : commands) {
      String name = command[0] + (command[1].startsWith(".") ? "" : " " + command[1]);
      for (String[] port : ports) {
        List<String> args = new ArrayList<>(List.of(command));
        args.add("--jdbc-url");
        args.add(port[1]);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status =
            Streamform.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
        assertThat(String.join(" ", args) + ": " + err, status, is(2));
        assertThat(
            String.join(" ", args),
            err.toString(),
            is(
                "streamform "
                    + name
                    + ": --jdbc-url: port "
                    + port[0]
                    + " in "
                    + port[1]
                    + " is not a port (a port is 1–65535); write"
                    + " jdbc:postgresql://HOST:PORT/DATABASE with PORT from 1 to 65535, or leave"
                    + " out :PORT for 5432 — see 'streamform "
                    + name
                    + " --help'\n"));
      }
    }
  }
}
