package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An option naming a file or folder given an empty value ({@code --output=}, as a shell variable
 * that was never set gives it) is refused as a bad command line, saying the value is empty: an
 * empty path is the working folder to Java, and {@code run --output=} wrote the model's outputs and
 * its {@code .streamform.lock} there. So is an empty value of an option naming brokers, a state
 * backend or a savepoint.
 */
class EmptyFileOptionsTest {
  private static final Path GETTING_STARTED = Path.of("../examples/getting-started");

  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  @Test
  void runRefusesAnEmptyOutput() throws Exception {
    Path project = project();
    Path here = Path.of("").toAbsolutePath();
    boolean lockBefore = Files.exists(here.resolve(".streamform.lock"));

    int status = run("run", project.toString(), "--output=");

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString("--output is empty: name a folder (--output DIR), or leave out --output"));
    assertThat(out.toString(), not(containsString("->")));
    assertThat(
        "nothing written in the working folder",
        Files.exists(here.resolve(".streamform.lock")),
        is(lockBefore));
  }

  @Test
  void testRefusesAnEmptyReportOrJunitXml() throws Exception {
    Path project = project();
    for (String option : new String[] {"--report", "--junit-xml"}) {
      out.getBuffer().setLength(0);
      err.getBuffer().setLength(0);

      int status = run("test", project.toString(), option + "=");

      assertThat(err.toString(), status, is(2));
      assertThat(err.toString(), containsString(option + " is empty: name a file ("));
      assertThat(err.toString(), not(containsString("is a folder")));
    }
  }

  /**
   * An empty value of an option that names no file but something else that cannot be empty: {@code
   * --bootstrap-servers=} reached Kafka's admin client ("You must set either bootstrap.servers or
   * bootstrap.controllers", exit 1), {@code --state-backend=} was called a Flink option on the
   * DirectRunner and "must be filesystem or rocksdb, not ''" on Flink, and {@code
   * --from-savepoint=} was checked against the model's source.
   */
  @Test
  void runRefusesAnEmptyBootstrapServersStateBackendOrSavepoint() throws Exception {
    Path project = project();
    String[][] cases = {
      {"--bootstrap-servers=", "--bootstrap-servers is empty: name the Kafka brokers"},
      {"--state-backend=", "--state-backend is empty: name a state backend"},
      {"--from-savepoint=", "--from-savepoint is empty: name a savepoint"},
    };
    for (String[] c : cases) {
      for (String[] runner : new String[][] {{}, {"--runner", "flink"}}) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        String[] args =
            Stream.concat(Stream.of("run", project.toString(), c[0]), Stream.of(runner))
                .toArray(String[]::new);

        int status = run(args);

        assertThat(String.join(" ", args) + ": " + err, status, is(2));
        assertThat(String.join(" ", args), err.toString(), containsString(c[1]));
        String name = c[0].substring(0, c[0].length() - 1);
        assertThat(err.toString(), containsString("or leave out " + name));
      }
    }
  }

  @Test
  void consumeRefusesAnEmptyBootstrapServers() {
    int status = run("consume", "orders", "--bootstrap-servers=", "--max-wait", "1s");

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString(
            "--bootstrap-servers is empty: name the Kafka brokers (--bootstrap-servers"
                + " HOST:PORT)"));
  }

  @Test
  void anEmptyFlinkMasterSelectOrDatabaseOptionIsRefused() throws Exception {
    Path project = project();
    String[][] cases = {
      {"run", project.toString(), "--runner", "flink", "--flink-master="},
      {"test", project.toString(), "--select="},
      {"run", project.toString(), "--state-backend-storage-path="},
      {"dispatch", project.toString(), "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x", "--name="},
      {
        "dispatch",
        project.toString(),
        "--jdbc-url",
        "jdbc:postgresql://127.0.0.1:1/x",
        "--jdbc-user="
      },
    };
    for (String[] args : cases) {
      out.getBuffer().setLength(0);
      err.getBuffer().setLength(0);
      String option = args[args.length - 1];
      String name = option.substring(0, option.length() - 1);

      int status = run(args);

      assertThat(String.join(" ", args) + ": " + err, status, is(2));
      assertThat(String.join(" ", args), err.toString(), containsString(name + " is empty: name "));
      assertThat(err.toString(), containsString("or leave out " + name));
    }
  }

  @Test
  void anEmptyRequiredOptionIsNotToldToBeLeftOut() throws Exception {
    Path project = project();

    int status = run("effects", "pause", project.toString(), "--model", "m", "--jdbc-url=");

    assertThat(err.toString(), status, is(2));
    assertThat(err.toString(), containsString("--jdbc-url is empty: name a database"));
    assertThat(err.toString(), not(containsString("leave out")));
  }

  private Path project() throws Exception {
    Path copy = dir.resolve("project");
    if (Files.exists(copy)) {
      return copy;
    }
    try (Stream<Path> all = Files.walk(GETTING_STARTED)) {
      for (Path f : (Iterable<Path>) all::iterator) {
        Path to = copy.resolve(GETTING_STARTED.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else if (!GETTING_STARTED.relativize(f).startsWith("target")) {
          Files.copy(f, to);
        }
      }
    }
    return copy;
  }
}
