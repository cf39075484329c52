package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --from-savepoint} compares the plan it would restore into with the plan of the job
 * that wrote the savepoint (its record under target/flink-jobs, or {@code --against}) and refuses,
 * before anything is created or submitted, what {@code plan} would exit 2 on (docs/decisions/0121).
 * No cluster runs here: a stand-in answers the Flink pre-check's GET /config, and the broker's host
 * does not resolve, so a run the check lets through stops at once at Kafka.
 */
class RestoreCheckTest {
  private static final Path ORDERS_KAFKA = Path.of("../end-to-end/src/test/resources/orders-kafka");
  private static final String MODEL = "customer_metrics";
  private static final String JOB = "abcdef0123456789abcdef0123456789";
  private static final String NO_BROKER = "nohost.invalid:9092";

  @TempDir Path dir;

  /** A savepoint's folder, as Flink names it and prints it (a file: URI): it exists. */
  private String savepoint;

  private Path project;
  private Path jar;
  private HttpServer flink;
  private StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();

  @BeforeEach
  void setUp() throws IOException {
    project = dir.resolve("orders-kafka");
    copy(ORDERS_KAFKA, project);
    jar = Files.writeString(dir.resolve("job.jar"), ""); // so no job jar is built
    Path folder =
        Files.createDirectories(dir.resolve("flink-savepoints/savepoint-abcdef-0123456789ab"));
    Files.writeString(folder.resolve("_metadata"), ""); // what makes a folder a savepoint's
    savepoint = "file:" + folder;
    flink = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    flink.createContext(
        "/config",
        exchange -> {
          byte[] body = "{\"flink-version\":\"1.19.0\"}".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    flink.start();
  }

  @AfterEach
  void tearDown() {
    flink.stop(0);
  }

  private int run(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  /** The manifest inspect-plan prints of the project as it is now. */
  private String manifest() {
    assertThat(run("inspect-plan", project.toString(), MODEL), is(0));
    return out.toString();
  }

  /** Records the project's plan as that of job {@link #JOB}, as a detached run does. */
  private void recordPlan() throws IOException {
    Path record = project.resolve("target/flink-jobs").resolve(MODEL).resolve(JOB + ".json");
    Files.createDirectories(record.getParent());
    Files.writeString(record, manifest());
  }

  private String[] restoreArgs(String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                project.toString(),
                "--model",
                MODEL,
                "--runner",
                "flink",
                "--flink-master",
                "127.0.0.1:" + flink.getAddress().getPort(),
                "--job-jar",
                jar.toString(),
                "--parallelism",
                "2",
                "--detach",
                "--from-savepoint",
                savepoint,
                "--bootstrap-servers",
                NO_BROKER));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  private int restore(String... more) {
    return run(restoreArgs(more));
  }

  private void edit(String file, String from, String to) throws IOException {
    Path f = project.resolve(file);
    String text = Files.readString(f);
    assertThat(text, containsString(from));
    Files.writeString(f, text.replace(from, to));
  }

  @Test
  void aChangedWatermarkIsRefusedWithPlansReasonsBeforeAnythingIsCreated() throws IOException {
    recordPlan();
    edit("sources.yml", "watermark: 5m", "watermark: 30m");

    int status = restore();

    String said = err.toString();
    assertThat(said, status, is(2));
    assertThat(
        said,
        containsString(
            "streamform run: the savepoint "
                + savepoint
                + " was written by job "
                + JOB
                + ", whose plan ("
                + project.resolve("target/flink-jobs").resolve(MODEL).resolve(JOB + ".json")
                + ") this one cannot restore into:"));
    assertThat(said, containsString("NEW GENERATION REQUIRED"));
    assertThat(said, containsString("watermark: 5m -> 30m"));
    assertThat(said, containsString("-> do not deploy over the running plan as is"));
    assertThat(
        said,
        containsString(
            "revert the change to restore from the savepoint, or deploy it as a new generation"
                + " started from the log, without --from-savepoint"));
    assertThat(said, not(containsString(NO_BROKER))); // nothing was asked of Kafka
  }

  @Test
  void anAddedAggregateIsRefusedAsAStateMigration() throws IOException {
    recordPlan();
    edit(
        "models/customer_metrics.sql",
        "SUM(amount) AS total_spend",
        "SUM(amount) AS total_spend, MAX(amount) AS biggest");

    int status = restore();

    assertThat(err.toString(), status, is(2));
    assertThat(err.toString(), containsString("STATE MIGRATION REQUIRED"));
    assertThat(err.toString(), containsString("-> do not deploy over the running plan as is"));
    assertThat(err.toString(), not(containsString(NO_BROKER)));
  }

  @Test
  void theSamePlanRestoresAsBefore() throws IOException {
    recordPlan();

    int status = restore();

    // the check lets it through: the run goes on to the broker, which is not there
    assertThat(err.toString(), status, is(1));
    assertThat(err.toString(), containsString(NO_BROKER));
    assertThat(err.toString(), not(containsString("could not be checked")));
    assertThat(err.toString(), not(containsString("do not deploy")));
  }

  /**
   * A second job of the same model beside one that still runs publishes every record again: the run
   * says so before it submits (found by a read-only audit of the operator path).
   */
  @Test
  void aJobOfTheSameNameStillRunningOnTheClusterIsNamed() throws IOException {
    flink.createContext(
        "/jobs/overview",
        exchange -> {
          byte[] body =
              ("{\"jobs\":[{\"jid\":\""
                      + JOB
                      + "\",\"name\":\"streamform-"
                      + MODEL
                      + "\",\"state\":\"RUNNING\"}]}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    List<String> args = new ArrayList<>(List.of(restoreArgs()));
    int at = args.indexOf("--from-savepoint");
    args.remove(at + 1);
    args.remove(at);

    run(args.toArray(String[]::new));

    assertThat(
        err.toString(),
        containsString(
            "streamform run: note: job "
                + JOB
                + " of the same name (streamform-"
                + MODEL
                + ") is still RUNNING on the Flink cluster at 127.0.0.1:"
                + flink.getAddress().getPort()
                + ": a second job of the model publishes every record to its topics again — cancel"
                + " it first (or stop it with a savepoint and run with --from-savepoint)"));
  }

  @Test
  void anExplicitAgainstWinsOverTheRecord() throws IOException {
    recordPlan(); // the record says: the same plan
    edit("sources.yml", "watermark: 5m", "watermark: 30m");
    Path older = Files.writeString(dir.resolve("running.json"), manifest());
    edit("sources.yml", "watermark: 30m", "watermark: 5m");
    // the declarations are the record's again; the manifest given says the job ran 30m

    int status = restore("--against", older.toString());

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString(
            "streamform run: the savepoint "
                + savepoint
                + " was written by the plan of "
                + older
                + " (--against), which this one cannot restore into:"));
    assertThat(err.toString(), containsString("watermark: 30m -> 5m"));
  }

  @Test
  void withoutARecordTheRestoreGoesOnAndSaysHowToCheckIt() {
    int status = restore();

    assertThat(err.toString(), status, is(1)); // the broker: the check did not stop it
    assertThat(
        err.toString(),
        containsString(
            "streamform run: note: the restore from "
                + savepoint
                + " could not be checked against the plan that wrote it: no job whose id starts"
                + " with abcdef was submitted from "
                + project.resolve("target/flink-jobs")));
    assertThat(
        err.toString(), containsString("--against <the manifest saved when it was deployed>"));
    assertThat(err.toString(), containsString(NO_BROKER));
  }

  @Test
  void againstWithoutARestoreIsAUsageError() {
    int status =
        run(
            "run",
            project.toString(),
            "--model",
            MODEL,
            "--against",
            dir.resolve("running.json").toString(),
            "--bootstrap-servers",
            NO_BROKER);

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString(
            "--against names the plan that wrote the savepoint of --from-savepoint; give"
                + " --from-savepoint, or leave out --against"));
  }

  @Test
  void aRecordIsFoundByTheJobIdFlinkNamesTheSavepointFolderBy() throws IOException {
    assertThat(SubmittedPlans.write(project, MODEL, JOB, "{}"), is(java.util.Optional.empty()));
    SubmittedPlans.write(project, MODEL, "fedcba0123456789abcdef0123456789", "{}");
    Path record = SubmittedPlans.record(project, MODEL, JOB);

    for (String location :
        List.of(
            savepoint,
            "/tmp/flink-savepoints/savepoint-abcdef-0123456789ab/",
            "s3://bucket/sp/savepoint-abcdef-0123456789ab/_metadata")) {
      assertThat(
          location,
          SubmittedPlans.find(project, location),
          is(new SubmittedPlans.Lookup.Named("abcdef", List.of(record))));
    }
    assertThat(
        SubmittedPlans.find(project, "/tmp/my-backup"),
        is(new SubmittedPlans.Lookup.NotNamed("my-backup")));
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target);
        }
      }
    }
  }

  /**
   * A savepoint location this machine reads (a path or a file: URI, the cluster at a loopback
   * address) that does not exist is refused before anything is created or submitted: a cluster
   * would have failed the submitted job (ADR 0180). A remote cluster's location is its own.
   */
  @Test
  void aSavepointThatDoesNotExistHereIsRefusedBeforeTheJobIsSubmitted() throws IOException {
    recordPlan();
    Path gone = dir.resolve("flink-savepoints/savepoint-abcdef-fedcba987654");
    for (String location : List.of("file:" + gone, gone.toString(), gone + "/_metadata")) {
      List<String> args = new ArrayList<>(List.of(restoreArgs()));
      args.set(args.indexOf("--from-savepoint") + 1, location);
      int status = run(args.toArray(String[]::new));
      assertThat(err.toString(), status, is(2));
      assertThat(
          err.toString(),
          is(
              "streamform run: --from-savepoint "
                  + location
                  + ": "
                  + (location.endsWith("_metadata") ? gone.resolve("_metadata") : gone)
                  + " does not exist: give the savepoint's location as Flink printed it (a folder"
                  + " savepoint-<the job id's first 6 characters>-…, its \"location\" in the"
                  + " answer to GET /jobs/<job id>/savepoints/<request id>) — see 'streamform run"
                  + " --help'\n"));
    }
    // the one that exists goes on (and stops at the broker that does not resolve)
    assertThat(restore(), is(1));
    assertThat(err.toString(), not(containsString("does not exist")));
  }

  /**
   * Beam's Flink runner hands a savepoint only to a remote environment: the embedded cluster ran
   * the job with empty state from the earliest offsets and published everything again, while the
   * run treated it as a restore. It is refused before anything is created, naming the fix.
   */
  @Test
  void aRestoreOnTheEmbeddedFlinkRunnerIsRefusedBeforeAnythingIsCreated() {
    int status =
        run(
            "run",
            project.toString(),
            "--model",
            MODEL,
            "--runner",
            "flink",
            "--from-savepoint",
            savepoint,
            "--bootstrap-servers",
            NO_BROKER);

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString(
            "streamform run: --from-savepoint "
                + savepoint
                + ": a savepoint is restored only on a Flink cluster, and this run is on the"
                + " embedded Flink runner, which would start with empty state from the earliest"
                + " offsets and publish every record again: add --flink-master HOST:PORT (or"
                + " --profile flink-cluster) with --detach, or leave out --from-savepoint"));
  }

  /**
   * A folder this machine reads that holds no {@code _metadata} is no savepoint or retained
   * checkpoint: refused before the job is submitted, naming the path (a cluster would fail the
   * job).
   */
  @Test
  void aFolderWithoutMetadataIsRefusedAsNoSavepointBeforeTheJobIsSubmitted() throws IOException {
    recordPlan();
    Path empty = Files.createDirectories(dir.resolve("flink-savepoints/savepoint-abcdef-111111"));
    List<String> args = new ArrayList<>(List.of(restoreArgs()));
    args.set(args.indexOf("--from-savepoint") + 1, empty.toString());

    int status = run(args.toArray(String[]::new));

    assertThat(err.toString(), status, is(2));
    assertThat(
        err.toString(),
        containsString(
            "streamform run: --from-savepoint "
                + empty
                + ": "
                + empty
                + " holds no _metadata, so it is no savepoint or retained checkpoint: give the"
                + " savepoint's folder as Flink printed it"));
  }
}
