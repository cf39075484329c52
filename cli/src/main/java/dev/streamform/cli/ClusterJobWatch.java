package dev.streamform.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The id of the job an attached run submits to a Flink cluster. Beam's Flink runner blocks in an
 * attached submission until the job ends and keeps the id to itself, so the cluster's REST API is
 * asked instead ({@code GET /jobs/overview}): the jobs it lists before the submission are noted,
 * and the first job of the run's name that was not among them is this run's (docs/decisions/0181).
 * A cluster that does not answer leaves the id unknown; the run goes on all the same.
 */
final class ClusterJobWatch implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(2);

  private final String base;
  private final String jobName;
  private final Set<String> before;
  private final AtomicReference<String> found = new AtomicReference<>();
  private final Thread thread;

  private ClusterJobWatch(
      String base, String jobName, Set<String> before, Duration patience, Consumer<String> tell) {
    this.base = base;
    this.jobName = jobName;
    this.before = before;
    this.thread =
        new Thread(
            () -> {
              long deadline = System.nanoTime() + patience.toNanos();
              while (System.nanoTime() < deadline) {
                Optional<String> id = newJob();
                if (id.isPresent()) {
                  found.set(id.get());
                  tell.accept(id.get());
                  return;
                }
                try {
                  Thread.sleep(500);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "streamform-cluster-job-watch");
    thread.setDaemon(true);
  }

  /**
   * The base URL of the REST API of the cluster at {@code cluster} ({@code HOST:PORT} or a URL, as
   * {@code --flink-master} takes it), without a trailing slash.
   */
  static String restBase(String cluster) {
    return (cluster.contains("://") ? cluster : "http://" + cluster).replaceAll("/+$", "");
  }

  /**
   * Notes the jobs the cluster at {@code cluster} ({@code HOST:PORT} or a URL, as {@code
   * --flink-master} takes it) lists now, then, until {@code patience} has passed, asks every half
   * second for a new job named {@code jobName} and hands its id to {@code tell} once.
   */
  static ClusterJobWatch start(
      String cluster, String jobName, Duration patience, Consumer<String> tell) {
    String base = restBase(cluster);
    Set<String> before = new HashSet<>();
    jobs(base).ifPresent(list -> list.forEach(j -> before.add(j.path("jid").asText())));
    ClusterJobWatch watch = new ClusterJobWatch(base, jobName, before, patience, tell);
    watch.thread.start();
    return watch;
  }

  /**
   * The ids of the jobs named {@code jobName} the cluster at {@code cluster} lists as not yet ended
   * (neither finished, cancelled nor failed); empty when none, or when the cluster does not say.
   */
  static java.util.List<String> running(String cluster, String jobName) {
    java.util.List<String> ids = new java.util.ArrayList<>();
    jobs(restBase(cluster))
        .ifPresent(
            list ->
                list.forEach(
                    j -> {
                      String state = j.path("state").asText("");
                      if (jobName.equals(j.path("name").asText(null))
                          && !Set.of("FINISHED", "CANCELED", "FAILED").contains(state)) {
                        ids.add(j.path("jid").asText());
                      }
                    }));
    return ids;
  }

  /** The id once found. */
  Optional<String> jobId() {
    return Optional.ofNullable(found.get());
  }

  private Optional<String> newJob() {
    return jobs(base)
        .flatMap(
            list -> {
              for (JsonNode j : list) {
                String id = j.path("jid").asText("");
                if (!id.isEmpty()
                    && !before.contains(id)
                    && jobName.equals(j.path("name").asText(null))) {
                  return Optional.of(id);
                }
              }
              return Optional.empty();
            });
  }

  /** The {@code jobs} of {@code GET /jobs/overview}; empty when the cluster does not say. */
  private static Optional<JsonNode> jobs(String base) {
    try {
      HttpClient client =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(ASK_TIMEOUT)
              .build();
      HttpResponse<String> response =
          client.send(
              HttpRequest.newBuilder(URI.create(base + "/jobs/overview"))
                  .timeout(ASK_TIMEOUT)
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        return Optional.empty();
      }
      JsonNode jobs = JSON.readTree(response.body()).path("jobs");
      return jobs.isArray() ? Optional.of(jobs) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  @Override
  public void close() {
    thread.interrupt();
  }
}
