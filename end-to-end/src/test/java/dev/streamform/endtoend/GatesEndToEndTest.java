package dev.streamform.endtoend;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.cli.Streamform;
import dev.streamform.runners.postgres.LocalPostgres;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code streamform gates} on a Kafka run (issue 33, item 5): the hourly-revenue model runs on the
 * Flink cluster (parallelism 2) into PostgreSQL while payments arrive at a steady rate, with late
 * corrections within the allowed lateness and events too late for their window. The offsets and
 * disposition gates read the source topic and the late, duplicates and quarantine topics; the
 * latency gate compares each correction's append time with the ledger's {@code recorded_at} of the
 * first revision that includes it. All three pass while the job keeps up; the planted defect is a
 * stalled job (stopped with a savepoint while payments keep arriving, restored 20 s later): before
 * the restore the three gates fail (offsets missing, corrections unpublished, too-late events
 * without disposition), after it offsets and disposition pass again and latency fails.
 */
class GatesEndToEndTest {
  private static final String BOOTSTRAP = LocalServices.BOOTSTRAP;
  private static final String REST = LocalServices.REST;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String TOPIC = "gate_payments";
  private static final String MODEL = "hourly_revenue";
  private static final Instant BASE = Instant.parse("2026-09-01T00:00:00Z");

  @TempDir Path dir;

  @BeforeAll
  static void startServices() throws Exception {
    LocalServices.start();
  }

  @AfterAll
  static void stopServices() throws Exception {
    LocalServices.stop();
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void offsetsLatencyAndDispositionOnAKafkaRunPassAndFailOnAStalledJob() throws Exception {
    Path project = project();
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP))) {
      admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1))).all().get();
    }
    try (LocalPostgres postgres = LocalPostgres.temporary();
        KafkaProducer<byte[], byte[]> producer = producer()) {
      postgres.start();
      String[] database = {"--jdbc-url", postgres.jdbcUrl(), "--jdbc-user", LocalPostgres.USER};
      String job = submit(project, database);
      // latency counts from the append: the job must run before the steady rate starts, or a slow
      // start (a busy machine, the other test JVM's cluster) is measured as publication latency
      LocalServices.awaitRunning(job);
      int[] step = {0};

      // healthy: 30 s of payments at a steady rate, then the end of that day on every partition
      // (as a replay's end of input: on a live topic the windows still open hold their events)
      steady(producer, step, BASE, Duration.ofSeconds(30));
      punctuate(producer, BASE.plus(Duration.ofDays(1)));
      String healthy = awaitGates(project, database, Duration.ofSeconds(120));
      System.out.println("gates, job keeping up:\n" + healthy);
      assertThat(healthy, line(healthy, "offsets"), matchesPattern("PASS offsets 0/0 .*"));
      assertThat(healthy, line(healthy, "latency"), matchesPattern("PASS latency .*"));
      assertThat(healthy, line(healthy, "disposition"), matchesPattern("PASS disposition .*"));

      // the planted defect: the job stalls (stopped with a savepoint) while payments arrive
      String savepoint = stopWithSavepoint(job);
      steady(producer, step, BASE.plus(Duration.ofDays(2)), Duration.ofSeconds(20));
      punctuate(producer, BASE.plus(Duration.ofDays(3)));
      StringWriter stalledOut = new StringWriter();
      int stalledStatus = gates(project, database, stalledOut);
      String stalled = stalledOut.toString();
      System.out.println("gates, job stalled:\n" + stalled);
      assertThat(stalled, stalledStatus, equalTo(1));
      assertThat(
          stalled, line(stalled, "offsets"), matchesPattern("FAIL offsets [1-9][0-9]*/0 .*"));
      assertThat(stalled, line(stalled, "latency"), matchesPattern("FAIL latency never .*"));
      assertThat(
          stalled, line(stalled, "disposition"), matchesPattern("FAIL disposition [0-9.]+% .*"));

      // the stall goes on: the stall's first corrections wait out its 20 s of payments, the gates,
      // this and the restore (~15 s), well past the 30 s threshold (59.5 s with 20 s here)
      Thread.sleep(10_000);
      submit(project, database, "--from-savepoint", savepoint);
      String late = awaitGates(project, database, Duration.ofSeconds(120), "offsets");
      System.out.println("gates, job restored after the stall:\n" + late);
      assertThat(late, line(late, "offsets"), matchesPattern("PASS offsets 0/0 .*"));
      assertThat(late, line(late, "disposition"), matchesPattern("PASS disposition .*"));
      assertThat(late, line(late, "latency"), matchesPattern("FAIL latency [0-9.]+s .*"));
    }
  }

  /**
   * One merchant per partition; each step adds a minute of event time on every partition, a
   * correction 20 minutes back on a third of the steps in minutes 5–19 of the hour (its window has
   * closed: the watermark is 5 minutes behind; within the 30 minutes' allowed lateness) and, every
   * 11th step, a payment two hours back (too late).
   */
  private static void steady(
      KafkaProducer<byte[], byte[]> producer, int[] step, Instant from, Duration length)
      throws Exception {
    long end = System.nanoTime() + length.toNanos();
    while (System.nanoTime() < end) {
      int i = step[0]++;
      Instant t = from.plus(Duration.ofMinutes(i));
      long minute = (i % 60);
      for (int p = 0; p < 3; p++) {
        send(producer, p, t, "1.00");
        if (minute >= 5 && minute < 20 && i % 3 == 0) {
          send(producer, p, t.minus(Duration.ofMinutes(20)), "0.50");
        }
        if (i % 11 == 10) {
          send(producer, p, t.minus(Duration.ofHours(2)), "9.00");
        }
      }
      producer.flush();
      Thread.sleep(200);
    }
  }

  /** A punctuation on every partition: {@code W_p} at {@code w}. */
  private static void punctuate(KafkaProducer<byte[], byte[]> producer, Instant w) {
    for (int p = 0; p < 3; p++) {
      producer.send(
          new ProducerRecord<>(
              TOPIC,
              p,
              null,
              ("{\"__watermark\":\"" + w + "\"}").getBytes(StandardCharsets.UTF_8)));
    }
    producer.flush();
  }

  private static void send(
      KafkaProducer<byte[], byte[]> producer, int p, Instant t, String amount) {
    producer.send(
        new ProducerRecord<>(
            TOPIC,
            p,
            null,
            ("{\"merchant_id\":"
                    + (p + 1)
                    + ",\"amount\":"
                    + amount
                    + ",\"paid_at\":\""
                    + t
                    + "\"}")
                .getBytes(StandardCharsets.UTF_8)));
  }

  private Path project() throws Exception {
    Path project = dir.resolve("gated");
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        "sources:\n  payments:\n    connector: kafka\n    topic: "
            + TOPIC
            + "\n    format: json\n    schema:\n      merchant_id: int64\n"
            + "      amount: decimal(12,2)\n      paid_at: timestamp\n    event_time: paid_at\n"
            + "    watermark: 5m\n");
    Files.writeString(
        project.resolve("streamform.yml"),
        "models:\n  "
            + MODEL
            + ":\n    key: [merchant_id]\n    window: 1h\n    allowed_lateness: 30m\n"
            + "gates:\n  publication_latency_p99: 30s\n");
    Files.writeString(
        project.resolve("models/" + MODEL + ".sql"),
        "SELECT merchant_id, SUM(amount) AS revenue, COUNT(*) AS orders FROM source('payments')"
            + " GROUP BY merchant_id\n");
    return project;
  }

  /** The gates that read Kafka (and recomputation), printed to {@code out}; the exit status. */
  private static int gates(Path project, String[] database, StringWriter out) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "gates",
                project.toString(),
                "--model",
                MODEL,
                "--bootstrap-servers",
                BOOTSTRAP,
                "--skip",
                "oracle,effects"));
    args.addAll(List.of(database));
    StringWriter err = new StringWriter();
    int status =
        Streamform.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
    out.write(err.toString());
    return status;
  }

  /**
   * Runs the gates until {@code passing} (default: all of them) pass — the job has caught up with
   * the topic — or {@code within} is over; the last output.
   */
  private static String awaitGates(
      Path project, String[] database, Duration within, String... passing) throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      StringWriter out = new StringWriter();
      int status = gates(project, database, out);
      last = out.toString();
      boolean done =
          passing.length == 0
              ? status == 0
              : List.of(passing).stream().allMatch(g -> line(out.toString(), g).startsWith("PASS"));
      if (done) {
        return last;
      }
      Thread.sleep(3_000);
    }
    return last;
  }

  /** The printed line of {@code gate}, spaces squeezed. */
  private static String line(String out, String gate) {
    return out.lines()
        .filter(l -> l.matches("\\s+(PASS|FAIL|NOT MEASURED)\\s+" + gate + "\\s.*"))
        .map(l -> l.trim().replaceAll("\\s+", " "))
        .collect(Collectors.joining("\n"));
  }

  private static String submit(Path project, String[] database, String... more) {
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
                LocalServices.FLINK_MASTER,
                "--parallelism",
                "2",
                "--checkpointing-interval",
                "5000",
                "--bootstrap-servers",
                BOOTSTRAP,
                "--detach"));
    args.addAll(List.of(database));
    args.addAll(List.of(more));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status =
        Streamform.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
    if (status != 0) {
      fail(LocalServices.failed(args, status, out + "" + err));
    }
    String id = out.toString().trim();
    assertThat("a job id", id.matches("[0-9a-f]{32}"), equalTo(true));
    return id;
  }

  private static String stopWithSavepoint(String job) throws Exception {
    JsonNode trigger = rest("POST", "/jobs/" + job + "/stop", "{\"drain\":false}");
    String id = trigger.get("request-id").asText();
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (System.nanoTime() < deadline) {
      JsonNode status = rest("GET", "/jobs/" + job + "/savepoints/" + id, null);
      if (status.path("status").path("id").asText().equals("COMPLETED")) {
        JsonNode op = status.get("operation");
        if (op.has("failure-cause")) {
          fail("stop with savepoint failed: " + op.get("failure-cause"));
        }
        return op.get("location").asText();
      }
      Thread.sleep(500);
    }
    return fail("no savepoint within 90 s");
  }

  private static JsonNode rest(String method, String path, String body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(REST + path)).header("Content-Type", "application/json");
    b = body == null ? b.GET() : b.method(method, HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> response = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() >= 300) {
      fail(method + " " + path + ": " + response.statusCode() + " " + response.body());
    }
    return JSON.readTree(response.body());
  }

  private static KafkaProducer<byte[], byte[]> producer() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP);
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }
}
