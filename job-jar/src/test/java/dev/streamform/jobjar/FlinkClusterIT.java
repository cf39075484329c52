package dev.streamform.jobjar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.cli.Streamform;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.runners.postgres.LocalPostgres;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.FixtureSuite;
import dev.streamform.teststreams.fixture.RunnerChoice;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real standalone Flink cluster, started with {@code runners-config/bin/flink start}: the seed
 * fixtures, submitted with the shaded job jar at parallelism 2, give the DirectRunner's outcomes.
 * The cluster gets free ports and its own configuration and state folders, so a developer's cluster
 * on 127.0.0.1:8081 is neither hit nor stopped; it is stopped by its pid files afterwards, whatever
 * happened.
 */
class FlinkClusterIT {
  private static final Path HOME = Path.of(System.getProperty("streamform.home", ".."));
  private static final Path FLINK = HOME.resolve("runners-config/bin/flink");
  private static final Path SEED = HOME.resolve("test-streams/fixtures/time");
  private static final Path JOB_JAR = Path.of(System.getProperty("streamform.job.jar"));
  private static final int PARALLELISM = 2;

  @TempDir static Path work;
  private static String master;

  @BeforeAll
  static void startCluster() throws Exception {
    int restPort = LocalPostgres.freePort();
    int rpcPort = LocalPostgres.freePort();
    while (rpcPort == restPort) {
      rpcPort = LocalPostgres.freePort();
    }
    Path conf = Files.createDirectories(work.resolve("conf"));
    String config =
        Files.readString(HOME.resolve("runners-config/flink/conf/config.yaml"))
            .replaceAll("(?m)^rest\\.port:.*$", "rest.port: " + restPort)
            .replaceAll("(?m)^jobmanager\\.rpc\\.port:.*$", "jobmanager.rpc.port: " + rpcPort);
    Files.writeString(conf.resolve("config.yaml"), config);
    master = "127.0.0.1:" + restPort;
    flink("start", 150);
  }

  @AfterAll
  static void stopCluster() throws Exception {
    flink("stop", 90);
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void seedFixturesGiveTheDirectRunnersOutcomesOnTheCluster() throws Exception {
    List<FixtureRunner.Case> cases = new ArrayList<>();
    for (Path dir : FixtureSuite.projectsAt(SEED)) {
      Project project = Project.load(dir);
      for (Path file : Fixture.filesOf(project)) {
        Fixture fixture = Fixture.load(project, file);
        cases.add(FixtureRunner.Case.of(DeclaredModel.of(project, fixture.model()), fixture));
      }
    }
    assertEquals(9, cases.size(), "the seed's four fixtures and the five windowed ones");
    // all in one job: one submission instead of nine
    RunnerChoice cluster =
        RunnerChoice.flinkCluster(master, PARALLELISM, List.of(JOB_JAR.toString()));
    List<FixtureOutcome> onCluster = FixtureRunner.on(cluster).runTogether(cases);
    FixtureRunner direct = FixtureRunner.on(RunnerChoice.direct());
    for (int i = 0; i < cases.size(); i++) {
      assertEquals(
          direct.runTogether(List.of(cases.get(i))).get(0).canonical(),
          onCluster.get(i).canonical(),
          cases.get(i).fixture().file() + " on " + cluster.describe());
    }
    assertEveryJobHasItsPlan();
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void streamformTestSubmitsToTheClusterWithTheFlinkClusterProfile() throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status =
        Streamform.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "test",
            SEED.resolve("late-event").toString(),
            "--profile",
            "flink-cluster",
            "--flink-master",
            master,
            "--job-jar",
            JOB_JAR.toString());
    assertEquals(0, status, out + "\n" + err);
    assertTrue(
        out.toString()
            .endsWith("1 fixture on flink " + master + " parallelism 2: 1 passed, 0 failed\n"),
        out.toString());
    assertEveryJobHasItsPlan();
  }

  /**
   * The dashboard draws a job from its plan ({@code GET /jobs/:id/plan}); the JobManager builds it
   * with the cluster's own libraries, so a mismatch on the cluster's class path (commons-text
   * needing a newer commons-lang3 than Flink's) leaves every job without one, and only a warning in
   * the JobManager's log says so.
   */
  private static void assertEveryJobHasItsPlan() throws Exception {
    JsonNode jobs = rest("/jobs/overview").path("jobs");
    assertTrue(jobs.size() > 0, "no job on the cluster");
    for (JsonNode job : jobs) {
      String id = job.path("jid").asText();
      JsonNode nodes = rest("/jobs/" + id + "/plan").path("plan").path("nodes");
      assertTrue(
          nodes.isArray() && nodes.size() > 0,
          "job " + id + " (" + job.path("name").asText() + ") has no plan: " + nodes);
    }
  }

  private static JsonNode rest(String path) throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://" + master + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, response.statusCode(), path + ": " + response.body());
    return new ObjectMapper().readTree(response.body());
  }

  /** Runs bin/flink with this test's configuration and state folders; fails on a non-zero exit. */
  private static void flink(String command, int timeoutSeconds) throws Exception {
    Path log = work.resolve("flink-" + command + ".out");
    ProcessBuilder builder =
        new ProcessBuilder(FLINK.toString(), command)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().put("STREAMFORM_FLINK_CONF_DIR", work.resolve("conf").toString());
    builder.environment().put("STREAMFORM_FLINK_STATE_DIR", work.resolve("state").toString());
    Process process = builder.start();
    boolean exited = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
    String output = Files.readString(log, StandardCharsets.UTF_8);
    System.out.print(output);
    if (!exited) {
      process.destroy();
      throw new AssertionError(
          "bin/flink " + command + " took over " + timeoutSeconds + " s:\n" + output);
    }
    assertEquals(0, process.exitValue(), "bin/flink " + command + ":\n" + output);
  }
}
