package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --jdbc-password-file} naming a folder is a bad command line on every command, as a missing
 * file is: it was "internal error: java.io.UncheckedIOException: cannot read the JDBC password
 * file", exit 1 (alias set, ledger verify), or "cannot use the database ...: Is a directory" (run,
 * decisions verify).
 */
class JdbcPasswordFolderTest {
  private static final Path GETTING_STARTED = Path.of("../examples/getting-started");
  private static final Path RECEIPTS = Path.of("../test-streams/fixtures/decisions/receipts");
  private static final String URL = "jdbc:postgresql://127.0.0.1:1/x";

  @TempDir Path dir;

  @Test
  void aFolderIsRefusedOnEveryCommand() throws Exception {
    Path folder = Files.createDirectory(dir.resolve("secrets"));
    String p = GETTING_STARTED.toString();
    String[][] commands = {
      {"alias", "set", p, "--generation", "1"},
      {"ledger", "verify", p},
      {"ledger", "show", p},
      {"compare-generations", p, "--from", "1", "--to", "2"},
      {"gates", p},
      {"run", p, "--output", dir.resolve("o").toString()},
      {"decisions", "verify", RECEIPTS.toString(), "--model", "receipt_risk"},
      {"decisions", "show", RECEIPTS.toString(), "--model", "receipt_risk"},
    };
    for (String[] command : commands) {
      String name = command[0] + (command[1].startsWith(".") ? "" : " " + command[1]);
      List<String> args = new ArrayList<>(List.of(command));
      args.addAll(List.of("--jdbc-url", URL, "--jdbc-password-file", folder.toString()));
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
                  + ": --jdbc-password-file: "
                  + folder
                  + " is a folder; name the file whose first line is the password — see"
                  + " 'streamform "
                  + name
                  + " --help'\n"));
    }
    assertThat(Files.exists(dir.resolve("o")), is(false));
  }
}
