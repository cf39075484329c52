package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code effects settle} says a mistake in how it is called as every command does, one line naming
 * the option and pointing at its help, exit 2, before connecting: it printed picocli's own "Error:
 * Missing required argument (specify one of these)" and "Error: expected only one match but got
 * ...", and a key prefix that is not hex was refused only after connecting.
 */
class EffectsSettleUsageTest {
  private static final Path GETTING_STARTED = Path.of("../examples/getting-started");

  /** Nobody listens here: a command that connects fails, exit 1. */
  private static final String NO_DATABASE = "jdbc:postgresql://127.0.0.1:1/x";

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int settle(String... args) {
    List<String> all =
        new ArrayList<>(
            List.of("effects", "settle", GETTING_STARTED.toString(), "--jdbc-url", NO_DATABASE));
    all.addAll(List.of(args));
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), all.toArray(String[]::new));
  }

  private static final String HELP = " — see 'streamform effects settle --help'\n";

  @Test
  void noOutcomeIsSaidAsEveryCommandSaysAMissingOption() {
    assertThat(settle("--effect", "ab", "--reason", "x"), is(2));
    assertThat(
        err.toString(),
        is(
            "streamform effects settle: what the person found is missing: give --applied or"
                + " --not-applied (with --effect), or --done (with --compensation)"
                + HELP));
  }

  @Test
  void nothingToSettleIsSaidAsEveryCommandSaysAMissingOption() {
    assertThat(settle("--applied", "--reason", "x"), is(2));
    assertThat(
        err.toString(),
        is(
            "streamform effects settle: what is settled is missing: give --effect KEYPREFIX or"
                + " --compensation ID"
                + HELP));
  }

  @Test
  void aRepeatedOptionShouldBeSpecifiedOnlyOnce() {
    assertThat(settle("--effect", "ab", "--applied", "--applied", "--reason", "x"), is(2));
    assertThat(
        err.toString(),
        is("streamform effects settle: option '--applied' should be specified only once" + HELP));
  }

  @Test
  void twoOutcomesAreRefusedNamingBoth() {
    assertThat(settle("--effect", "ab", "--applied", "--not-applied", "--reason", "x"), is(2));
    assertThat(
        err.toString(),
        is(
            "streamform effects settle: --applied and --not-applied are mutually exclusive: give"
                + " one"
                + HELP));
  }

  @Test
  void aKeyPrefixThatIsNotHexIsRefusedBeforeConnecting() {
    assertThat(settle("--effect", "zz", "--applied", "--reason", "x"), is(2));
    assertThat(
        err.toString(),
        is(
            "streamform effects settle: --effect zz: a key prefix is hex digits (0-9, a-f), as"
                + " effects show prints them; give the key or its first digits"
                + HELP));
  }
}
