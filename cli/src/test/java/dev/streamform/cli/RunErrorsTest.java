package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The errors of a run that cannot start or reach a server say which and what to do: the server it
 * connects to (not PostgreSQL when it uses none), an --output that cannot be a folder.
 */
class RunErrorsTest {

  private static final Path GETTING_STARTED = Path.of("../examples/getting-started");

  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  /** A local port nobody listens on. */
  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** The exception a refused connection gives, as wrapped by a runner. */
  private static RuntimeException refused(int port) throws IOException {
    ConnectException e =
        assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", port).close());
    return new RuntimeException("Pipeline execution failed", new IllegalStateException(e));
  }

  @Test
  void aRefusedConnectionOfARunOnAFlinkClusterNamesTheClusterNotPostgres() throws Exception {
    int port = closedPort();
    String line =
        RunCommand.failedLine(
            refused(port), new RefusedConnection.Endpoints("127.0.0.1:" + port, null, null));

    assertThat(line, not(containsString("PostgreSQL")));
    assertThat(
        line,
        containsString(
            "is the Flink cluster at 127.0.0.1:"
                + port
                + " running? Start a local one with runners-config/bin/flink start, or give the"
                + " right --flink-master"));
  }

  @Test
  void aRefusedConnectionOfARunWithOnlyADatabaseNamesPostgres() throws Exception {
    int port = closedPort();
    String line =
        RunCommand.failedLine(
            refused(port), RefusedConnection.Endpoints.database("jdbc:postgresql://db/x"));

    assertThat(
        line,
        containsString(
            "is PostgreSQL running at jdbc:postgresql://db/x? Start a local one with"
                + " runners-config/bin/postgres start, or give the right --jdbc-url"));
  }

  @Test
  void theDriverInTheChainSaysPostgresRefusedWhenTheRunAlsoUsesAFlinkCluster() throws Exception {
    int port = closedPort();
    String url = "jdbc:postgresql://127.0.0.1:" + port + "/x";
    SQLException e =
        assertThrows(SQLException.class, () -> DriverManager.getConnection(url, "u", "p").close());

    String line =
        RunCommand.failedLine(
            new RuntimeException(e), new RefusedConnection.Endpoints("flink:8081", url, null));

    assertThat(line, containsString("is PostgreSQL running at " + url + "?"));
    assertThat(line, not(containsString("Flink cluster")));
  }

  @Test
  void aRefusedBrokerIsNamedWithItsFix() throws Exception {
    int port = closedPort();
    String line =
        RunCommand.failedLine(
            refused(port), new RefusedConnection.Endpoints(null, null, "127.0.0.1:" + port));

    assertThat(
        line,
        containsString(
            "is the Kafka broker at 127.0.0.1:"
                + port
                + " running? Start a local one with runners-config/bin/kafka start, or give the"
                + " right --bootstrap-servers"));
  }

  @Test
  void aRefusedConnectionOfARunThatConnectsToNothingGivesNoHint() throws Exception {
    String line = RunCommand.failedLine(refused(closedPort()), RefusedConnection.Endpoints.NONE);

    assertThat(line, is("Connection refused"));
  }

  @Test
  void aTestOnAFlinkClusterGivesARefusedConnectionTheHintOfARun() throws Exception {
    int port = closedPort();
    RunnerChoice cluster = RunnerChoice.flinkCluster("127.0.0.1:" + port, 1, List.of());

    Optional<String> hint = TestCommand.hints(cluster).apply(refused(port));

    assertThat(
        hint.orElse("no hint"),
        is(
            "is the Flink cluster at 127.0.0.1:"
                + port
                + " running? Start a local one with runners-config/bin/flink start, or give the"
                + " right --flink-master"));
    assertThat(
        RunCommand.failedLine(refused(port), RunCommand.endpoints(cluster, null, null, null)),
        is("Connection refused — " + hint.get()));
    assertThat(TestCommand.hints(RunnerChoice.direct()).apply(refused(port)), is(Optional.empty()));
  }

  /**
   * A Flink cluster nobody listens at is found out before anything is built or run: the Flink
   * client would retry each fixture's submission for about a minute, after building the job jar.
   */
  @Test
  void aFlinkClusterNobodyListensAtIsSaidBeforeAnyFixtureOrRun() throws Exception {
    int port = closedPort();
    String master = "127.0.0.1:" + port;
    Path jar = Files.writeString(dir.resolve("job.jar"), ""); // so no job jar is built
    String expected =
        "Connection refused by "
            + master
            + " — is the Flink cluster at "
            + master
            + " running? Start a local one with runners-config/bin/flink start, or give the right"
            + " --flink-master";

    int test =
        assertTimeoutPreemptively(
            Duration.ofSeconds(30),
            () ->
                run(
                    "test",
                    "--runner",
                    "flink",
                    "--flink-master",
                    master,
                    "--job-jar",
                    jar.toString(),
                    GETTING_STARTED.toString()));

    assertThat(test, is(1));
    assertThat(err.toString(), containsString("streamform test: " + expected));
    assertThat(out.toString(), not(containsString("FAIL")));

    err.getBuffer().setLength(0);
    int runStatus =
        assertTimeoutPreemptively(
            Duration.ofSeconds(30),
            () ->
                run(
                    "run",
                    GETTING_STARTED.toString(),
                    "--runner",
                    "flink",
                    "--flink-master",
                    master,
                    "--job-jar",
                    jar.toString(),
                    "--output",
                    dir.resolve("out").toString()));

    assertThat(runStatus, is(1));
    assertThat(err.toString(), containsString("streamform run: " + expected));
    assertThat(err.toString(), not(containsString("internal error")));
  }

  /**
   * A port that accepts connections but is not Flink's REST API (a Kafka broker's, which closes the
   * connection on an HTTP request) is said at once, naming what answered and the fix: the
   * submission used to wait 84 s for "Channel became inactive".
   */
  @Test
  void aKafkaPortGivenAsTheFlinkMasterIsSaidAtOnceWithTheFix() throws Exception {
    Path jar = Files.writeString(dir.resolve("job.jar"), ""); // so no job jar is built
    try (ServerSocket kafkaLike = new ServerSocket(0)) {
      Thread broker =
          new Thread(
              () -> {
                // as a Kafka broker does with "GET ...": reads a size it refuses, and closes
                while (!kafkaLike.isClosed()) {
                  try (Socket s = kafkaLike.accept()) {
                    s.getInputStream().read(new byte[4]);
                  } catch (IOException e) {
                    // closed at the test's end
                  }
                }
              });
      broker.setDaemon(true);
      broker.start();
      String master = "127.0.0.1:" + kafkaLike.getLocalPort();

      int status =
          assertTimeoutPreemptively(
              Duration.ofSeconds(20),
              () ->
                  run(
                      "run",
                      GETTING_STARTED.toString(),
                      "--runner",
                      "flink",
                      "--flink-master",
                      master,
                      "--job-jar",
                      jar.toString(),
                      "--output",
                      dir.resolve("out").toString()));

      assertThat(err.toString(), status, is(1));
      assertThat(
          err.toString(),
          containsString(
              "streamform run: "
                  + master
                  + " is not a Flink cluster's REST API: it closed the connection without an HTTP"
                  + " answer (a Kafka broker does that)"));
      assertThat(
          err.toString(),
          containsString(
              "give the right --flink-master: the JobManager's REST address (rest.port, 8081"
                  + " by default)"));
    }
  }

  /** An HTTP server that is not Flink (a 404 page) is not taken for a Flink cluster either. */
  @Test
  void anHttpServerThatIsNotFlinkIsNotTakenForAFlinkCluster() throws Exception {
    com.sun.net.httpserver.HttpServer web =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    web.createContext(
        "/",
        exchange -> {
          byte[] page = "<html>not found</html>".getBytes(java.nio.charset.StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Server", "nginx");
          exchange.sendResponseHeaders(404, page.length);
          exchange.getResponseBody().write(page);
          exchange.close();
        });
    web.start();
    try {
      String master = "127.0.0.1:" + web.getAddress().getPort();
      IllegalStateException e =
          assertThrows(
              IllegalStateException.class, () -> RefusedConnection.requireFlinkCluster(master));
      assertThat(
          e.getMessage(),
          containsString(
              master
                  + " is not a Flink cluster's REST API: GET /config answered HTTP 404 (server"
                  + " nginx), not Flink's configuration"));
    } finally {
      web.stop(0);
    }
  }

  /** Flink's REST API answers GET /config with its version: that passes the check. */
  @Test
  void aFlinkRestApiPassesTheCheck() throws Exception {
    com.sun.net.httpserver.HttpServer flink =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    flink.createContext(
        "/config",
        exchange -> {
          // as Flink 1.19's JobManager answers it (DashboardConfiguration)
          byte[] body =
              ("{\"refresh-interval\":3000,\"timezone-name\":\"Coordinated Universal Time\","
                      + "\"timezone-offset\":0,\"flink-version\":\"1.19.0\","
                      + "\"flink-revision\":\"eaffd22 @ 2024-03-04T09:04:41+01:00\","
                      + "\"features\":{\"web-submit\":false,\"web-cancel\":false}}")
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json; charset=UTF-8");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    flink.start();
    try {
      RefusedConnection.requireFlinkCluster("127.0.0.1:" + flink.getAddress().getPort());
      RefusedConnection.requireFlinkCluster("http://127.0.0.1:" + flink.getAddress().getPort());
    } finally {
      flink.stop(0);
    }
  }

  @Test
  void anOutputThatIsAFileIsRefusedBeforeTheJobWithTheFix() throws Exception {
    Path file = Files.writeString(dir.resolve("afile"), "");

    int status = run("run", GETTING_STARTED.toString(), "--output", file.toString());

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString(
            "--output "
                + file
                + " is a file, not a folder: name a folder (it is created when missing)"));
    assertThat(err.toString(), not(containsString("streamform run: model")));
  }

  /**
   * A folder in the output folder where the run writes one of its files: refused before the job,
   * naming it, not after the job with the run's own temporary path.
   */
  @Test
  void aFolderWhereTheRunWritesAFileIsRefusedBeforeTheJob() throws Exception {
    Path out = dir.resolve("out");
    Path inTheWay = Files.createDirectories(out.resolve("hourly_revenue.late.jsonl"));

    int status = run("run", GETTING_STARTED.toString(), "--output", out.toString());

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString(
            "--output "
                + out
                + " holds a folder "
                + inTheWay.getFileName()
                + " where the run writes a file: remove or rename that folder, or name another"
                + " folder"));
    assertThat(err.toString(), not(containsString("streamform run: model")));
    assertThat(err.toString(), not(containsString(".parts-")));
  }

  @Test
  void anOutputThatCannotBeCreatedSaysWhyBeforeTheJob() throws Exception {
    Files.writeString(dir.resolve("afile"), "");
    Path under = dir.resolve("afile").resolve("out");

    int status = run("run", GETTING_STARTED.toString(), "--output", under.toString());

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString(
            "--output "
                + under
                + " cannot be created: "
                + dir.resolve("afile")
                + " is a file, not a folder"));
    assertThat(err.toString(), not(containsString("streamform run: model")));
  }

  @Test
  void anOutputTheFileSystemWillNotCreateSaysSoBeforeTheJob() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self")), "a Linux /proc");

    int status = run("run", GETTING_STARTED.toString(), "--output", "/proc/x");

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString(
            "--output /proc/x cannot be created: /proc: the file system refused a new folder"
                + " there: name another folder"));
  }

  /** A job that failed on a file: the file and why in plain words, never the exception's class. */
  @Test
  void aJobThatFailedOnAFileSaysWhyInPlainWords() {
    RuntimeException failed =
        new RuntimeException(
            "Pipeline execution failed",
            new java.io.UncheckedIOException(
                new java.nio.file.AccessDeniedException("/p/payments.jsonl")));

    String line = RunCommand.failedLine(failed, new RefusedConnection.Endpoints(null, null, null));

    assertThat(line, is("/p/payments.jsonl: permission denied"));
  }

  /** chmod 000 does not stop root: a folder where the file belongs is refused for root too. */
  @ParameterizedTest
  @ValueSource(strings = {"--report", "--junit-xml"})
  void aReportOrJunitXmlThatIsAFolderIsRefusedBeforeAnyFixtureRuns(String option) throws Exception {
    Path folder = Files.createDirectories(dir.resolve("rdir"));

    int status = run("test", GETTING_STARTED.toString(), option, folder.toString());

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString(
            option
                + " "
                + folder
                + " is a folder, not a file: name a file (it is created, or"
                + " replaced)"));
    assertThat(out.toString(), not(containsString("passed")));
    assertThat(err.toString(), not(containsString("Exception")));
  }

  @Test
  void aReportInAFolderTheFileSystemWillNotCreateIsRefusedBeforeAnyFixtureRuns() {
    assumeTrue(Files.isDirectory(Path.of("/proc/self")), "a Linux /proc");

    int status = run("test", GETTING_STARTED.toString(), "--report", "/proc/nope/r.html");

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString(
            "--report /proc/nope/r.html: its folder /proc/nope cannot be created: /proc: the file"
                + " system refused a new folder there: name another folder"));
    assertThat(out.toString(), not(containsString("passed")));
    assertThat(err.toString(), not(containsString("internal error")));
  }

  /**
   * The audit's case: a file that exists in a folder where the file system makes no new file (the
   * report is written beside it, then put in its place). It said the file does not exist.
   */
  @ParameterizedTest
  @ValueSource(strings = {"--report", "--junit-xml"})
  void aReportOrJunitXmlInAFolderThatTakesNoNewFileSaysSo(String option) {
    assumeTrue(Files.isRegularFile(Path.of("/proc/version")), "a Linux /proc");

    int status = run("test", GETTING_STARTED.toString(), option, "/proc/version");

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString(
            option
                + " /proc/version cannot be written: /proc: the file system refused a new file"
                + " there (one is written beside it, then put in its place): name a file in a"
                + " folder you can write to"));
    assertThat(err.toString(), not(containsString("does not exist")));
    assertThat(out.toString(), not(containsString("passed")));
  }
}
