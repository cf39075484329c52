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
    flink.start();
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
