package dev.streamform.endtoend;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.cli.Streamform;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The KRaft broker (127.0.0.1:9092) and the Flink session cluster (REST 127.0.0.1:8081) that {@code
 * runners-config/bin} starts as local processes, seen from a test: start and stop them (by the
 * scripts, which stop by pid), kill and restart the TaskManager, run the command line in process,
 * talk to the cluster's REST API and read topics. Every wait polls observable state (a topic's
 * records, a job's status or checkpoint count) until a deadline and fails with what it saw.
 *
 * <p>Surefire runs the test classes in two JVMs at once ({@code forkCount} 2 in the pom: the suite
 * waits on checkpoints and restarts far more than it computes). Each JVM has an instance of its
 * own, by its fork number ({@code streamform.e2e.instance}): instance 1 is the scripts' default
 * (broker 9092/9093, cluster 8081/6123, state under {@code runners-config/target/kafka} and {@code
 * flink}); instance 2 listens on 9192/9193 and 8181/6223 with state under {@code kafka-2} and
 * {@code flink-2}, and a copy of the cluster's configuration with those two ports.
 */
final class LocalServices {
  /** 1 or 2: the surefire fork this JVM is. */
  static final int INSTANCE = Integer.getInteger("streamform.e2e.instance", 1);

  private static final int OFFSET = (INSTANCE - 1) * 100;
  static final String BOOTSTRAP = "127.0.0.1:" + (9092 + OFFSET);
  static final String FLINK_MASTER = "127.0.0.1:" + (8081 + OFFSET);
  static final String REST = "http://" + FLINK_MASTER;
  static final int[] PORTS = {9092 + OFFSET, 9093 + OFFSET, 8081 + OFFSET, 6123 + OFFSET};
  static final Duration AWAIT = Duration.ofSeconds(120);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final Path HOME = Checkout.home();

  private LocalServices() {}

  /** Fails with how to free them when one of the fixed ports is taken. */
  static void requireFreePorts() {
    for (int port : PORTS) {
      if (Checkout.listening(port)) {
        fail(
            "127.0.0.1:"
                + port
                + " is already in use. The end-to-end tests start their own Kafka broker and Flink"
                + " cluster on "
                + PORTS[0]
                + "/"
                + PORTS[1]
                + " and "
                + PORTS[2]
                + "/"
                + PORTS[3]
                + ": stop whatever holds the port (if it is ours: runners-config/bin/kafka stop;"
                + " runners-config/bin/flink stop, with the environment of "
                + (INSTANCE == 1 ? "neither instance" : "instance " + INSTANCE)
                + ", see LocalServices) and run again.");
      }
    }
  }

  private static boolean kafkaStarted;
  private static boolean flinkStarted;

  /**
   * Starts the broker and the cluster (for a test class's {@code @BeforeAll}); fixed ports must be
   * free.
   */
  static void start() throws Exception {
    requireFreePorts();
    kafkaStarted = true; // set first: a half-started service is stopped too
    script("kafka", "start");
    flinkStarted = true;
    script("flink", "start");
  }

  /** Stops what {@link #start} started, by the scripts (by pid). */
  static void stop() throws Exception {
    try {
      if (flinkStarted) {
        flinkStarted = false;
        script("flink", "stop");
      }
    } finally {
      if (kafkaStarted) {
        kafkaStarted = false;
        script("kafka", "stop");
      }
    }
  }

  /**
   * Runs {@code runners-config/bin/<service> <command...>} for this JVM's instance, output appended
   * to target/services-N.log.
   */
  static void script(String service, String... command) throws Exception {
    Path log = Path.of("target", "services-" + INSTANCE + ".log").toAbsolutePath();
    Files.createDirectories(log.getParent());
    ProcessBuilder builder =
        new ProcessBuilder(
                Stream.concat(
                        Stream.of(HOME.resolve("runners-config/bin/" + service).toString()),
                        Stream.of(command))
                    .toList())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().putAll(environment());
    Process p = builder.start();
    if (p.waitFor() != 0) {
      fail(
          "runners-config/bin/"
              + service
              + " "
              + String.join(" ", command)
              + " failed; see "
              + log);
    }
  }

  /** The scripts' environment for this instance: none for instance 1, ports and folders else. */
  private static Map<String, String> environment() throws Exception {
    if (INSTANCE == 1) {
      return Map.of();
    }
    Path conf = flinkStateDir().resolve("conf");
    Files.createDirectories(conf);
    String config =
        Files.readString(HOME.resolve("runners-config/flink/conf/config.yaml"))
            .replace("rest.port: 8081", "rest.port: " + PORTS[2])
            .replace("jobmanager.rpc.port: 6123", "jobmanager.rpc.port: " + PORTS[3]);
    Files.writeString(conf.resolve("config.yaml"), config);
    return Map.of(
        "STREAMFORM_KAFKA_STATE_DIR",
        HOME.resolve("runners-config/target/kafka-" + INSTANCE).toString(),
        "STREAMFORM_KAFKA_PORT",
        String.valueOf(PORTS[0]),
        "STREAMFORM_KAFKA_CONTROLLER_PORT",
        String.valueOf(PORTS[1]),
        "STREAMFORM_FLINK_STATE_DIR",
        flinkStateDir().toString(),
        "STREAMFORM_FLINK_CONF_DIR",
        conf.toString());
  }

  private static Path flinkStateDir() {
    return HOME.resolve("runners-config/target/" + (INSTANCE == 1 ? "flink" : "flink-" + INSTANCE));
  }

  /** The TaskManager's pid, from the pid file {@code bin/flink} keeps. */
  static long taskManagerPid() throws Exception {
    Path file = flinkStateDir().resolve("taskmanager.pid");
    long pid = Long.parseLong(Files.readString(file).trim());
    // /proc, as bin/flink checks it: ProcessHandle.Info cuts a long command line short
    Path cmdline = Path.of("/proc", String.valueOf(pid), "cmdline");
    String command =
        Files.exists(cmdline)
            ? new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).replace('\0', ' ')
            : "";
    if (!command.contains("org.apache.flink.runtime.taskexecutor.TaskManagerRunner")) {
      fail("pid " + pid + " from " + file + " is not a running TaskManager");
    }
    return pid;
  }

  /** kill -9 of the TaskManager: no shutdown hook, no goodbye to the JobManager. */
  static void killTaskManager() throws Exception {
    ProcessHandle tm = ProcessHandle.of(taskManagerPid()).orElseThrow();
    tm.destroyForcibly(); // SIGKILL on Unix
    await("the killed TaskManager is gone")
        .atMost(Duration.ofSeconds(30))
        .until(() -> !tm.isAlive());
  }

  /** Runs the command line, which must succeed; returns what it printed on standard output. */
  static String cli(String... args) {
    return succeeded(args)[0];
  }

  /** Runs the command line, which must succeed; returns what it printed on standard error. */
  static String cliErr(String... args) {
    return succeeded(args)[1];
  }

  /** A command's exit status and what it printed on standard output and standard error. */
  record Ran(int status, String out, String err) {}

  /** Runs the command line in process, whatever its exit status. */
  static Ran ran(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
    return new Ran(status, out.toString(), err.toString());
  }

  /** {standard output, standard error} of a command that must succeed. */
  private static String[] succeeded(String... args) {
    Ran r = ran(args);
    if (r.status() != 0) {
      fail(failed(List.of(args), r.status(), r.out() + r.err()));
    }
    return new String[] {r.out(), r.err()};
  }

  /**
   * What a failed command printed, and for {@code run} the cluster's own account of it: whether the
   * JobManager still runs and the last warnings and errors of its log (a submission the cluster
   * refused says why only there; the log is gone with the build's machine).
   */
  static String failed(List<String> args, int status, String printed) {
    String what = "streamform " + String.join(" ", args) + " exited " + status + ":\n" + printed;
    return args.get(0).equals("run") ? what + jobManagerAccount() : what;
  }

  private static String jobManagerAccount() {
    Path dir = flinkStateDir();
    try {
      long pid = Long.parseLong(Files.readString(dir.resolve("jobmanager.pid")).trim());
      boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
      List<String> notable;
      try (Stream<String> lines = Files.lines(dir.resolve("log/jobmanager.log"))) {
        notable =
            lines
                .filter(
                    l ->
                        l.contains(" WARN ")
                            || l.contains(" ERROR ")
                            || l.startsWith("Caused by:")
                            || l.contains("Error:"))
                .map(l -> l.length() > 400 ? l.substring(0, 400) + "…" : l)
                .toList();
      }
      return "the JobManager (pid "
          + pid
          + ") "
          + (alive ? "runs" : "is gone")
          + "; the last warnings and errors of "
          + dir.resolve("log/jobmanager.log")
          + ":\n"
          + String.join("\n", notable.subList(Math.max(0, notable.size() - 15), notable.size()));
    } catch (IOException | RuntimeException e) {
      return "(no account from the JobManager: " + e + ")";
    }
  }

  /**
   * Runs the command line whatever its exit status; returns its exit status and what it printed
   * (standard output, then standard error), for a check that prints its figures before it asserts.
   */
  static String cliAnyStatus(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
    return "exit " + status + ": " + out + err;
  }

  /** {@code streamform produce} of a fixture-shaped file to the project's topic (3 partitions). */
  static void produce(Path project, Path items) {
    cli(
        "produce",
        project.toString(),
        items.toString(),
        "--bootstrap-servers",
        BOOTSTRAP,
        "--partitions",
        "3");
  }

  /** {@code streamform run --detach} on the cluster, a checkpoint every 2 s; returns the job id. */
  static String submit(Path project, String model, int parallelism, String... more) {
    return submit(project, model, parallelism, Duration.ofSeconds(2), more);
  }

  /** {@link #submit(Path, String, int, String...)} with a checkpoint every {@code checkpoints}. */
  static String submit(
      Path project, String model, int parallelism, Duration checkpoints, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                project.toString(),
                "--model",
                model,
                "--runner",
                "flink",
                "--flink-master",
                FLINK_MASTER,
                "--parallelism",
                String.valueOf(parallelism),
                "--checkpointing-interval",
                String.valueOf(checkpoints.toMillis()),
                "--bootstrap-servers",
                BOOTSTRAP,
                "--detach"));
    args.addAll(List.of(more));
    String out = cli(args.toArray(String[]::new)).trim();
    if (!out.matches("[0-9a-f]{32}")) {
      fail("not a job id: " + out);
    }
    return out;
  }

  static JsonNode rest(String method, String path, String body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(REST + path)).header("Content-Type", "application/json");
    b =
        body == null
            ? b.method(method, HttpRequest.BodyPublishers.noBody())
            : b.method(method, HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> response = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() >= 300) {
      fail(method + " " + path + ": " + response.statusCode() + " " + response.body());
    }
    return response.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(response.body());
  }

  static String status(String job) throws Exception {
    return rest("GET", "/jobs/" + job, null).get("state").asText();
  }

  /** Waits until every task of {@code job} runs (after a submission or a restart). */
  static void awaitRunning(String job) {
    await("job " + job + " running on every task")
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              JsonNode j = rest("GET", "/jobs/" + job, null);
              failIfFailed(j);
              if (!j.get("state").asText().equals("RUNNING")) {
                return false;
              }
              for (JsonNode v : j.get("vertices")) {
                if (!v.get("status").asText().equals("RUNNING")) {
                  return false;
                }
              }
              return true;
            });
  }

  /** Completed checkpoints of {@code job} so far. */
  static long completedCheckpoints(String job) throws Exception {
    return rest("GET", "/jobs/" + job + "/checkpoints", null)
        .path("counts")
        .path("completed")
        .asLong();
  }

  /** Waits for a checkpoint that completes after this call: what it covers is safe from a crash. */
  static void awaitNextCheckpoint(String job) throws Exception {
    long before = completedCheckpoints(job);
    await("a checkpoint of job " + job + " completing")
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              failIfFailed(rest("GET", "/jobs/" + job, null));
              return completedCheckpoints(job) > before;
            });
  }

  /** How often the job restarted (Flink counts it as numRestarts). */
  static long restarts(String job) throws Exception {
    JsonNode metric = rest("GET", "/jobs/" + job + "/metrics?get=numRestarts", null);
    return metric.size() == 0 ? 0 : metric.get(0).get("value").asLong();
  }

  /**
   * Failures of {@code job} the JobManager recorded at or after {@code since} (its exception
   * history, newest first; each is followed by a restart when the job asked for restarts).
   */
  static int failuresSince(String job, java.time.Instant since) throws Exception {
    int n = 0;
    for (JsonNode e :
        rest("GET", "/jobs/" + job + "/exceptions", null)
            .path("exceptionHistory")
            .path("entries")) {
      if (e.path("timestamp").asLong() >= since.toEpochMilli()) {
        n++;
      }
    }
    return n;
  }

  /** Stops {@code job} with a savepoint; returns its location. */
  static String stopWithSavepoint(String job) throws Exception {
    String id =
        rest("POST", "/jobs/" + job + "/stop", "{\"drain\":false}").get("request-id").asText();
    return savepointLocation(job, id);
  }

  /** Takes a savepoint of {@code job}, which goes on running; returns its location. */
  static String savepoint(String job) throws Exception {
    String id =
        rest("POST", "/jobs/" + job + "/savepoints", "{\"cancel-job\":false}")
            .get("request-id")
            .asText();
    return savepointLocation(job, id);
  }

  /**
   * Triggers a checkpoint of {@code job} by hand (Flink 1.19's {@code POST /jobs/:id/checkpoints})
   * and waits until it completed; returns its id. A test that submits with a long checkpoint
   * interval decides this way exactly what a restart replays.
   */
  static long checkpoint(String job) throws Exception {
    String request = rest("POST", "/jobs/" + job + "/checkpoints", "{}").get("request-id").asText();
    JsonNode[] done = new JsonNode[1];
    await("checkpoint of job " + job)
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              JsonNode status = rest("GET", "/jobs/" + job + "/checkpoints/" + request, null);
              done[0] = status.get("operation");
              return status.path("status").path("id").asText().equals("COMPLETED");
            });
    if (done[0].has("failure-cause")) {
      fail("checkpoint of job " + job + " failed: " + done[0].get("failure-cause"));
    }
    return done[0].get("checkpointId").asLong();
  }

  private static String savepointLocation(String job, String request) {
    JsonNode[] done = new JsonNode[1];
    await("savepoint of job " + job)
        .atMost(AWAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              JsonNode status = rest("GET", "/jobs/" + job + "/savepoints/" + request, null);
              done[0] = status.get("operation");
              return status.path("status").path("id").asText().equals("COMPLETED");
            });
    if (done[0].has("failure-cause")) {
      fail("savepoint of job " + job + " failed: " + done[0].get("failure-cause"));
    }
    return done[0].get("location").asText();
  }

  /**
   * Cancels every job still active on the cluster and waits until they let go of their slots: the
   * cluster's 2 slots take one parallelism-2 job at a time.
   */
  static void cancelAll() throws Exception {
    for (JsonNode job : rest("GET", "/jobs", null).get("jobs")) {
      String status = job.get("status").asText();
      if (!(status.equals("CANCELED") || status.equals("FINISHED") || status.equals("FAILED"))) {
        rest("PATCH", "/jobs/" + job.get("id").asText() + "?mode=cancel", null);
      }
    }
    await("every job cancelled")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              for (JsonNode job : rest("GET", "/jobs", null).get("jobs")) {
                String status = job.get("status").asText();
                if (!(status.equals("CANCELED")
                    || status.equals("FINISHED")
                    || status.equals("FAILED"))) {
                  return false;
                }
              }
              return true;
            });
  }

  /** Fails at once with the cluster's reason when a job failed. */
  static void checkNoJobFailed() throws Exception {
    for (JsonNode job : rest("GET", "/jobs", null).get("jobs")) {
      if (job.get("status").asText().equals("FAILED")) {
        failIfFailed(rest("GET", "/jobs/" + job.get("id").asText(), null));
      }
    }
  }

  private static void failIfFailed(JsonNode job) throws Exception {
    if (job.get("state").asText().equals("FAILED")) {
      JsonNode exceptions = rest("GET", "/jobs/" + job.get("jid").asText() + "/exceptions", null);
      // Flink 1.19 lists the failures in exceptionHistory (root-exception may be empty)
      String trace =
          exceptions
              .path("exceptionHistory")
              .path("entries")
              .path(0)
              .path("stacktrace")
              .asText(exceptions.path("root-exception").asText());
      fail(
          "job "
              + job.get("jid").asText()
              + " failed on the cluster: "
              + trace
                  .lines()
                  .filter(l -> !l.startsWith("\tat "))
                  .limit(8)
                  .reduce("", (x, y) -> x + "\n" + y));
    }
  }

  /**
   * Sets ({@code value} not null) or removes a configuration of {@code topic} at the broker, e.g.
   * {@code max.message.bytes}, which the broker checks on every write.
   */
  static void topicConfig(String topic, String key, String value) throws Exception {
    try (Admin admin =
        Admin.create(
            Map.<String, Object>of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP))) {
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      AlterConfigOp op =
          value == null
              ? new AlterConfigOp(new ConfigEntry(key, ""), AlterConfigOp.OpType.DELETE)
              : new AlterConfigOp(new ConfigEntry(key, value), AlterConfigOp.OpType.SET);
      admin.incrementalAlterConfigs(Map.of(resource, List.of(op))).all().get();
    }
  }

  /**
   * One record of a topic: its partition, offset, JSON key and value, and its Kafka timestamp (the
   * writer's send time, or the broker's append time on a topic with {@code LogAppendTime}).
   */
  record TopicRecord(int partition, long offset, JsonNode key, JsonNode value, long timestamp) {}

  /**
   * Reads {@code topic} from the start (committed records only, as {@code streamform consume} does)
   * until what was read satisfies {@code enough}, then a moment more to catch any extra record;
   * fails with what it read when {@code enough} never holds. For waits; a check that must count
   * what is missing uses {@link #drain}.
   */
  static List<TopicRecord> readUntil(String topic, String what, Predicate<List<TopicRecord>> enough)
      throws Exception {
    List<TopicRecord> records = drain(topic, enough);
    failUnless(enough, topic, what, records);
    return records;
  }

  /**
   * Reads {@code topic} from the start (committed records only) until what was read satisfies
   * {@code enough}, and returns at once; fails with what it read when {@code enough} never holds.
   * For a wait whose reads nobody counts (the next step of a story): unlike {@link #readUntil} it
   * does not go on reading for extra records, which the story's check counts later anyway.
   */
  static void awaitRecords(String topic, String what, Predicate<List<TopicRecord>> enough)
      throws Exception {
    List<TopicRecord> records = new ArrayList<>();
    follow(Map.of(topic, records::add), () -> enough.test(records), AWAIT, Duration.ZERO);
    failUnless(enough, topic, what, records);
  }

  /** Fails naming {@code topic}, what was awaited and every record read, unless it is there. */
  private static void failUnless(
      Predicate<List<TopicRecord>> enough, String topic, String what, List<TopicRecord> records) {
    if (!enough.test(records)) {
      fail(
          topic
              + ": not "
              + what
              + " after "
              + AWAIT
              + "; read "
              + records.size()
              + " records: "
              + records);
    }
  }

  /**
   * {@link #drain(String, Predicate)} of several topics at once, each with its own {@code enough}:
   * one read of them all, until every one holds, then the 3 s more to catch extra records once for
   * all of them (not once per topic, one after the other). Topic to its records.
   */
  static Map<String, List<TopicRecord>> drain(Map<String, Predicate<List<TopicRecord>>> enough)
      throws Exception {
    Map<String, List<TopicRecord>> read = new java.util.LinkedHashMap<>();
    Map<String, java.util.function.Consumer<TopicRecord>> each = new java.util.HashMap<>();
    for (String topic : enough.keySet()) {
      List<TopicRecord> records = new ArrayList<>();
      read.put(topic, records);
      each.put(topic, records::add);
    }
    follow(
        each,
        () -> enough.entrySet().stream().allMatch(e -> e.getValue().test(read.get(e.getKey()))),
        AWAIT,
        SETTLE);
    return read;
  }

  /** How long a drain reads on once what it waited for is there: extra records come in this. */
  private static final Duration SETTLE = Duration.ofSeconds(3);

  /**
   * A bounded drain: reads {@code topic} from the start (committed records only) until what was
   * read satisfies {@code enough} (then 3 s more, to catch any extra record) or {@link #AWAIT} has
   * passed, and returns what it read either way, so that the caller counts what is missing instead
   * of timing out. Fails at once when a job on the cluster failed.
   */
  static List<TopicRecord> drain(String topic, Predicate<List<TopicRecord>> enough)
      throws Exception {
    List<TopicRecord> records = new ArrayList<>();
    follow(topic, records::add, () -> enough.test(records), AWAIT);
    return records;
  }

  /**
   * Reads {@code topic} from the start (committed records only) and hands each record to {@code
   * each}, keeping none (for topics too large to hold as JSON trees), until {@code enough} holds
   * (asked once a poll) and 3 s more, or for {@code atMost}.
   */
  static void follow(
      String topic,
      java.util.function.Consumer<TopicRecord> each,
      java.util.function.BooleanSupplier enough,
      Duration atMost)
      throws Exception {
    follow(Map.of(topic, each), enough, atMost, SETTLE);
  }

  /**
   * Reads every topic of {@code each} from the start (committed records only, one consumer) and
   * hands each record to its topic's consumer until {@code enough} holds (asked once a poll) and
   * {@code settle} more, or for {@code atMost}.
   */
  private static void follow(
      Map<String, ? extends java.util.function.Consumer<TopicRecord>> each,
      java.util.function.BooleanSupplier enough,
      Duration atMost,
      Duration settle)
      throws Exception {
    try (KafkaConsumer<byte[], byte[]> consumer = committedReader()) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String topic : each.keySet()) {
        partitions.addAll(partitionsOf(consumer, topic));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + atMost.toNanos();
      long until = Long.MAX_VALUE;
      while (System.nanoTime() < Math.min(deadline, until)) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          each.get(r.topic()).accept(topicRecord(r));
        }
        checkNoJobFailed();
        if (until == Long.MAX_VALUE && enough.getAsBoolean()) {
          until = System.nanoTime() + settle.toNanos();
        }
      }
    }
  }

  /**
   * Everything {@code topic} holds now: its committed records up to the end offsets at the time of
   * the call (for a snapshot while no job writes, e.g. right after a TaskManager was killed).
   */
  static List<TopicRecord> readToEnd(String topic) throws Exception {
    List<TopicRecord> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = committedReader()) {
      List<TopicPartition> partitions = partitionsOf(consumer, topic);
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      await("topic " + topic + " read to its end offsets " + end)
          .atMost(AWAIT)
          .pollDelay(Duration.ZERO)
          .until(
              () -> {
                poll(consumer, records);
                return end.entrySet().stream()
                    .allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
              });
    }
    return records;
  }

  private static KafkaConsumer<byte[], byte[]> committedReader() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private static List<TopicPartition> partitionsOf(
      KafkaConsumer<byte[], byte[]> consumer, String topic) {
    List<TopicPartition> partitions = new ArrayList<>();
    await("topic " + topic + " exists")
        .atMost(AWAIT)
        .until(
            () -> {
              partitions.clear();
              consumer
                  .listTopics(Duration.ofSeconds(5))
                  .getOrDefault(topic, List.of())
                  .forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
              return !partitions.isEmpty();
            });
    return partitions;
  }

  private static void poll(KafkaConsumer<byte[], byte[]> consumer, List<TopicRecord> records)
      throws Exception {
    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
      records.add(topicRecord(r));
    }
  }

  private static TopicRecord topicRecord(ConsumerRecord<byte[], byte[]> r) {
    try {
      return new TopicRecord(
          r.partition(),
          r.offset(),
          r.key() == null ? null : JSON.readTree(new String(r.key(), StandardCharsets.UTF_8)),
          JSON.readTree(new String(r.value(), StandardCharsets.UTF_8)),
          r.timestamp());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(
          r.topic() + " partition " + r.partition() + " offset " + r.offset() + ": not JSON", e);
    }
  }
}
