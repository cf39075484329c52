package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code --version} on a command prints what {@code streamform --version} prints, as every
 * command's help says ("-V, --version Print version information and exit."): it printed nothing,
 * exit 0.
 */
class SubcommandVersionTest {
  private static String[] version(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
    return new String[] {String.valueOf(status), out.toString(), err.toString()};
  }

  @Test
  void everyCommandPrintsTheVersion() {
    String[] top = version("--version");
    assertThat(top[0], is("0"));
    assertThat(top[1], startsWith("streamform "));
    List<List<String>> commands = new ArrayList<>();
    collect(new CommandLine(new Streamform()), new ArrayList<>(), commands);
    assertThat(commands.size() > 20, is(true));
    for (List<String> command : commands) {
      List<String> args = new ArrayList<>(command);
      args.add("--version");
      String[] got = version(args.toArray(String[]::new));
      assertThat(String.join(" ", args), got, is(top));
    }
    assertThat(version("effects", "settle", "-V"), is(top));
  }

  private static void collect(CommandLine at, List<String> path, List<List<String>> into) {
    for (var sub : at.getSubcommands().entrySet()) {
      if (sub.getValue().getCommand() instanceof CommandLine.HelpCommand) {
        continue; // "streamform help --version": help with an option, not a command to help with
      }
      List<String> p = new ArrayList<>(path);
      p.add(sub.getKey());
      into.add(p);
      collect(sub.getValue(), p, into);
    }
  }
}
