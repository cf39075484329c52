package dev.streamform.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.core.text.Counts;
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

  /**
   * How long {@link #settle} asks a cluster that has not answered once before it gives up: the
   * cluster that just took the submission answers at once unless the address is not its REST API's
   * as this client speaks it (an https endpoint, a proxy).
   */
  static final Duration SILENCE = Duration.ofSeconds(3);

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

  /**
   * What became of a job just submitted to a cluster, within the patience {@link #settle} had: it
   * runs (every task deployed and running, or it already finished), it failed (with the cause the
   * cluster gives), or it is neither yet (its state, and the last failure if it restarts), or the
   * cluster did not say.
   */
  record Settled(Outcome outcome, String state, String cause) {
    enum Outcome {
      RUNNING,
      FAILED,
      NOT_YET,
      UNKNOWN
    }
  }

  /**
   * Asks the cluster at {@code cluster} every quarter second about job {@code jobId}, until every
   * one of its tasks runs (or the job ended) or {@code patience} has passed: a detached run returns
   * only once its job does run, or says why not (a job submitted to a cluster without free task
   * slots fails seconds after the submission returned).
   */
  static Settled settle(String cluster, String jobId, Duration patience) {
    String base = restBase(cluster);
    long deadline = System.nanoTime() + patience.toNanos();
    long silentUntil = System.nanoTime() + SILENCE.toNanos();
    boolean answered = false;
    Settled last = new Settled(Settled.Outcome.UNKNOWN, "", "");
    while (true) {
      Answer answer = ask(base + "/jobs/" + jobId);
      Optional<JsonNode> job = answer.json();
      // an HTTP answer of any status (a job not registered yet) is an answer: only no connection
      // or no response counts as silence
      answered |= answer.answered();
      if (job.isEmpty() && !answered) {
        last = new Settled(Settled.Outcome.UNKNOWN, "", answer.failure());
        if (System.nanoTime() >= silentUntil) {
          return last; // a cluster that never answered will not start to: no use waiting it out
        }
      }
      if (job.isPresent()) {
        answered = true;
        String state = job.get().path("state").asText("");
        switch (state) {
          case "FAILED", "FAILING" -> {
            return new Settled(Settled.Outcome.FAILED, state, cause(base, jobId));
          }
          case "FINISHED", "CANCELED", "CANCELLING" -> {
            return new Settled(Settled.Outcome.RUNNING, state, "");
          }
          default -> {
            if (state.equals("RUNNING") && allTasksRun(job.get())) {
              return new Settled(Settled.Outcome.RUNNING, state, "");
            }
            last =
                new Settled(
                    Settled.Outcome.NOT_YET,
                    state,
                    state.equals("RESTARTING") ? cause(base, jobId) : waiting(base, job.get()));
          }
        }
      }
      if (System.nanoTime() >= deadline) {
        return last;
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return last;
      }
    }
  }

  /**
   * How many of the job's tasks wait for a task slot, and the slots the cluster has ({@code GET
   * /overview}); empty when none waits.
   */
  private static String waiting(String base, JsonNode job) {
    int waiting = 0;
    int all = 0;
    for (JsonNode v : job.path("vertices")) {
      JsonNode tasks = v.path("tasks");
      if (tasks.isObject()) { // subtasks per state: a vertex's status is only their summary
        for (var state : (Iterable<java.util.Map.Entry<String, JsonNode>>) tasks::fields) {
          all += state.getValue().asInt();
          if (state.getKey().equals("SCHEDULED") || state.getKey().equals("CREATED")) {
            waiting += state.getValue().asInt();
          }
        }
      } else {
        all++;
        String status = v.path("status").asText("");
        if (status.equals("SCHEDULED") || status.equals("CREATED")) {
          waiting++;
        }
      }
    }
    if (waiting == 0) {
      return "";
    }
    String tasks = waiting + " of its " + all + " tasks wait for a task slot";
    return get(base + "/overview")
        .map(
            o ->
                tasks
                    + "; the cluster has "
                    + Counts.of(o.path("taskmanagers").asInt(), "TaskManager")
                    + " and "
                    + o.path("slots-available").asInt()
                    + " free of "
                    + Counts.of(o.path("slots-total").asInt(), "task slot"))
        .orElse(tasks);
  }

  private static boolean allTasksRun(JsonNode job) {
    JsonNode vertices = job.path("vertices");
    if (!vertices.isArray() || vertices.isEmpty()) {
      return false;
    }
    for (JsonNode v : vertices) {
      JsonNode tasks = v.path("tasks");
      if (tasks.isObject()) {
        // every subtask: a vertex reads RUNNING as soon as one of its subtasks runs
        int running = tasks.path("RUNNING").asInt() + tasks.path("FINISHED").asInt();
        int total = 0;
        for (JsonNode n : tasks) {
          total += n.asInt();
        }
        if (total == 0 || running < total) {
          return false;
        }
      } else {
        String status = v.path("status").asText("");
        if (!status.equals("RUNNING") && !status.equals("FINISHED")) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The job's latest failure as the cluster records it ({@code GET /jobs/<id>/exceptions}): the
   * innermost cause of its stack trace, as {@code SimpleName: message}; empty when it does not say.
   */
  static String cause(String base, String jobId) {
    Optional<JsonNode> exceptions = get(base + "/jobs/" + jobId + "/exceptions");
    if (exceptions.isEmpty()) {
      return "";
    }
    JsonNode entries = exceptions.get().path("exceptionHistory").path("entries");
    String trace =
        entries.isArray() && !entries.isEmpty()
            ? entries.get(0).path("stacktrace").asText("")
            : exceptions.get().path("root-exception").asText("");
    return innermostCause(trace);
  }

  /**
   * {@code SimpleName: message} of the last "Caused by:" of {@code trace}, else of its first line.
   */
  static String innermostCause(String trace) {
    String line = trace.lines().findFirst().orElse("").strip();
    for (String l : (Iterable<String>) trace.lines()::iterator) {
      if (l.startsWith("Caused by: ")) {
        line = l.substring("Caused by: ".length()).strip();
      }
    }
    int colon = line.indexOf(": ");
    String type = colon < 0 ? line : line.substring(0, colon);
    String simple = type.substring(type.lastIndexOf('.') + 1);
    return colon < 0 ? simple : simple + line.substring(colon);
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
    return get(base + "/jobs/overview").map(o -> o.path("jobs")).filter(JsonNode::isArray);
  }

  /**
   * The JSON the cluster answers to {@code GET url}; empty when it does not answer 200 with JSON.
   */
  private static Optional<JsonNode> get(String url) {
    return ask(url).json();
  }

  /**
   * What {@code GET url} met: the JSON of a 200 answer; whether Flink's REST API answered at all (a
   * response of any status but a 200 that is not JSON, which is some other server's); and, without
   * JSON, why: the status, or the exception's class and message.
   */
  record Answer(Optional<JsonNode> json, boolean answered, String failure) {}

  private static Answer ask(String url) {
    HttpResponse<String> response;
    try {
      HttpClient client =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(ASK_TIMEOUT)
              .build();
      response =
          client.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(ASK_TIMEOUT).GET().build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (IOException | RuntimeException e) {
      return new Answer(Optional.empty(), false, "GET " + url + ": " + described(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Answer(Optional.empty(), false, "GET " + url + ": interrupted");
    }
    if (response.statusCode() != 200) {
      return new Answer(
          Optional.empty(), true, "GET " + url + " answered " + response.statusCode());
    }
    try {
      return new Answer(Optional.of(JSON.readTree(response.body())), true, "");
    } catch (IOException e) {
      return new Answer(Optional.empty(), false, "GET " + url + ": " + described(e));
    }
  }

  private static String described(Exception e) {
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage());
  }

  @Override
  public void close() {
    thread.interrupt();
  }
}
