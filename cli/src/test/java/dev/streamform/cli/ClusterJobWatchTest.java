package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An attached run on a Flink cluster finds its job's id on the cluster's REST API: the first job of
 * its name the cluster did not list before the submission (ADR 0181). A stand-in answers GET
 * /jobs/overview as Flink does.
 */
class ClusterJobWatchTest {
  private HttpServer flink;
  private final AtomicReference<String> overview = new AtomicReference<>();

  @BeforeEach
  void standIn() throws IOException {
    flink = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    flink.createContext(
        "/jobs/overview",
        exchange -> {
          byte[] body = overview.get().getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    flink.createContext(
        "/",
        exchange -> {
          String answer = paths.get(exchange.getRequestURI().getPath());
          byte[] body = answer == null ? new byte[0] : answer.getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(
              answer == null ? 404 : 200, answer == null ? -1 : body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    flink.start();
  }

  private final java.util.Map<String, String> paths =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * A job as Flink's {@code GET /jobs/<id>} gives it: each vertex with its summary status and its
   * subtasks' counts per state ({@code "RUNNING:1,CREATED:1"}).
   */
  private static String job(String state, String... vertexTasks) {
    StringBuilder b =
        new StringBuilder("{\"jid\":\"b1\",\"state\":\"" + state + "\",\"vertices\":[");
    for (int i = 0; i < vertexTasks.length; i++) {
      StringBuilder tasks = new StringBuilder();
      String summary = "CREATED";
      for (String count : vertexTasks[i].split(",")) {
        String[] kv = count.split(":");
        tasks.append(tasks.length() == 0 ? "" : ",").append("\"" + kv[0] + "\":" + kv[1]);
        if (kv[0].equals("RUNNING") && !kv[1].equals("0")) {
          summary = "RUNNING"; // as Flink summarises: running once one subtask runs
        }
      }
      b.append(i == 0 ? "" : ",")
          .append("{\"status\":\"" + summary + "\",\"tasks\":{" + tasks + "}}");
    }
    return b.append("]}").toString();
  }

  private static final String NO_SLOTS =
      "{\"root-exception\":\"old\",\"exceptionHistory\":{\"entries\":[{\"exceptionName\":"
          + "\"org.apache.flink.runtime.JobException\",\"stacktrace\":\"org.apache.flink.runtime.JobException:"
          + " Recovery is suppressed by NoRestartBackoffTimeStrategy\\n"
          + "\\tat x.y(Z.java:1)\\n"
          + "Caused by: java.util.concurrent.CompletionException: wrapped\\n"
          + "Caused by: org.apache.flink.runtime.jobmanager.scheduler.NoResourceAvailableException:"
          + " Could not acquire the minimum required resources.\\n"
          + "\\t... 3 more\"}]}}";

  /**
   * A detached run waits until its job's tasks all run, and names the cause when the job fails
   * instead (found by a read-only audit of the operator path: with the TaskManager stopped, run
   * --detach exited 0 and the job failed seconds later).
   */
  @Test
  void aJustSubmittedJobIsWaitedForUntilItsTasksRunOrItFails() throws Exception {
    paths.put("/jobs/b1", job("RUNNING", "RUNNING:2", "RUNNING:1,DEPLOYING:1"));
    CompletableFuture<ClusterJobWatch.Settled> settled =
        CompletableFuture.supplyAsync(
            () -> ClusterJobWatch.settle(cluster(), "b1", Duration.ofSeconds(20)));
    Thread.sleep(600);
    assertThat(settled.isDone(), is(false)); // a subtask is still being deployed
    paths.put("/jobs/b1", job("RUNNING", "RUNNING:2", "RUNNING:1,FINISHED:1"));
    assertThat(
        settled.get(10, TimeUnit.SECONDS).outcome(), is(ClusterJobWatch.Settled.Outcome.RUNNING));

    paths.put("/jobs/b1", job("FAILED", "FAILED:2", "CANCELED:2"));
    paths.put("/jobs/b1/exceptions", NO_SLOTS);
    ClusterJobWatch.Settled failed = ClusterJobWatch.settle(cluster(), "b1", Duration.ofSeconds(5));
    assertThat(failed.outcome(), is(ClusterJobWatch.Settled.Outcome.FAILED));
    assertThat(
        failed.cause(),
        is("NoResourceAvailableException: Could not acquire the minimum required resources."));

    paths.put("/jobs/b1", job("RUNNING", "SCHEDULED:2", "CREATED:2"));
    paths.put("/overview", "{\"taskmanagers\":0,\"slots-total\":0,\"slots-available\":0}");
    ClusterJobWatch.Settled noSlots =
        ClusterJobWatch.settle(cluster(), "b1", Duration.ofMillis(600));
    assertThat(noSlots.outcome(), is(ClusterJobWatch.Settled.Outcome.NOT_YET));
    assertThat(
        noSlots.cause(),
        is(
            "4 of its 4 tasks wait for a task slot; the cluster has 0 TaskManagers and 0 free of"
                + " 0 task slots"));

    paths.put("/jobs/b1", job("RESTARTING", "CANCELED:2"));
    ClusterJobWatch.Settled restarting =
        ClusterJobWatch.settle(cluster(), "b1", Duration.ofMillis(600));
    assertThat(restarting.outcome(), is(ClusterJobWatch.Settled.Outcome.NOT_YET));
    assertThat(restarting.state(), is("RESTARTING"));
    assertThat(restarting.cause(), containsString("NoResourceAvailableException"));

    flink.stop(0);
    assertThat(
        ClusterJobWatch.settle(cluster(), "b1", Duration.ofMillis(300)).outcome(),
        is(ClusterJobWatch.Settled.Outcome.UNKNOWN));
  }

  /**
   * An address that never answers as Flink's REST API does (it is gone, or it speaks https) is not
   * waited on for the whole patience: the run returns after {@link ClusterJobWatch#SILENCE}, and
   * says what the request met.
   */
  @Test
  void aClusterThatNeverAnswersIsNotWaitedOnForTheWholePatience() {
    flink.stop(0);
    long start = System.nanoTime();
    ClusterJobWatch.Settled silent =
        ClusterJobWatch.settle(cluster(), "b1", Duration.ofSeconds(30));
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(silent.outcome(), is(ClusterJobWatch.Settled.Outcome.UNKNOWN));
    assertThat(took.compareTo(Duration.ofSeconds(15)) < 0, is(true));
    assertThat(silent.cause(), containsString("GET http://" + cluster() + "/jobs/b1: "));
  }

  /** A cluster that answers, if only 404 for a job it has not registered yet, is waited on. */
  @Test
  void aClusterThatAnswersNotFoundIsWaitedOn() {
    long start = System.nanoTime();
    ClusterJobWatch.Settled unknown =
        ClusterJobWatch.settle(cluster(), "not-yet", Duration.ofSeconds(4));
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took.compareTo(Duration.ofMillis(3_900)) > 0, is(true));
    assertThat(unknown.outcome(), is(ClusterJobWatch.Settled.Outcome.UNKNOWN));
  }

  @AfterEach
  void stop() {
    flink.stop(0);
  }

  private String cluster() {
    return "127.0.0.1:" + flink.getAddress().getPort();
  }

  private static String jobs(String... idAndName) {
    StringBuilder b = new StringBuilder("{\"jobs\":[");
    for (int i = 0; i < idAndName.length; i += 2) {
      b.append(i == 0 ? "" : ",")
          .append("{\"jid\":\"")
          .append(idAndName[i])
          .append("\",\"name\":\"")
          .append(idAndName[i + 1])
          .append("\",\"state\":\"RUNNING\"}");
    }
    return b.append("]}").toString();
  }

  @Test
  void theJobsOfANameThatStillRunAreListed() {
    overview.set(
        "{\"jobs\":[{\"jid\":\"a0\",\"name\":\"streamform-orders\",\"state\":\"RUNNING\"},"
            + "{\"jid\":\"b1\",\"name\":\"streamform-orders\",\"state\":\"CANCELED\"},"
            + "{\"jid\":\"c2\",\"name\":\"streamform-other\",\"state\":\"RUNNING\"},"
            + "{\"jid\":\"d3\",\"name\":\"streamform-orders\",\"state\":\"RESTARTING\"}]}");
    assertThat(
        ClusterJobWatch.running(cluster(), "streamform-orders"), is(java.util.List.of("a0", "d3")));
  }

  @Test
  void theNewJobOfTheRunsNameIsItsJob() throws Exception {
    // an earlier run of the same model still runs, and another model's job is new too
    overview.set(jobs("a0", "streamform-orders"));
    CompletableFuture<String> told = new CompletableFuture<>();
    try (ClusterJobWatch watch =
        ClusterJobWatch.start(
            cluster(), "streamform-orders", Duration.ofSeconds(30), told::complete)) {
      assertThat(watch.jobId(), is(Optional.empty()));
      overview.set(
          jobs("a0", "streamform-orders", "c2", "streamform-other", "b1", "streamform-orders"));
      assertThat(told.get(10, TimeUnit.SECONDS), is("b1"));
      assertThat(watch.jobId(), is(Optional.of("b1")));
    }
  }

  @Test
  void aClusterThatDoesNotAnswerLeavesTheIdUnknown() throws Exception {
    flink.stop(0);
    CompletableFuture<String> told = new CompletableFuture<>();
    try (ClusterJobWatch watch =
        ClusterJobWatch.start(
            cluster(), "streamform-orders", Duration.ofSeconds(1), told::complete)) {
      Thread.sleep(1_500);
      assertThat(watch.jobId(), is(Optional.empty()));
      assertThat(told.isDone(), is(false));
    }
  }

  @Test
  void aDetachedRunWhoseJobFailsRightAwayExitsOneWithTheCause() {
    java.io.StringWriter err = new java.io.StringWriter();
    ClusterJobWatch.Settled failed =
        new ClusterJobWatch.Settled(
            ClusterJobWatch.Settled.Outcome.FAILED,
            "FAILED",
            "NoResourceAvailableException: Could not acquire the minimum required resources.");
    assertThat(
        RunCommand.detachedJob(failed, "b1", "127.0.0.1:8081", new java.io.PrintWriter(err, true)),
        is(1));
    assertThat(
        err.toString(),
        containsString(
            "streamform run: job b1 failed on the Flink cluster at 127.0.0.1:8081 right after it"
                + " was submitted: NoResourceAvailableException: Could not acquire the minimum"
                + " required resources. — the cluster has too few free task slots for the job's"
                + " parallelism: start a TaskManager (runners-config/bin/flink start-taskmanager)"
                + " or run with a lower --parallelism"));

    err.getBuffer().setLength(0);
    ClusterJobWatch.Settled waiting =
        new ClusterJobWatch.Settled(ClusterJobWatch.Settled.Outcome.NOT_YET, "RUNNING", "");
    assertThat(
        RunCommand.detachedJob(waiting, "b1", "127.0.0.1:8081", new java.io.PrintWriter(err, true)),
        is(0));
    assertThat(
        err.toString(),
        containsString(
            "note: job b1 was submitted but its tasks do not all run after 30 s (job RUNNING): see"
                + " http://127.0.0.1:8081/#/job/running/b1/overview"));
  }

  @Test
  void aKafkaJobOnAClusterWithoutCheckpointsIsToldWhatItCannotDo() {
    assertThat(
        RunCommand.checkpointingNote("127.0.0.1:8081", -1L, "orders"),
        is(
            Optional.of(
                "streamform run: note: this job takes no checkpoints on the Flink cluster at"
                    + " 127.0.0.1:8081 (no positive --checkpointing-interval, given or in a"
                    + " profile): it cannot be stopped with a savepoint (Flink answers 'Not all"
                    + " required tasks are currently running'), and if it fails there is no"
                    + " checkpoint to restart from, so orders is read from its earliest offsets"
                    + " again; give --checkpointing-interval 10000 (or --profile flink-cluster,"
                    + " which sets it)")));
    assertThat(
        RunCommand.checkpointingNote("127.0.0.1:8081", 5000L, "orders"), is(Optional.empty()));
    assertThat(RunCommand.checkpointingNote(null, -1L, "orders"), is(Optional.empty()));
  }

  @Test
  void theLinesNameTheJobAndHowToStopIt() {
    assertThat(
        RunCommand.submittedLine("127.0.0.1:8081", "b1"),
        is(
            "streamform run: job b1 runs on the Flink cluster at 127.0.0.1:8081; this command"
                + " waits for it to end and does not cancel it: stop it there (curl -X PATCH"
                + " 'http://127.0.0.1:8081/jobs/b1?mode=cancel'; to stop it with a savepoint,"
                + " docs/guides/kafka.md)"));
    assertThat(
        RunCommand.kafkaRunInterrupted("127.0.0.1:8081", "b1", "orders", "o", true, "k:9092"),
        containsString("job b1 on the Flink cluster at 127.0.0.1:8081 is not cancelled by this"));
    // an interrupted run with a revision sink names the conflicts it refused (none: nothing)
    String verify = "streamform ledger verify p --model m";
    assertThat(RunCommand.refusedLine(0, false, verify), is(""));
    assertThat(
        RunCommand.refusedLine(2, true, verify),
        is(
            "; the revision ledger refused 2 revisions of this run so far (streamform ledger"
                + " verify p --model m lists them)"));
    assertThat(
        RunCommand.refusedLine(1, false, verify),
        containsString("refused 1 revision of this run (streamform"));
    // a database that stayed away: the give-up's own message, not its last refusal's
    dev.streamform.sink.DatabaseRetry.GaveUp gaveUp =
        org.junit.jupiter.api.Assertions.assertThrows(
            dev.streamform.sink.DatabaseRetry.GaveUp.class,
            () ->
                new dev.streamform.sink.DatabaseRetry("db-of-this-test", Duration.ZERO)
                    .call(
                        "writing",
                        () -> {
                          throw new java.sql.SQLException("Connection refused", "08001");
                        }));
    RuntimeException failed =
        new org.apache.beam.sdk.Pipeline.PipelineExecutionException(new RuntimeException(gaveUp));
    assertThat(
        RunCommand.gaveUpOr(failed, "Connection refused"),
        containsString(
            "gave up after retrying for 0 ms: the database db-of-this-test has been unavailable"));
    assertThat(RunCommand.gaveUpOr(new RuntimeException("x"), "other"), is("other"));
  }

  /** A job cancelled on its cluster ended as told: not said as a failure (ADR 0181). */
  @Test
  void aJobCancelledOnTheClusterIsNoFailure() {
    RuntimeException cancelled =
        new RuntimeException(
            "Pipeline execution failed",
            new IllegalStateException(
                "Job failed",
                new org.apache.flink.runtime.client.JobCancellationException(
                    new org.apache.flink.api.common.JobID(), "Job was cancelled.", null)));
    assertThat(RunCommand.cancelled(cancelled), is(true));
    assertThat(
        RunCommand.cancelled(new RuntimeException("Pipeline execution failed", new IOException())),
        is(false));
  }
}
