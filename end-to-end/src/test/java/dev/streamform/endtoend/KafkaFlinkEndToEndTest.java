package dev.streamform.endtoend;

import static dev.streamform.endtoend.ChangelogRows.byKey;
import static dev.streamform.endtoend.ChangelogRows.expected;
import static dev.streamform.endtoend.ChangelogRows.normalized;
import static dev.streamform.endtoend.ChangelogRows.rows;
import static dev.streamform.endtoend.LocalServices.cli;
import static dev.streamform.endtoend.LocalServices.cliErr;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.core.time.WindowStatus;
import dev.streamform.pipelines.kafka.KafkaTopics;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.runners.postgres.LocalPostgres;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.oracle.WindowedOracle;
import dev.streamform.teststreams.oracle.WindowedOutcome;
import dev.streamform.transforms.PlantedDefect;
import java.io.IOException;
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
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka path end to end, on real services: a KRaft broker and a Flink session cluster started
 * by {@code runners-config/bin} (and always stopped by them, by pid, in {@link #stopServices()}),
 * the job submitted by {@code streamform run} with the shaded job jar at parallelism 2.
 *
 * <p>The story (project {@code orders-kafka}: one customer per partition of a 3-partition topic):
 * phase 1's events, late ones and a watermark item included, are produced; the changelog and late
 * topics must hold what {@code fixtures/phase1.yml} expects; bad records go to quarantine with
 * their reasons while the job keeps running; the job is stopped with a savepoint; phase 2's events
 * are produced; the job is restored from the savepoint; and then the topics must hold exactly what
 * {@code fixtures/both.yml} (the whole story as one fixture) expects — every event counted once.
 *
 * <p>The windowed story (project {@code payments-kafka}, one merchant per partition): {@code
 * fixtures/hourly.yml}'s events and watermark items are produced, the windowed model runs on the
 * same cluster at parallelism 2, and its topic must hold the fixture's previews, revisions and
 * final records (compared per key and window, in order within it) and its late topic the event too
 * late for its window.
 */
class KafkaFlinkEndToEndTest {
  private static final String BOOTSTRAP = LocalServices.BOOTSTRAP;
  private static final String REST = LocalServices.REST;
  private static final Duration AWAIT = Duration.ofSeconds(90);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static final Path PROJECT = Path.of("src/test/resources/orders-kafka").toAbsolutePath();
  private static final String MODEL = "customer_metrics";
  private static final Path WINDOWED =
      Path.of("src/test/resources/payments-kafka").toAbsolutePath();
  private static final String WINDOWED_MODEL = "hourly_revenue";
  private static final Path RECEIPTS =
      Path.of("../test-streams/fixtures/decisions/receipts").toAbsolutePath().normalize();
  private static final Path BURST =
      Path.of("../examples/receipts-burst").toAbsolutePath().normalize();
  private static final Path BERLIN =
      Path.of("src/test/resources/sales-kafka-berlin").toAbsolutePath();

  @BeforeAll
  static void startServices() throws Exception {
    LocalServices.start();
  }

  @AfterAll
  static void stopServices() throws Exception {
    LocalServices.stop();
  }

  /**
   * {@code produce} of a fixture naming a partition the topic lacks says so and sends nothing (it
   * used to create the topic, send the items before that one, then stop with "internal error:
   * IllegalStateException: the fixture names partition 1 but the topic has 1 partitions").
   */
  @Test
  void produceRefusesAFixtureNamingAPartitionTheTopicLacks(@TempDir Path dir) throws Exception {
    Path seed =
        Path.of("../test-streams/fixtures/time/two-partitions").toAbsolutePath().normalize();
    Path project = Files.createDirectories(dir.resolve("two-partitions"));
    Files.copy(seed.resolve("streamform.yml"), project.resolve("streamform.yml"));
    Files.createDirectories(project.resolve("models"));
    try (Stream<Path> models = Files.list(seed.resolve("models"))) {
      for (Path m : (Iterable<Path>) models::iterator) {
        Files.copy(m, project.resolve("models").resolve(m.getFileName()));
      }
    }
    String topic = "produce_partition_check";
    Files.writeString(
        project.resolve("sources.yml"),
        Files.readString(seed.resolve("sources.yml")).replace("topic: orders", "topic: " + topic));
    Path fixture = seed.resolve("fixtures/partition_behind.yml");
    LocalServices.Ran produced =
        LocalServices.ran(
            "produce",
            project.toString(),
            fixture.toString(),
            "--bootstrap-servers",
            BOOTSTRAP,
            "--partitions",
            "1");
    assertEquals(1, produced.status(), produced.out() + produced.err());
    assertThat(
        produced.err(),
        containsString(
            fixture
                + " names partition 1, but topic "
                + topic
                + " would be created with 1 partition; nothing was produced — add --partitions 2,"
                + " or send by key with --spread-by-key"));
    try (KafkaTopics topics = KafkaTopics.at(BOOTSTRAP)) {
      assertThat(topics.names(), not(hasItem(topic)));
    }
  }

  /**
   * {@code run} of a source declaring fewer partitions than its topic has is refused before it
   * creates any topic of its own (it used to create the model's changelog, late and quarantine
   * topics with the declared count first, which a corrected run then reused).
   */
  @Test
  void runRefusesADeclaredPartitionCountBeforeCreatingTopics(@TempDir Path dir) throws Exception {
    Path seed =
        Path.of("../test-streams/fixtures/time/two-partitions").toAbsolutePath().normalize();
    Path project = Files.createDirectories(dir.resolve("declared-two"));
    String model = "partition_check"; // its own topics, which no other test creates
    Files.writeString(
        project.resolve("streamform.yml"),
        Files.readString(seed.resolve("streamform.yml")).replace("hourly_revenue:", model + ":"));
    Files.createDirectories(project.resolve("models"));
    Files.copy(
        seed.resolve("models/hourly_revenue.sql"), project.resolve("models/" + model + ".sql"));
    String topic = "run_partition_check";
    Files.writeString(
        project.resolve("sources.yml"),
        Files.readString(seed.resolve("sources.yml"))
            .replace("topic: orders", "topic: " + topic + "\n    partitions: 2"));
    try (KafkaTopics topics = KafkaTopics.at(BOOTSTRAP)) {
      topics.ensure(List.of(topic), 3, Set.of());
    }
    LocalServices.Ran ran =
        LocalServices.ran(
            "run",
            project.toString(),
            "--model",
            model,
            "--bootstrap-servers",
            BOOTSTRAP,
            "--runner",
            "direct");
    assertEquals(1, ran.status(), ran.out() + ran.err());
    assertThat(ran.err(), containsString("declares partitions: 2 but topic " + topic + " has 3"));
    assertThat(ran.err(), not(containsString("created topic")));
    try (KafkaTopics topics = KafkaTopics.at(BOOTSTRAP)) {
      assertThat(topics.names(), not(hasItem(model)));
      assertThat(topics.names(), not(hasItem(model + ".late")));
    }
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void changelogLateAndQuarantineSurviveASavepointRestoreOnTheCluster(@TempDir Path dir)
      throws Exception {
    Project project = Project.load(PROJECT);
    // submitted from a copy: the runs record their plans in its target/flink-jobs (ADR 0121)
    Path copy = dir.resolve("orders-kafka");
    copyProject(PROJECT, copy);
    Fixture phase1 = Fixture.load(project, PROJECT.resolve("fixtures/phase1.yml"));
    Fixture both = Fixture.load(project, PROJECT.resolve("fixtures/both.yml"));

    cli(
        "produce",
        PROJECT.toString(),
        PROJECT.resolve("fixtures/phase1.yml").toString(),
        "--bootstrap-servers",
        BOOTSTRAP,
        "--partitions",
        "3");
    String job = submit(copy, MODEL);
    Path record = copy.resolve("target/flink-jobs").resolve(MODEL).resolve(job + ".json");
    assertEquals(
        cli("inspect-plan", copy.toString(), MODEL),
        Files.readString(record),
        "the detached run records the plan it submitted, as inspect-plan prints it");

    Map<String, List<JsonNode>> read =
        await(Map.of(MODEL, phase1.expect().size(), MODEL + ".late", phase1.late().size()));
    List<JsonNode> changelog = read.get(MODEL);
    assertEquals(byKey(expected(phase1.expect())), byKey(rows(changelog)), "phase 1 changelog");
    List<JsonNode> late = read.get(MODEL + ".late");
    assertEquals(sorted(expected(phase1.late())), sorted(lateRecords(late)), "phase 1 late events");

    // Bad records: each is quarantined with its reason, and the job goes on (phase 2 below).
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      producer.send(new ProducerRecord<>("orders", 0, null, bytes("not json at all")));
      producer.send(
          new ProducerRecord<>(
              "orders",
              1,
              null,
              bytes(
                  "{\"customer_id\":\"abc\",\"amount\":1,\"ordered_at\":\"2026-08-30T10:22:00Z\"}")));
      producer.send(
          new ProducerRecord<>(
              "orders", 2, null, bytes("{\"amount\":1,\"ordered_at\":\"2026-08-30T10:22:00Z\"}")));
      producer.send(
          new ProducerRecord<>("orders", 0, null, bytes("{\"customer_id\":1,\"amount\":1}")));
      producer.flush();
    }
    List<JsonNode> quarantine = await(MODEL + ".quarantine", 4);
    List<String> reasons = new ArrayList<>();
    quarantine.forEach(q -> reasons.add(q.get("value").get("reason").asText()));
    reasons.sort(null);
    assertThat(
        String.join("\n", reasons), containsString("column `customer_id`: 'abc' is not an int64"));
    assertThat(String.join("\n", reasons), containsString("key column `customer_id` has no value"));
    assertThat(
        String.join("\n", reasons), containsString("no value for event-time column `ordered_at`"));
    assertThat(String.join("\n", reasons), containsString("not JSON"));

    String savepoint = stopWithSavepoint(job);
    cli(
        "produce",
        PROJECT.toString(),
        PROJECT.resolve("continued/phase2.yml").toString(),
        "--bootstrap-servers",
        BOOTSTRAP);
    // the savepoint's folder names the job: a changed watermark is refused before any submission
    Path changed = dir.resolve("changed");
    copyProject(copy, changed);
    Path sources = changed.resolve("sources.yml");
    Files.writeString(
        sources, Files.readString(sources).replace("watermark: 5m", "watermark: 30m"));
    LocalServices.Ran refused =
        LocalServices.ran(
            "run",
            changed.toString(),
            "--model",
            MODEL,
            "--runner",
            "flink",
            "--flink-master",
            LocalServices.FLINK_MASTER,
            "--parallelism",
            "2",
            "--bootstrap-servers",
            BOOTSTRAP,
            "--detach",
            "--from-savepoint",
            savepoint);
    assertEquals(2, refused.status(), refused.err());
    assertThat(refused.err(), containsString("was written by job " + job));
    assertThat(refused.err(), containsString("NEW GENERATION REQUIRED"));
    LocalServices.Ran restoredRun =
        LocalServices.ran(
            "run",
            copy.toString(),
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
            "--detach",
            "--from-savepoint",
            savepoint);
    assertEquals(0, restoredRun.status(), restoredRun.err());
    // the same plan: found, compared, and restored without a word about it
    assertThat(restoredRun.err(), not(containsString("could not be checked")));
    String restored = restoredRun.out().trim();
    try {
      read = await(Map.of(MODEL, both.expect().size(), MODEL + ".late", both.late().size()));
      changelog = read.get(MODEL);
      assertEquals(
          byKey(expected(both.expect())),
          byKey(rows(changelog)),
          "changelog across the savepoint (a lost or twice-counted event shows here)");
      Set<String> events = new HashSet<>();
      for (JsonNode r : changelog) {
        assertThat(
            "each event applied once",
            events.add(r.get("value").get("__event").asText()),
            equalTo(true));
      }
      Map<String, Object> finalValues = new TreeMap<>();
      byKey(rows(changelog))
          .forEach((k, rows) -> finalValues.put(k, rows.get(rows.size() - 1).get("total_spend")));
      assertEquals(Map.of("1", "131", "2", "56", "3", "7"), finalValues, "final value per key");
      late = read.get(MODEL + ".late");
      assertEquals(sorted(expected(both.late())), sorted(lateRecords(late)), "late events");
    } finally {
      HTTP.send(
          HttpRequest.newBuilder(URI.create(REST + "/jobs/" + restored + "?mode=cancel"))
              .method("PATCH", HttpRequest.BodyPublishers.noBody())
              .build(),
          HttpResponse.BodyHandlers.ofString());
    }
  }

  /**
   * Issue 28: poison records on a topic read by a job on the cluster — a decimal of 1e900000000
   * (which once failed the job: BigInteger overflow), one of 1e500000000 (which once took minutes),
   * an int64 of 1e900000000, a line that is not JSON and an object with a repeated key. The job
   * keeps running, the good records after them are processed, and each poison record is in the
   * quarantine topic at its offset with a reason naming its column (or key).
   */
  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void poisonRecordsAreQuarantinedAndTheJobKeepsRunning(@org.junit.jupiter.api.io.TempDir Path dir)
      throws Exception {
    // the orders project on topics of its own, so other tests' records are not in them
    Path project = onTopicsOfItsOwn(dir, "poison", sources -> sources);
    String[][] poison = {
      {
        "{\"customer_id\":1,\"amount\":1e900000000,\"ordered_at\":\"2026-08-30T10:01:00Z\"}",
        "column `amount`: '1e900000000' has too many digits for decimal(12,2)"
      },
      {
        "{\"customer_id\":1,\"amount\":1e500000000,\"ordered_at\":\"2026-08-30T10:01:00Z\"}",
        "column `amount`: '1e500000000' has too many digits for decimal(12,2)"
      },
      {
        "{\"customer_id\":1e900000000,\"amount\":1,\"ordered_at\":\"2026-08-30T10:01:00Z\"}",
        "column `customer_id`: '1e900000000' is out of the int64 range"
      },
      {"this line is not JSON", "not JSON: Unrecognized token 'this'"},
      {
        "{\"customer_id\":1,\"amount\":3.00,\"amount\":300.00,\"ordered_at\":\"2026-08-30T10:01:00Z\"}",
        "key `amount` is repeated in the JSON object"
      },
    };
    String job = submit(project, MODEL);
    long start = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      producer.send(
          new ProducerRecord<>(
              "poison_orders",
              0,
              null,
              bytes(
                  "{\"customer_id\":1,\"amount\":10.00,\"ordered_at\":\"2026-08-30T10:00:00Z\"}")));
      for (String[] p : poison) {
        producer.send(new ProducerRecord<>("poison_orders", 0, null, bytes(p[0])));
      }
      producer.send(
          new ProducerRecord<>(
              "poison_orders",
              0,
              null,
              bytes(
                  "{\"customer_id\":2,\"amount\":5.00,\"ordered_at\":\"2026-08-30T10:02:00Z\"}")));
      producer.send(
          new ProducerRecord<>(
              "poison_orders",
              0,
              null,
              bytes(
                  "{\"customer_id\":1,\"amount\":2.50,\"ordered_at\":\"2026-08-30T10:03:00Z\"}")));
      producer.flush();
    }
    Map<String, List<JsonNode>> read =
        await(Map.of("poison_metrics.quarantine", poison.length, "poison_metrics", 3));
    List<JsonNode> quarantine = read.get("poison_metrics.quarantine");
    List<JsonNode> changelog = read.get("poison_metrics");
    double seconds = (System.nanoTime() - start) / 1e9;
    assertEquals(poison.length, quarantine.size(), "quarantine rows: " + quarantine);
    Map<Long, String> reasons = new TreeMap<>();
    quarantine.forEach(
        q ->
            reasons.put(
                q.get("value").get("offset").asLong(), q.get("value").get("reason").asText()));
    for (int i = 0; i < poison.length; i++) {
      assertThat("offset " + (i + 1), reasons.get((long) i + 1), containsString(poison[i][1]));
    }
    // the good records after the poison ones are processed; the repeated key changed nothing
    Map<String, List<String>> spend = new TreeMap<>();
    changelog.forEach(
        r ->
            spend
                .computeIfAbsent(r.get("value").get("customer_id").asText(), k -> new ArrayList<>())
                .add(
                    r.get("value")
                        .get("total_spend")
                        .decimalValue()
                        .stripTrailingZeros()
                        .toPlainString()));
    assertEquals(Map.of("1", List.of("10", "12.5"), "2", List.of("5")), spend, "changelog per key");
    String status = rest("GET", "/jobs/" + job, null).get("state").asText();
    assertEquals("RUNNING", status, "the job after the poison records");
    System.out.printf(
        "poison on the cluster: %d poison records quarantined, 3 good processed,"
            + " job %s, %.1f s from produce to all outputs%n",
        poison.length, status, seconds);
  }

  /**
   * ADR 0074 on the cluster: an event whose value would take its key's int64 sum outside int64 is
   * quarantined by the changelog, which applies events as they arrive there, with a reason naming
   * the column; the key goes on without it and the job keeps running (before: the job failed on
   * that offset, and again after every restart from its checkpoint).
   */
  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void anInt64SumThatWouldOverflowQuarantinesItsEventAndTheJobKeepsRunning(
      @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Path project =
        onTopicsOfItsOwn(
            dir, "overflow", sources -> sources.replace("amount: decimal(12,2)", "amount: int64"));
    String[] orders = {
      "{\"customer_id\":1,\"amount\":9223372036854775806,\"ordered_at\":\"2026-08-30T10:00:00Z\"}",
      "{\"customer_id\":1,\"amount\":5,\"ordered_at\":\"2026-08-30T10:01:00Z\"}",
      "{\"customer_id\":2,\"amount\":7,\"ordered_at\":\"2026-08-30T10:02:00Z\"}",
      "{\"customer_id\":1,\"amount\":-3,\"ordered_at\":\"2026-08-30T10:03:00Z\"}",
    };
    String job = submit(project, MODEL);
    try (KafkaProducer<byte[], byte[]> producer = producer()) {
      for (String order : orders) {
        producer.send(new ProducerRecord<>("overflow_orders", 0, null, bytes(order)));
      }
      producer.flush();
    }
    Map<String, List<JsonNode>> read =
        await(Map.of("overflow_metrics.quarantine", 1, "overflow_metrics", 3));
    List<JsonNode> quarantine = read.get("overflow_metrics.quarantine");
    List<JsonNode> changelog = read.get("overflow_metrics");
    assertEquals(1, quarantine.size(), "quarantine rows: " + quarantine);
    JsonNode row = quarantine.get(0).get("value");
    assertEquals(1, row.get("offset").asLong(), "the quarantined offset: " + row);
    assertThat(
        row.get("reason").asText(),
        containsString(
            "column `amount`: the int64 sum for `total_spend` would overflow:"
                + " 9223372036854775806 + 5 is outside int64"));
    Map<String, List<String>> totals = new TreeMap<>();
    changelog.forEach(
        r ->
            totals
                .computeIfAbsent(r.get("value").get("customer_id").asText(), k -> new ArrayList<>())
                .add(r.get("value").get("total_spend").asText()));
    assertEquals(
        Map.of("1", List.of("9223372036854775806", "9223372036854775803"), "2", List.of("7")),
        totals,
        "changelog per key");
    assertEquals("RUNNING", rest("GET", "/jobs/" + job, null).get("state").asText());
  }

  /**
   * The orders project on topics of its own — {@code <prefix>_orders} (one partition, created here)
   * in, {@code <prefix>_metrics} and its late and quarantine topics out — so that other tests'
   * records are not in them; {@code sources} edits its sources.yml.
   */
  private static Path onTopicsOfItsOwn(
      Path dir, String prefix, java.util.function.UnaryOperator<String> sources) throws Exception {
    Path project = dir.resolve(prefix + "-kafka");
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        sources.apply(
            Files.readString(PROJECT.resolve("sources.yml"))
                .replace("topic: orders", "topic: " + prefix + "_orders")));
    Files.writeString(
        project.resolve("streamform.yml"),
        Files.readString(PROJECT.resolve("streamform.yml"))
            + "    topic: "
            + prefix
            + "_metrics\n    late_topic: "
            + prefix
            + "_metrics.late\n    quarantine_topic: "
            + prefix
            + "_metrics.quarantine\n");
    Files.copy(
        PROJECT.resolve("models/customer_metrics.sql"),
        project.resolve("models/customer_metrics.sql"));
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP))) {
      admin
          .createTopics(
              List.of(
                  new org.apache.kafka.clients.admin.NewTopic(prefix + "_orders", 1, (short) 1)))
          .all()
          .get();
    }
    return project;
  }

  /**
   * Cancels every job still running on the cluster (ours: this class started it), also when a test
   * failed half-way, and waits until they have let go of their slots: the cluster's 2 slots take
   * one parallelism-2 job at a time, and the next test's job must not wait for them.
   */
  @AfterEach
  void cancelJobs() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      boolean active = false;
      for (JsonNode job : rest("GET", "/jobs", null).get("jobs")) {
        String status = job.get("status").asText();
        if (status.equals("RUNNING") || status.equals("CREATED") || status.equals("RESTARTING")) {
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create(REST + "/jobs/" + job.get("id").asText() + "?mode=cancel"))
                  .method("PATCH", HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
        }
        active |=
            !(status.equals("CANCELED") || status.equals("FINISHED") || status.equals("FAILED"));
      }
      if (!active) {
        return;
      }
      if (System.nanoTime() > deadline) {
        fail(
            "jobs still active on the cluster 60 s after cancelling them: "
                + rest("GET", "/jobs", null));
      }
      Thread.sleep(500);
    }
  }

  /**
   * Issue 32: the receipts scoring model on the cluster at parallelism 2 with its decision ledger.
   * The decisions topic holds the fixture's decisions (the same ids as the DirectRunner's run of
   * the fixture), keyed by event id; the late receipts and the dead letters are on their own
   * topics; the ledger holds one row per decision and verifies. Run again from the topic's start (a
   * replay), the job writes the same decisions to the topic — a consumer drops them by {@code
   * decision_id} — and nothing new to the ledger. The reconcile model's late receipts go to its
   * reconcile topic and the reconcile queue.
   */
  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aScoringModelOnTheClusterWithItsDecisionLedger() throws Exception {
    Project project = Project.load(RECEIPTS);
    Fixture uploads = Fixture.load(project, RECEIPTS.resolve("fixtures/offline_uploads.yml"));
    FixtureOutcome expected =
        FixtureRunner.on(RunnerChoice.direct())
            .run(DeclaredModel.of(project, "receipt_risk"), uploads);
    Map<String, String> want = new TreeMap<>(); // decision id -> event, route, revision
    Set<String> wantLate = new java.util.TreeSet<>();
    Set<String> wantDead = new java.util.TreeSet<>();
    for (FixtureOutcome.Routed r : expected.routed) {
      if (r.identity().containsKey("decision_id")) {
        want.put(
            r.identity().get("decision_id"), r.eventId() + " " + r.route() + " " + r.revision());
      } else if (r.route().equals("dead_lettered")) {
        wantDead.add(r.eventId());
      } else {
        wantLate.add(r.eventId() + " " + r.route());
      }
    }
    assertEquals(10, want.size(), "the fixture's decisions");

    try (LocalPostgres postgres = LocalPostgres.temporary()) {
      postgres.start();
      String[] database = {"--jdbc-url", postgres.jdbcUrl(), "--jdbc-user", LocalPostgres.USER};
      cli(
          "produce",
          RECEIPTS.toString(),
          RECEIPTS.resolve("fixtures/offline_uploads.yml").toString(),
          "--bootstrap-servers",
          BOOTSTRAP,
          "--partitions",
          "3");
      // time moves on in every partition: a decision is made once the source watermark passes
      // its place in the log (the end of a fixture or a file does that; a live topic needs later
      // records — here a punctuation at 12:00 on each partition)
      try (KafkaProducer<byte[], byte[]> producer = producer()) {
        for (int p = 0; p < 3; p++) {
          producer.send(
              new ProducerRecord<>(
                  "receipts",
                  p,
                  null,
                  dev.streamform.planner.sinks.JsonRecords.punctuation(
                      java.time.Instant.parse("2026-08-30T12:00:00Z"))));
        }
        producer.flush();
      }
      submit(RECEIPTS, "receipt_risk", database);
      Map<String, List<JsonNode>> read =
          await(
              Map.of(
                  "receipt_risk.decisions",
                  want.size(),
                  "receipt_risk.late",
                  wantLate.size(),
                  "receipt_risk.dead_letters",
                  wantDead.size()));
      List<JsonNode> decisions = read.get("receipt_risk.decisions");
      Map<String, String> got = new TreeMap<>();
      for (JsonNode d : decisions) {
        JsonNode v = d.get("value");
        assertEquals(
            "{\"event_id\":\"" + v.get("event_id").asText() + "\"}",
            d.get("key").toString(),
            "keyed by event id");
        got.put(
            v.get("decision_id").asText(),
            v.get("event_id").asText() + " " + v.get("route").asText() + " " + v.get("revision"));
      }
      assertEquals(want, got, "the fixture's decisions, ids included, on Flink at parallelism 2");
      Set<String> late = new java.util.TreeSet<>();
      for (JsonNode l : read.get("receipt_risk.late")) {
        late.add(
            l.get("value").get("event_id").asText() + " " + l.get("value").get("route").asText());
      }
      assertEquals(wantLate, late, "late receipts");
      Set<String> dead = new java.util.TreeSet<>();
      for (JsonNode q : read.get("receipt_risk.dead_letters")) {
        dead.add(q.get("value").get("partition") + "-" + q.get("value").get("offset"));
      }
      assertEquals(wantDead, dead, "dead letters: the skewed receipt and the one without a time");
      awaitCount(postgres, "SELECT count(*) FROM streamform.decision", want.size());
      assertEquals(
          new java.util.TreeSet<>(want.keySet()),
          new java.util.TreeSet<>(query(postgres, "SELECT decision_id FROM streamform.decision")),
          "the ledger: one row per decision");
      assertThat(
          cli(
              join(
                  new String[] {
                    "decisions", "verify", RECEIPTS.toString(), "--model", "receipt_risk"
                  },
                  database)),
          containsString("10 decisions of receipt_risk in "));

      // a replay: the same topic read again from its start by a new job
      cancelJobs();
      submit(RECEIPTS, "receipt_risk", database);
      List<JsonNode> replayed = await("receipt_risk.decisions", 2 * want.size());
      Map<String, Integer> copies = new TreeMap<>();
      replayed.forEach(
          d -> copies.merge(d.get("value").get("decision_id").asText(), 1, Integer::sum));
      assertEquals(want.keySet(), copies.keySet(), "a replay decides with the same ids");
      copies.values().forEach(n -> assertEquals(2, n, "each decision once per run"));
      Thread.sleep(5_000); // the replay's ledger writes have had their time
      assertEquals(
          List.of(String.valueOf(want.size())),
          query(postgres, "SELECT count(*) FROM streamform.decision"),
          "a replay writes nothing new to the ledger");
      cancelJobs();

      // the reconcile model: late receipts to their own topic and the reconcile queue
      submit(RECEIPTS, "receipt_risk_reconciled", database);
      List<JsonNode> reconcile = await("receipt_risk_reconciled.reconcile", 2);
      Set<String> routes = new java.util.TreeSet<>();
      reconcile.forEach(r -> routes.add(r.get("value").get("route").asText()));
      assertEquals(Set.of("reconciled"), routes, "the reconcile route");
      awaitCount(postgres, "SELECT count(*) FROM streamform.decision_reconcile", 2);
      cancelJobs();
    }
  }

  /**
   * Issue 32 item 5: the burst of offline receipt uploads ({@code examples/receipts-burst}) on the
   * cluster at parallelism 2 with its decision ledger. Three tills run live while a phone's
   * partition is silent (it goes idle after {@code idle_after}); then the phone uploads 348
   * receipts at once while the tills go on. From the files alone ({@link BurstTrace}: each
   * partition's watermark at arrival), the test knows which receipts must be scored as of
   * occurrence and which go to reconciliation, and what each uploaded receipt must read; it checks
   * that no decision made before the burst is replaced or joined by another, that the ledger holds
   * one row per decision and verifies, and prints the tills' decision latency (Kafka append time of
   * the receipt to append time of its decision) while the burst is absorbed.
   */
  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aBurstOfOfflineUploadsWhileTheTillsRunLive(@org.junit.jupiter.api.io.TempDir Path dir)
      throws Exception {
    // the example on a topic of its own, under a model name of its own (its own output topics)
    Path project = dir.resolve("receipts-burst-kafka");
    Files.createDirectories(project.resolve("models"));
    Files.writeString(
        project.resolve("sources.yml"),
        Files.readString(BURST.resolve("sources.yml"))
            .replace(
                "connector: file\n    path: \"receipts-*.jsonl\"",
                "connector: kafka\n    topic: burst_receipts\n    partitions: 4\n"
                    + "    idle_after: 5s               # the silent phone stops holding the"
                    + " watermark back"));
    Files.writeString(
        project.resolve("streamform.yml"),
        Files.readString(BURST.resolve("streamform.yml")).replace("receipt_risk:", "burst_risk:"));
    Files.copy(BURST.resolve("models/receipt_risk.sql"), project.resolve("models/burst_risk.sql"));
    Files.copy(
        BURST.resolve("models/receipt_risk.linear.yml"),
        project.resolve("models/receipt_risk.linear.yml"));
    assertThat(Files.readString(project.resolve("sources.yml")), containsString("idle_after"));

    BurstTrace trace =
        BurstTrace.of(
            BURST,
            Duration.ofMinutes(5),
            Duration.ofMinutes(10),
            Duration.ofMinutes(5),
            Duration.ofHours(1));
    Instant online = Instant.parse("2026-08-30T11:20:00Z"); // the phone comes back
    int phone = 3;
    List<BurstTrace.Receipt> before = new ArrayList<>(); // received before it came back
    List<BurstTrace.Receipt> burst = new ArrayList<>(); // its backlog, uploaded at once
    List<BurstTrace.Receipt> after = new ArrayList<>(); // everyone live again
    for (BurstTrace.Receipt r : trace.receipts) {
      if (r.receivedAt().isBefore(online)) {
        before.add(r);
      } else if (r.partition() == phone && r.occurredAt().isBefore(online)) {
        burst.add(r);
      } else {
        after.add(r);
      }
    }
    Comparator<BurstTrace.Receipt> received =
        Comparator.comparing(BurstTrace.Receipt::receivedAt)
            .thenComparingInt(BurstTrace.Receipt::partition);
    before.sort(received);
    after.sort(received);
    Set<String> wantScored = new java.util.TreeSet<>();
    Set<String> wantReconciled = new java.util.TreeSet<>();
    trace.receipts.forEach(
        r -> (r.route().equals("scored") ? wantScored : wantReconciled).add(r.eventId()));
    assertEquals(348, burst.size(), "the phone's backlog");
    assertThat("some uploads go to reconciliation", wantReconciled.isEmpty(), equalTo(false));

    try (LocalPostgres postgres = LocalPostgres.temporary();
        Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP));
        KafkaProducer<byte[], byte[]> producer = producer()) {
      postgres.start();
      String[] database = {"--jdbc-url", postgres.jdbcUrl(), "--jdbc-user", LocalPostgres.USER};
      // the broker stamps every record as it appends it: both ends of a latency on one clock
      List<org.apache.kafka.clients.admin.NewTopic> topics = new ArrayList<>();
      for (String t : List.of("burst_receipts", "burst_risk.decisions", "burst_risk.reconcile")) {
        topics.add(
            new org.apache.kafka.clients.admin.NewTopic(t, 4, (short) 1)
                .configs(Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime")));
      }
      admin.createTopics(topics).all().get();
      // -Dburst.planted=<a PlantedDefect> plants one in the job (the failing-first runs)
      try (PlantedDefect.Scope planted =
          PlantedDefect.plant(PlantedDefect.valueOf(System.getProperty("burst.planted", "NONE")))) {
        submit(project, "burst_risk", database);
      }
      Map<String, Long> appended = new TreeMap<>(); // event id -> append time of the receipt
      for (BurstTrace.Receipt r : before) {
        send(producer, r, appended);
      }
      producer.flush();
      // the phone's partition goes idle: the tills' receipts are decided without waiting for it
      long decidable =
          before.stream()
              .filter(r -> r.route().equals("scored"))
              .filter(r -> r.occurredAt().isBefore(Instant.parse("2026-08-30T11:10:00Z")))
              .count();
      Map<String, String> earlier = new TreeMap<>(); // event id -> decision id, before the burst
      for (JsonNode d : await("burst_risk.decisions", (int) decidable)) {
        earlier.put(
            d.get("value").get("event_id").asText(), d.get("value").get("decision_id").asText());
      }

      long burstStart = System.currentTimeMillis();
      for (BurstTrace.Receipt r : burst) {
        send(producer, r, appended);
      }
      producer.flush();
      for (BurstTrace.Receipt r : after) {
        send(producer, r, appended);
        producer.flush();
        Thread.sleep(150); // live: a receipt every 150 ms across the tills and the phone
      }
      for (int p = 0; p < 4; p++) {
        producer.send(
            new ProducerRecord<>(
                "burst_receipts",
                p,
                null,
                dev.streamform.planner.sinks.JsonRecords.punctuation(
                    Instant.parse("2026-08-30T12:30:00Z"))));
      }
      producer.flush();

      // every record of the topics, deduplicated by decision id (a restore may repeat one), until
      // each receipt on time by its partition's log has its decision or — its hour reaching below
      // its key's freed horizon, state freed while the phone was idle — its reconcile record with
      // that reason (ADR 0050), and each late one is reconciled
      Map<String, JsonNode> decisions = new TreeMap<>();
      Map<String, JsonNode> reconciled = new TreeMap<>(); // late, reconciled as declared
      Map<String, JsonNode> freed = new TreeMap<>(); // not late, reconciled: its hour was freed
      Map<String, JsonNode> byEvent = new TreeMap<>();
      List<String> twice = new ArrayList<>();
      long deadline = System.nanoTime() + AWAIT.toNanos();
      do {
        decisions.clear();
        reconciled.clear();
        freed.clear();
        byEvent.clear();
        twice.clear();
        for (JsonNode d : await("burst_risk.decisions", 0)) {
          decisions.putIfAbsent(d.get("value").get("decision_id").asText(), d);
        }
        for (JsonNode r : await("burst_risk.reconcile", 0)) {
          String event = r.get("value").get("event_id").asText();
          (wantReconciled.contains(event) ? reconciled : freed).putIfAbsent(event, r);
        }
        for (JsonNode d : decisions.values()) {
          JsonNode v = d.get("value");
          if (byEvent.put(v.get("event_id").asText(), d) != null) {
            twice.add(v.get("event_id").asText());
          }
        }
      } while ((byEvent.size() + freed.size() < wantScored.size()
              || reconciled.size() < wantReconciled.size())
          && System.nanoTime() < deadline);
      assertEquals(List.of(), twice, "events with a second decision: none may have one");
      Set<String> decidedOrFreed = new java.util.TreeSet<>(byEvent.keySet());
      decidedOrFreed.addAll(freed.keySet());
      assertEquals(
          wantScored,
          decidedOrFreed,
          "the receipts scored (by their partition's log), or reconciled for freed state");
      Set<String> both = new java.util.TreeSet<>(byEvent.keySet());
      both.retainAll(freed.keySet());
      assertEquals(Set.of(), both, "receipts both scored and reconciled for freed state");
      assertEquals(wantReconciled, reconciled.keySet(), "the receipts sent to reconciliation");
      Set<String> uploaded = new HashSet<>();
      burst.forEach(r -> uploaded.add(r.eventId()));
      // a late upload may name its reach freed too: its affected decisions may be incomplete
      long lateBelowHorizon =
          reconciled.values().stream().filter(r -> !r.get("value").get("reason").isNull()).count();
      for (JsonNode r : freed.values()) {
        JsonNode v = r.get("value");
        assertThat(v.toString(), v.get("route").asText(), equalTo("reconciled"));
        assertThat(v.toString(), v.get("updated_state").asBoolean(), equalTo(true));
        assertThat(v.toString(), v.get("reason").asText(), containsString("freed horizon"));
        assertThat(v.toString(), uploaded.contains(v.get("event_id").asText()), equalTo(true));
      }

      // as of occurrence: cut off at the receipt's time, reading every receipt of its hour that
      // arrived before its partition passed its time, and nothing else. While the phone was idle
      // the merchants' state was freed up to 2·range + lateness behind the tills' watermark
      // (ScoreEvents' retention): an upload whose hour reaches below that is reconciled above,
      // never scored from less than its hour (ADR 0050)
      List<String> wrong = new ArrayList<>();
      int readLess = 0;
      for (BurstTrace.Receipt r : trace.receipts) {
        JsonNode v =
            byEvent.containsKey(r.eventId()) ? byEvent.get(r.eventId()).get("value") : null;
        if (v == null) {
          continue;
        }
        if (!v.get("route").asText().equals("scored")
            || v.get("revision").asInt() != 1
            || !v.get("supersedes").isNull()
            || !Instant.parse(v.get("state_cutoff").asText()).equals(r.occurredAt())) {
          wrong.add(r.eventId() + ": " + v);
        } else if (uploaded.contains(r.eventId())) {
          double[] all = trace.featuresOf(r, null);
          double spend = v.get("features").get("spend_1h").asDouble();
          double count = v.get("features").get("receipts_1h").asDouble();
          if (Math.abs(spend - all[0]) > 1e-6 || count != all[1]) {
            wrong.add(
                r.eventId()
                    + " (uploaded, "
                    + r.occurredAt()
                    + ") read "
                    + v.get("features")
                    + "; as of occurrence it reads spend_1h="
                    + all[0]
                    + " receipts_1h="
                    + all[1]);
          }
          readLess += count < all[1] ? 1 : 0;
        }
      }
      assertEquals(List.of(), wrong, "decisions not scored as of occurrence");

      // no earlier decision overwritten: those made before the burst are the ones there now
      Map<String, String> now = new TreeMap<>();
      earlier
          .keySet()
          .forEach(e -> now.put(e, byEvent.get(e).get("value").get("decision_id").asText()));
      assertEquals(earlier, now, "the decisions made before the burst, after it");
      Set<String> affected = new java.util.TreeSet<>();
      reconciled
          .values()
          .forEach(
              r -> r.get("value").get("affected_decisions").forEach(a -> affected.add(a.asText())));
      assertThat(
          "the late uploads name decisions they would have changed",
          affected.isEmpty(),
          equalTo(false));
      Set<String> unknown = new java.util.TreeSet<>(affected);
      unknown.removeAll(decisions.keySet());
      assertEquals(Set.of(), unknown, "decisions named as affected that were never made");

      // the ledger: one row per decision, none for a second time, the reconcile queue, verified
      awaitCount(postgres, "SELECT count(*) FROM streamform.decision", decisions.size());
      assertEquals(
          new java.util.TreeSet<>(decisions.keySet()),
          new java.util.TreeSet<>(query(postgres, "SELECT decision_id FROM streamform.decision")),
          "the ledger: one row per decision");
      assertEquals(
          List.of(),
          query(
              postgres,
              "SELECT event_id FROM streamform.decision GROUP BY event_id HAVING count(*) > 1"),
          "the ledger: one decision per event");
      Set<String> queue = new java.util.TreeSet<>(wantReconciled);
      queue.addAll(freed.keySet());
      awaitCount(postgres, "SELECT count(*) FROM streamform.decision_reconcile", queue.size());
      assertEquals(
          queue,
          new java.util.TreeSet<>(
              query(postgres, "SELECT event_id FROM streamform.decision_reconcile")),
          "the reconcile queue");
      Set<String> queuedForFreedState =
          new java.util.TreeSet<>(
              query(
                  postgres,
                  "SELECT event_id FROM streamform.decision_reconcile WHERE reason LIKE"
                      + " '%freed horizon%'"));
      queuedForFreedState.removeAll(wantReconciled); // late, with their reach freed as well
      assertEquals(
          new java.util.TreeSet<>(freed.keySet()),
          queuedForFreedState,
          "the reconcile queue's rows for freed state, with their reason");
      String verified =
          cli(
              join(
                  new String[] {"decisions", "verify", project.toString(), "--model", "burst_risk"},
                  database));
      assertThat(verified, containsString(decisions.size() + " decisions of burst_risk in "));
      assertThat(verified, containsString("every supersedes chain whole"));

      // latency of the tills while the burst is absorbed: append of a receipt -> of its decision
      List<Long> live = new ArrayList<>();
      long absorbed = burstStart;
      for (BurstTrace.Receipt r : after) {
        JsonNode d = byEvent.get(r.eventId());
        if (r.partition() != phone && d != null) {
          live.add(d.get("timestamp").asLong() - appended.get(r.eventId()));
        }
      }
      for (BurstTrace.Receipt r : burst) {
        JsonNode d =
            byEvent.containsKey(r.eventId())
                ? byEvent.get(r.eventId())
                : reconciled.containsKey(r.eventId())
                    ? reconciled.get(r.eventId())
                    : freed.get(r.eventId());
        absorbed = Math.max(absorbed, d.get("timestamp").asLong());
      }
      long p50 = BurstTrace.percentile(live, 50);
      long p99 = BurstTrace.percentile(live, 99);
      System.out.printf(
          "burst on the cluster: %d receipts, %d uploaded at once after %d before; %d scored as of"
              + " occurrence, %d late to reconciliation (naming %d earlier decisions, none"
              + " replaced; %d of them naming the freed horizon too); %d uploads on time reconciled"
              + " because their hour reached below the freed horizon (state freed while the phone"
              + " was idle); %d uploads scored reading"
              + " fewer receipts than their hour had; %d decisions before the burst unchanged;"
              + " burst absorbed %.1f s after its first record; tills' decision latency meanwhile"
              + " (%d receipts): P50 %d ms, P99 %d ms, max %d ms%n",
          trace.receipts.size(),
          burst.size(),
          before.size(),
          byEvent.size(),
          reconciled.size(),
          affected.size(),
          lateBelowHorizon,
          freed.size(),
          readLess,
          earlier.size(),
          (absorbed - burstStart) / 1000.0,
          live.size(),
          p50,
          p99,
          java.util.Collections.max(live));
      assertThat(
          "P99 of the tills' decision latency under 30 s: " + p99 + " ms",
          p99 < 30_000,
          equalTo(true));
      cancelJobs();
    }
  }

  /** Produces {@code r} to its partition; records the broker's append time under its event id. */
  private static void send(
      KafkaProducer<byte[], byte[]> producer, BurstTrace.Receipt r, Map<String, Long> appended) {
    producer.send(
        new ProducerRecord<>("burst_receipts", r.partition(), null, r.line()),
        (metadata, error) -> {
          if (error == null) {
            synchronized (appended) {
              appended.put(r.eventId(), metadata.timestamp());
            }
          }
        });
  }

  /** Waits until {@code sql} (a count) reaches {@code count}. */
  private static void awaitCount(LocalPostgres postgres, String sql, int count) throws Exception {
    long deadline = System.nanoTime() + AWAIT.toNanos();
    List<String> now = List.of();
    while (System.nanoTime() < deadline) {
      try {
        now = query(postgres, sql);
      } catch (java.sql.SQLException notYet) {
        now = List.of("0"); // the job's sink migrates the schema; retried
      }
      if (Long.parseLong(now.get(0)) >= count) {
        return;
      }
      checkNoJobFailed();
      Thread.sleep(500);
    }
    fail(sql + ": " + now + " after " + AWAIT + ", expected " + count);
  }

  @Test
  @Timeout(value = 7, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void windowedRevisionsFinalsAndTooLateEventsOnTheCluster() throws Exception {
    Project project = Project.load(WINDOWED);
    Fixture hourly = Fixture.load(project, WINDOWED.resolve("fixtures/hourly.yml"));

    try (LocalPostgres postgres = LocalPostgres.temporary()) {
      postgres.start();
      String[] database = {"--jdbc-url", postgres.jdbcUrl(), "--jdbc-user", LocalPostgres.USER};
      cli(
          "produce",
          WINDOWED.toString(),
          WINDOWED.resolve("fixtures/hourly.yml").toString(),
          "--bootstrap-servers",
          BOOTSTRAP,
          "--partitions",
          "3");
      submit(WINDOWED, WINDOWED_MODEL, database);
      windowTopics(project, hourly);
      revisionLedger(postgres, hourly, database);
      // the cluster's 2 slots take one parallelism-2 job: generation 1 has written everything the
      // fixture implies, so it stops here (in production the shadow job runs beside the live one)
      cancelJobs();
      shadowGenerationComparedPromotedAndRolledBack(postgres, hourly, database);
    }
  }

  /**
   * Issue 35: calendar days in Europe/Berlin on the cluster at parallelism 2. The 25-hour day's
   * revisions, its correction after local midnight, the too-late refund and the next day come out
   * on the topics as the fixture (which passes on the DirectRunner first) says, with the local date
   * in {@code window_local} and the zone in the window's identity.
   */
  @Test
  @Timeout(value = 7, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void calendarDaysInBerlinOnTheCluster() throws Exception {
    Project project = Project.load(BERLIN);
    Fixture berlin = Fixture.load(project, BERLIN.resolve("fixtures/berlin.yml"));
    cli("test", BERLIN.toString()); // the fixture passes on the DirectRunner
    cli(
        "produce",
        BERLIN.toString(),
        BERLIN.resolve("fixtures/berlin.yml").toString(),
        "--bootstrap-servers",
        BOOTSTRAP,
        "--partitions",
        "3");
    submit(BERLIN, "daily_revenue");
    Map<String, List<JsonNode>> read =
        await(
            Map.of(
                "daily_revenue", berlin.expect().size(),
                "daily_revenue.late", berlin.late().size()));
    List<JsonNode> records = read.get("daily_revenue");
    Map<String, List<Map<String, Object>>> expected = byWindow(windowRows(berlin.expect()));
    assertEquals(
        expected,
        onFieldsOf(expected, byWindow(windowRecords(records))),
        "revisions and finals per (key, window), in order");
    for (JsonNode r : records) {
      JsonNode v = r.get("value");
      String start = v.get("window_start").asText();
      assertEquals(
          start.startsWith("2026-10-24T22:00") ? "2026-10-25" : "2026-10-26",
          v.get("window_local").asText(),
          "the local date of " + start);
      assertEquals(
          dev.streamform.core.digest.RevisionIdentity.logicalWindowId(
              "daily_revenue",
              Map.of("merchant_id", v.get("merchant_id").asLong()),
              java.time.Instant.parse(start),
              java.time.Instant.parse(v.get("window_end").asText()),
              "Europe/Berlin"),
          v.get("logical_window_id").asText(),
          "the zone is in the window's identity");
    }
    List<JsonNode> late = read.get("daily_revenue.late");
    List<Map<String, Object>> refused = lateRecords(late);
    for (int i = 0; i < late.size(); i++) {
      refused.get(i).put("window_start", late.get(i).get("value").get("window_start").asText());
    }
    assertEquals(sorted(windowRows(berlin.late())), sorted(refused), "too-late events");
    System.out.println(
        "calendar on the cluster: "
            + records.size()
            + " window records, "
            + late.size()
            + " late, as the fixture says");
  }

  /**
   * The rollout (docs/semantics.md §8 and §9, the seed's rollout paragraph) on the same topic,
   * cluster and database: a copy of the project with a longer watermark (60m instead of 5m) and
   * generation 2 is run with {@code --shadow}, recomputing the topic's retained offsets into
   * generation 2's own projections; {@code compare-generations --from 1 --to 2} reports what the
   * two policies' oracles imply; {@code alias set --generation 2} promotes it, {@code alias set
   * --generation 1} rolls back — and every revision either generation published is still in the
   * ledger, which verifies.
   */
  private void shadowGenerationComparedPromotedAndRolledBack(
      LocalPostgres postgres, Fixture hourly, String[] database) throws Exception {
    Path shadow = Files.createTempDirectory("payments-kafka-generation-2");
    copyProject(WINDOWED, shadow);
    Path sources = shadow.resolve("sources.yml");
    String longer =
        Files.readString(sources).replace("    watermark: 5m\n", "    watermark: 60m\n");
    assertThat("the copy's watermark is longer", longer.contains("watermark: 60m"), equalTo(true));
    Files.writeString(sources, longer);
    Path models = shadow.resolve("streamform.yml");
    String declared =
        Files.readString(models).replace("    window: 1h\n", "    window: 1h\n    generation: 2\n");
    assertThat("the copy declares generation 2", declared.contains("generation: 2"), equalTo(true));
    Files.writeString(models, declared);

    // what each policy implies for the fixture's events: the oracle of each project
    Map<String, WindowedOutcome.Row> gen1 = lastRevisions(WINDOWED, hourly);
    Project shadowProject = Project.load(shadow);
    Map<String, WindowedOutcome.Row> gen2 =
        lastRevisions(shadow, Fixture.load(shadowProject, shadow.resolve("fixtures/hourly.yml")));
    assertThat(
        "the longer watermark changes how some window got to its values",
        gen1.keySet().stream()
            .anyMatch(w -> gen2.containsKey(w) && gen1.get(w).revision() != gen2.get(w).revision()),
        equalTo(true));

    String before = ledgerRows(postgres, 1);
    String shadowErr =
        cliErr(
            join(
                new String[] {
                  "run",
                  shadow.toString(),
                  "--model",
                  WINDOWED_MODEL,
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
                  "--detach",
                  "--shadow"
                },
                database));
    assertThat(
        shadowErr,
        shadowErr.contains("shadow run of generation 2: revisions go only to"),
        equalTo(true));
    assertThat(shadowErr, shadowErr.contains("no topic is written"), equalTo(true));
    assertThat(
        shadowErr, shadowErr.contains("the canonical alias stays at generation 1"), equalTo(true));

    // wait until generation 2 has every window final
    long deadline = System.nanoTime() + AWAIT.toNanos();
    int finals = 0;
    while (System.nanoTime() < deadline && finals < gen2.size()) {
      finals =
          Integer.parseInt(
              query(
                      postgres,
                      "SELECT count(*) FROM streamform.projection WHERE model = '"
                          + WINDOWED_MODEL
                          + "' AND generation = 2 AND status = 'final'")
                  .get(0));
      checkNoJobFailed();
      Thread.sleep(500);
    }
    assertEquals(gen2.size(), finals, "generation 2's windows final in the ledger");
    assertEquals(
        List.of("1"),
        query(
            postgres,
            "SELECT generation FROM streamform.canonical_alias WHERE model = '"
                + WINDOWED_MODEL
                + "'"),
        "the shadow run did not move the alias");
    assertEquals(
        hourly.expect().size(),
        await(WINDOWED_MODEL, hourly.expect().size()).size(),
        "the shadow run wrote nothing to the window topic");
    assertEquals(before, ledgerRows(postgres, 1), "the shadow run did not touch generation 1");

    // compare: per window, equal when the two policies' last revisions have the same values
    Map<String, Integer> counts =
        new TreeMap<>(Map.of("equal", 0, "different", 0, "only1", 0, "only2", 0));
    Set<String> windows = new java.util.TreeSet<>(gen1.keySet());
    windows.addAll(gen2.keySet());
    for (String w : windows) {
      String kind =
          !gen1.containsKey(w)
              ? "only2"
              : !gen2.containsKey(w)
                  ? "only1"
                  : gen1.get(w).aggregateDigest().equals(gen2.get(w).aggregateDigest())
                      ? "equal"
                      : "different";
      counts.merge(kind, 1, Integer::sum);
    }
    LocalServices.Ran compare =
        LocalServices.ran(
            join(
                new String[] {
                  "compare-generations",
                  shadow.toString(),
                  "--model",
                  WINDOWED_MODEL,
                  "--from",
                  "1",
                  "--to",
                  "2"
                },
                database));
    String compared = compare.out();
    assertThat(
        compared,
        compared.endsWith(
            windows.size()
                + " windows: "
                + counts.get("equal")
                + " equal, "
                + counts.get("different")
                + " different, "
                + counts.get("only1")
                + " only in generation 1, "
                + counts.get("only2")
                + " only in generation 2\n"),
        equalTo(true));
    assertEquals(
        counts.get("equal") == windows.size() ? 0 : 3,
        compare.status(),
        "exit status of compare-generations: " + compare.err());
    for (String w : windows) {
      if (gen1.containsKey(w) && gen2.containsKey(w)) {
        WindowedOutcome.Row a = gen1.get(w);
        WindowedOutcome.Row b = gen2.get(w);
        String at =
            "merchant_id="
                + a.key().get("merchant_id")
                + " ["
                + a.windowStart()
                + ", "
                + a.windowEnd()
                + "): ";
        String line =
            compared
                .lines()
                .filter(l -> l.startsWith(at))
                .findFirst()
                .orElse("(no line for " + at + ")");
        boolean equal = a.aggregateDigest().equals(b.aggregateDigest());
        assertThat(
            line, line.startsWith(at + (equal ? "equal — " : "different — ")), equalTo(true));
        assertThat(
            line,
            equal
                ? line.endsWith(
                    "(generation 1 revision "
                        + a.revision()
                        + " final, generation 2 revision "
                        + b.revision()
                        + " final)")
                : line.contains("(revision " + a.revision() + " final); generation 2: ")
                    && line.endsWith("(revision " + b.revision() + " final)"),
            equalTo(true));
      }
    }

    // promote, then roll back: alias moves only
    cli(
        join(
            new String[] {
              "alias", "set", shadow.toString(), "--model", WINDOWED_MODEL, "--generation", "2"
            },
            database));
    assertEquals(
        canonicalFrom(gen2, 2), canonical(postgres), "the canonical view shows generation 2");
    cli(
        join(
            new String[] {
              "alias", "set", WINDOWED.toString(), "--model", WINDOWED_MODEL, "--generation", "1"
            },
            database));
    assertEquals(
        canonicalFrom(gen1, 1),
        canonical(postgres),
        "rolled back: the canonical view shows generation 1");

    // every revision either generation published is still in the ledger, as each oracle implies
    Set<String> published = new java.util.TreeSet<>();
    for (Path p : List.of(WINDOWED, shadow)) {
      Project pr = Project.load(p);
      for (WindowedOutcome.Row r :
          WindowedOracle.of(dev.streamform.planner.DeclaredModel.of(pr, WINDOWED_MODEL))
              .run(Fixture.load(pr, p.resolve("fixtures/hourly.yml")))
              .rows()) {
        if (r.status() == WindowStatus.ON_TIME || r.status() == WindowStatus.CORRECTED) {
          published.add(r.projectionId() + " " + r.revision() + " " + r.aggregateDigest());
        }
      }
    }
    assertEquals(
        published,
        new java.util.TreeSet<>(
            query(
                postgres,
                "SELECT projection_id || ' ' || revision || ' ' || aggregate_digest FROM"
                    + " streamform.correction_ledger")),
        "every published revision of both generations is in the ledger");
    assertEquals(before, ledgerRows(postgres, 1), "generation 1's ledger rows are unchanged");
    assertEquals(
        List.of("1 null first write", "2 1 alias set", "1 2 alias set"),
        query(
            postgres,
            "SELECT generation || ' ' || coalesce(previous_generation::text, 'null') || ' ' ||"
                + " set_by FROM streamform.canonical_alias_history ORDER BY set_at, generation"),
        "the alias history");
    String verified =
        cli(
            join(
                new String[] {"ledger", "verify", WINDOWED.toString(), "--model", WINDOWED_MODEL},
                database));
    assertThat(
        verified,
        verified.endsWith(
            (gen1.size() + gen2.size())
                + " projections, "
                + published.size()
                + " revisions, 0 gaps, 0 mismatches, 0 conflicts\n"),
        equalTo(true));
  }

  /** Per window ({@code key@start}), the last revision the oracle of the project's model gives. */
  private static Map<String, WindowedOutcome.Row> lastRevisions(Path dir, Fixture fixture)
      throws Exception {
    Project project = Project.load(dir);
    Map<String, WindowedOutcome.Row> last = new TreeMap<>();
    for (WindowedOutcome.Row r :
        WindowedOracle.of(dev.streamform.planner.DeclaredModel.of(project, WINDOWED_MODEL))
            .run(fixture)
            .rows()) {
      if (r.status() == WindowStatus.ON_TIME || r.status() == WindowStatus.CORRECTED) {
        last.put(r.key().get("merchant_id") + "@" + r.windowStart(), r);
      }
    }
    return last;
  }

  /**
   * The canonical view as {@code key@start generation revision digest final}, what {@link
   * #canonical} reads.
   */
  private static Map<String, String> canonicalFrom(
      Map<String, WindowedOutcome.Row> last, int generation) {
    Map<String, String> out = new TreeMap<>();
    last.forEach(
        (w, r) ->
            out.put(w, generation + " " + r.revision() + " " + r.aggregateDigest() + " final"));
    return out;
  }

  private static Map<String, String> canonical(LocalPostgres postgres) throws Exception {
    Map<String, String> out = new TreeMap<>();
    for (String row :
        query(
            postgres,
            "SELECT (window_key->>'merchant_id') || '@' || to_char(window_start AT TIME ZONE 'UTC',"
                + " 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') || '|' || generation || ' ' || revision || '"
                + " ' || aggregate_digest || ' ' || status FROM streamform.canonical_projection"
                + " WHERE model = '"
                + WINDOWED_MODEL
                + "'")) {
      int bar = row.indexOf('|');
      out.put(row.substring(0, bar), row.substring(bar + 1));
    }
    return out;
  }

  /** Generation {@code g}'s ledger rows, every column, in one string. */
  private static String ledgerRows(LocalPostgres postgres, int g) throws Exception {
    return String.join(
        "\n",
        query(
            postgres,
            "SELECT l.projection_id || ' ' || l.revision || ' ' || l.aggregate_digest || ' ' ||"
                + " l.offsets::text || ' ' || l.recorded_at FROM streamform.correction_ledger l"
                + " JOIN streamform.projection p USING (projection_id) WHERE p.generation = "
                + g
                + " ORDER BY 1"));
  }

  /** The first column of each row of {@code sql}, as text. */
  static List<String> query(LocalPostgres postgres, String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (java.sql.Connection c =
            java.sql.DriverManager.getConnection(postgres.jdbcUrl(), LocalPostgres.USER, "");
        java.sql.ResultSet r = c.createStatement().executeQuery(sql)) {
      while (r.next()) {
        out.add(r.getString(1));
      }
    }
    return out;
  }

  private static void copyProject(Path from, Path to) throws IOException {
    try (java.util.stream.Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  /**
   * Kafka -> Flink cluster (parallelism 2) -> PostgreSQL: the revision ledger verifies clean, and
   * the canonical view holds each window's final values — the fixture's final rows, which
   * WindowedOracle agrees with.
   */
  private static void revisionLedger(LocalPostgres postgres, Fixture hourly, String[] database)
      throws Exception {
    List<Map<String, Object>> finals = new ArrayList<>();
    for (Map<String, Object> row : windowRows(hourly.expect())) {
      if ("final".equals(String.valueOf(row.get("status")))) {
        finals.add(row);
      }
    }
    Map<String, String> expected = new java.util.TreeMap<>();
    for (Map<String, Object> row : finals) {
      expected.put(
          row.get("merchant_id")
              + "@"
              + java.time.Instant.parse(String.valueOf(row.get("window_start"))),
          "revision "
              + row.get("revision")
              + " revenue "
              + new java.math.BigDecimal(String.valueOf(row.get("revenue")))
                  .stripTrailingZeros()
                  .toPlainString()
              + " orders "
              + row.get("orders"));
    }
    Map<String, String> canonical = new java.util.TreeMap<>();
    long deadline = System.nanoTime() + AWAIT.toNanos();
    while (System.nanoTime() < deadline) {
      canonical.clear();
      try (java.sql.Connection c =
              java.sql.DriverManager.getConnection(postgres.jdbcUrl(), LocalPostgres.USER, "");
          java.sql.ResultSet r =
              c.createStatement()
                  .executeQuery(
                      "SELECT window_key->>'merchant_id', window_start, revision,"
                          + " aggregate_values->>'revenue', aggregate_values->>'orders' FROM"
                          + " streamform.canonical_projection WHERE model = '"
                          + WINDOWED_MODEL
                          + "' AND status = 'final'")) {
        while (r.next()) {
          canonical.put(
              r.getString(1) + "@" + r.getTimestamp(2).toInstant(),
              "revision "
                  + r.getInt(3)
                  + " revenue "
                  + new java.math.BigDecimal(r.getString(4)).stripTrailingZeros().toPlainString()
                  + " orders "
                  + r.getString(5));
        }
      } catch (java.sql.SQLException notYet) {
        // the job creates nothing: `run` migrated the schema; a failed query is retried
      }
      if (canonical.size() >= expected.size()) {
        break;
      }
      checkNoJobFailed();
      Thread.sleep(500);
    }
    assertEquals(expected, canonical, "the canonical view holds every window's final values");
    String verified =
        cli(
            join(
                new String[] {"ledger", "verify", WINDOWED.toString(), "--model", WINDOWED_MODEL},
                database));
    assertThat(verified, verified.contains(expected.size() + " projections, "), equalTo(true));
    assertThat(verified, verified.contains(" 0 gaps, 0 mismatches, 0 conflicts"), equalTo(true));
  }

  private static String[] join(String[] a, String[] b) {
    List<String> all = new ArrayList<>(List.of(a));
    all.addAll(List.of(b));
    return all.toArray(String[]::new);
  }

  /** The window topic and the late topic of the windowed story. */
  private static void windowTopics(Project project, Fixture hourly) throws Exception {
    Map<String, List<JsonNode>> read =
        await(
            Map.of(
                WINDOWED_MODEL,
                hourly.expect().size(),
                WINDOWED_MODEL + ".late",
                hourly.late().size()));
    List<JsonNode> records = read.get(WINDOWED_MODEL);
    for (JsonNode r : records) {
      JsonNode value = r.get("value");
      assertEquals(
          "{\"merchant_id\":"
              + value.get("merchant_id")
              + ",\"window_start\":"
              + value.get("window_start")
              + "}",
          r.get("key").toString(),
          "keyed by key and window");
    }
    Map<String, List<Map<String, Object>>> expected = byWindow(windowRows(hourly.expect()));
    assertEquals(
        expected,
        onFieldsOf(expected, byWindow(windowRecords(records))),
        "previews, revisions and finals per (key, window), in order");
    List<JsonNode> late = read.get(WINDOWED_MODEL + ".late");
    List<Map<String, Object>> refused = lateRecords(late);
    for (int i = 0; i < late.size(); i++) {
      refused.get(i).put("window_start", late.get(i).get("value").get("window_start").asText());
    }
    assertEquals(sorted(windowRows(hourly.late())), sorted(refused), "too-late events");
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP))) {
      ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, WINDOWED_MODEL);
      assertEquals(
          "delete",
          admin
              .describeConfigs(List.of(topic))
              .all()
              .get()
              .get(topic)
              .get(TopicConfig.CLEANUP_POLICY_CONFIG)
              .value(),
          "every revision is kept: not compacted");
    }
  }

  /** {@code streamform run --detach} of the upsert model on the cluster; returns the job id. */
  private static String submit(String... more) throws Exception {
    return submit(PROJECT, MODEL, more);
  }

  /** {@code streamform run --detach} on the cluster at parallelism 2; returns the job id. */
  private static String submit(Path project, String model, String... more) throws Exception {
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
                LocalServices.FLINK_MASTER,
                "--parallelism",
                "2",
                "--checkpointing-interval",
                "5000",
                "--bootstrap-servers",
                BOOTSTRAP,
                "--detach"));
    args.addAll(List.of(more));
    String out = cli(args.toArray(String[]::new)).trim();
    assertThat("a job id", out.matches("[0-9a-f]{32}"), equalTo(true));
    return out;
  }

  /** Stops {@code job} with a savepoint through Flink's REST API; returns its location. */
  private static String stopWithSavepoint(String job) throws Exception {
    JsonNode trigger = rest("POST", "/jobs/" + job + "/stop", "{\"drain\":false}");
    String id = trigger.get("request-id").asText();
    long deadline = System.nanoTime() + AWAIT.toNanos();
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
    return fail("no savepoint within " + AWAIT);
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

  /** Fails at once with the cluster's reason when a job of this test failed. */
  private static void checkNoJobFailed() throws Exception {
    for (JsonNode job : rest("GET", "/jobs", null).get("jobs")) {
      if (job.get("status").asText().equals("FAILED")) {
        JsonNode exceptions = rest("GET", "/jobs/" + job.get("id").asText() + "/exceptions", null);
        fail(
            "job "
                + job.get("id").asText()
                + " failed on the cluster: "
                + exceptions
                    .path("root-exception")
                    .asText()
                    .lines()
                    .limit(5)
                    .reduce("", (x, y) -> x + "\n" + y));
      }
    }
  }

  /**
   * Reads {@code topic} from the start until it holds {@code count} records (then a moment more).
   */
  private static List<JsonNode> await(String topic, int count) throws Exception {
    return await(Map.of(topic, count)).get(topic);
  }

  /**
   * Reads every topic of {@code counts} from the start, in one consumer, until each holds its count
   * of records, then 3 s more to catch any extra record: once for all of them, not once per topic
   * one after the other. Topic to its records.
   */
  private static Map<String, List<JsonNode>> await(Map<String, Integer> counts) throws Exception {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    Map<String, List<JsonNode>> read = new TreeMap<>();
    counts.keySet().forEach(t -> read.put(t, new ArrayList<>()));
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String topic : counts.keySet()) {
        consumer
            .partitionsFor(topic, Duration.ofSeconds(20))
            .forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + AWAIT.toNanos();
      long settle = Long.MAX_VALUE;
      while (System.nanoTime() < Math.min(deadline, settle)) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          read.get(r.topic())
              .add(
                  JSON.readTree(
                      "{\"timestamp\":"
                          + r.timestamp()
                          + ",\"key\":"
                          + new String(r.key(), StandardCharsets.UTF_8)
                          + ",\"value\":"
                          + new String(r.value(), StandardCharsets.UTF_8)
                          + "}"));
        }
        checkNoJobFailed();
        if (settle == Long.MAX_VALUE
            && counts.entrySet().stream()
                .allMatch(c -> read.get(c.getKey()).size() >= c.getValue())) {
          settle = System.nanoTime() + Duration.ofSeconds(3).toNanos(); // catch any extra record
        }
      }
    }
    for (Map.Entry<String, Integer> c : counts.entrySet()) {
      List<JsonNode> records = read.get(c.getKey());
      if (records.size() < c.getValue()) {
        fail(
            c.getKey()
                + ": "
                + records.size()
                + " records after "
                + AWAIT
                + ", expected "
                + c.getValue()
                + ": "
                + records);
      }
    }
    return read;
  }

  private static List<Map<String, Object>> lateRecords(List<JsonNode> late) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (JsonNode r : late) {
      Map<String, Object> row = new LinkedHashMap<>();
      r.get("value")
          .get("record")
          .fields()
          .forEachRemaining(
              f ->
                  row.put(
                      f.getKey(),
                      f.getValue().isNumber()
                          ? f.getValue().decimalValue()
                          : f.getValue().asText()));
      out.add(normalized(row));
    }
    return out;
  }

  /** Window records as rows {window_start, window_end, columns..., revision, status, identity}. */
  private static List<Map<String, Object>> windowRecords(List<JsonNode> records) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (JsonNode r : records) {
      Map<String, Object> row = new LinkedHashMap<>();
      r.get("value")
          .fields()
          .forEachRemaining(
              f ->
                  row.put(
                      f.getKey(),
                      f.getValue().isNumber()
                          ? f.getValue().decimalValue()
                          : f.getValue().isContainerNode()
                              ? f.getValue().toString()
                              : f.getValue().asText()));
      out.add(normalized(row));
    }
    return out;
  }

  /**
   * A windowed fixture's rows as {@link #windowRecords} shows them: only the fields a row gives, so
   * the records are compared on those (their other identity fields have their unit tests).
   */
  private static List<Map<String, Object>> windowRows(List<Fixture.Row> rows) {
    List<Map<String, Object>> out = new ArrayList<>(expected(rows));
    for (int i = 0; i < rows.size(); i++) {
      Fixture.Row r = rows.get(i);
      Map<String, Object> row = out.get(i);
      r.windowStart().ifPresent(t -> row.put("window_start", t.toString()));
      r.windowEnd().ifPresent(t -> row.put("window_end", t.toString()));
      r.revision().ifPresent(n -> row.put("revision", String.valueOf(n)));
      r.status().ifPresent(s -> row.put("status", s.yamlName()));
      r.predecessor().ifPresent(n -> row.put("predecessor", String.valueOf(n)));
      r.offsets()
          .ifPresent(
              offsets -> {
                Map<String, Object> json = new LinkedHashMap<>();
                new TreeMap<>(offsets)
                    .forEach(
                        (partition, o) -> {
                          Map<String, Long> range = new LinkedHashMap<>();
                          range.put("min", o.min());
                          range.put("max", o.max());
                          range.put("count", o.count());
                          json.put(String.valueOf(partition), range);
                        });
                row.put("offsets", JSON.valueToTree(json).toString());
              });
    }
    return out;
  }

  /** Rows per (key, window), in topic order within each: the order docs/semantics.md §6 asserts. */
  private static Map<String, List<Map<String, Object>>> byWindow(List<Map<String, Object>> rows) {
    Map<String, List<Map<String, Object>>> out = new TreeMap<>();
    rows.forEach(
        r ->
            out.computeIfAbsent(
                    r.get("merchant_id") + " " + r.get("window_start"), k -> new ArrayList<>())
                .add(r));
    return out;
  }

  /**
   * {@code actual} with each record cut to the fields of the expected row at its place: identity
   * fields a fixture row leaves out (the hashes; predecessor and offsets where not given) are not
   * compared here — ModelSinksTest and RevisionIdentityTest pin them.
   */
  private static Map<String, List<Map<String, Object>>> onFieldsOf(
      Map<String, List<Map<String, Object>>> expected,
      Map<String, List<Map<String, Object>>> actual) {
    Map<String, List<Map<String, Object>>> out = new TreeMap<>();
    actual.forEach(
        (window, rows) -> {
          List<Map<String, Object>> want = expected.getOrDefault(window, List.of());
          List<Map<String, Object>> cut = new ArrayList<>();
          for (int i = 0; i < rows.size(); i++) {
            Map<String, Object> row = new TreeMap<>(rows.get(i));
            if (i < want.size()) {
              row.keySet().retainAll(want.get(i).keySet());
            }
            cut.add(row);
          }
          out.put(window, cut);
        });
    return out;
  }

  private static List<String> sorted(List<Map<String, Object>> rows) {
    List<String> out = new ArrayList<>();
    rows.forEach(r -> out.add(r.toString()));
    out.sort(null);
    return out;
  }

  /** Runs the command line, which must succeed; returns what it printed on stderr. */
  private static KafkaProducer<byte[], byte[]> producer() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP);
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Issue 33 end to end (see {@link RolloutStory}): a wrong generation 2 in the shadow, a 5% canary
   * by key, the effects paused and a rollback — no reward sent twice or for generation 2, every
   * ledger row kept, {@code gates} failing generation 2 and passing generation 1.
   */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aWrongGenerationCanariedPausedAndRolledBack(@org.junit.jupiter.api.io.TempDir Path dir)
      throws Exception {
    RolloutStory.run(dir);
  }

  private static final Path EFFECT_PARTS =
      Path.of("src/test/resources/payments-effects").toAbsolutePath();

  /**
   * Issue 13 end to end: the hourly-revenue model with a reward rule ({@code revenue >= 28}) runs
   * on the cluster into PostgreSQL, which prepares the reward in the transaction of the revision
   * that makes the rule true; {@code streamform dispatch} delivers it to the local provider, whose
   * first answer is lost (UNKNOWN), resolved by the receipt query (DONE); then a late refund
   * corrects the hour below the target: a compensation record, never a second reward. The provider
   * counts exactly one reward for the one rewarded window, and {@code effects verify} finds no
   * problem.
   */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aRewardHappensOnceAcrossALostAnswerAndALateRefund(@org.junit.jupiter.api.io.TempDir Path dir)
      throws Exception {
    try (dev.streamform.sink.effects.LocalProviderServer provider =
            dev.streamform.sink.effects.LocalProviderServer.start(0);
        LocalPostgres postgres = LocalPostgres.temporary()) {
      postgres.start();
      // a second delivery of the reward must show as a second effect, not be deduplicated away
      provider.dedupe(false);
      Path project = dir.resolve("payments-effects");
      copyProject(WINDOWED, project);
      Path sources = project.resolve("sources.yml");
      Files.writeString(
          sources, Files.readString(sources).replace("topic: payments", "topic: payments_effects"));
      Path models = project.resolve("streamform.yml");
      Files.writeString(
          models,
          Files.readString(models)
              + "    topic: hourly_revenue_effects\n"
              + "    late_topic: hourly_revenue_effects.late\n"
              + "    quarantine_topic: hourly_revenue_effects.quarantine\n"
              + "    effects:\n"
              + "      - type: reward\n"
              + "        subject: merchant_id\n"
              + "        when: \"revenue >= 28\"\n"
              + "        provider: {kind: webhook, url: \""
              + provider.url()
              + "\", idempotency: key, receipts: true}\n");
      String[] database = {"--jdbc-url", postgres.jdbcUrl(), "--jdbc-user", LocalPostgres.USER};
      String[] model = {"--model", WINDOWED_MODEL};

      cli(
          "produce",
          project.toString(),
          EFFECT_PARTS.resolve("part1.yml").toString(),
          "--bootstrap-servers",
          BOOTSTRAP,
          "--partitions",
          "3");
      submit(project, WINDOWED_MODEL, database);
      List<String> effects =
          awaitRows(
              postgres,
              "SELECT state || ' ' || subject::text || ' ' || to_char(p.window_start AT TIME ZONE"
                  + " 'UTC', 'YYYY-MM-DD\"T\"HH24:MI') FROM streamform.effect e JOIN"
                  + " streamform.projection p ON p.logical_window_id = e.logical_window_id AND"
                  + " p.generation = e.generation ORDER BY 1",
              1);
      assertEquals(
          List.of("PREPARED 1 2026-08-30T10:00"),
          effects,
          "one reward prepared: merchant 1's 10:00 hour, revenue 30");

      provider.loseAnswers(1);
      String first =
          cli(
              join(
                  join(
                      new String[] {"dispatch", project.toString(), "--once", "--name", "e2e"},
                      model),
                  database));
      assertThat(first, first, containsString("1 claimed, 0 done, 1 unknown"));
      assertEquals(
          1,
          provider.requests(),
          "the provider got the reward and applied it; its answer was lost");
      String second =
          cli(
              join(
                  join(
                      new String[] {"dispatch", project.toString(), "--once", "--name", "e2e"},
                      model),
                  database));
      assertThat(second, second, containsString("1 resolved by receipt"));
      assertEquals(List.of("DONE"), query(postgres, "SELECT state FROM streamform.effect"));

      cli(
          "produce",
          project.toString(),
          EFFECT_PARTS.resolve("part2.yml").toString(),
          "--bootstrap-servers",
          BOOTSTRAP,
          "--partitions",
          "3");
      List<String> compensations =
          awaitRows(postgres, "SELECT reason FROM streamform.effect_compensation", 1);
      assertEquals(
          List.of("rule_false"), compensations, "the refund made the rule false after DONE");
      awaitRows(
          postgres,
          "SELECT projection_id FROM streamform.canonical_projection WHERE status = 'final'",
          6);
      String third =
          cli(
              join(
                  join(
                      new String[] {"dispatch", project.toString(), "--once", "--name", "e2e"},
                      model),
                  database));
      assertThat(third, third, containsString("0 claimed, 0 done"));

      assertEquals(
          1, provider.appliedPerKey().size(), "one rewarded window: " + provider.appliedPerKey());
      assertEquals(
          List.of(1), List.copyOf(provider.appliedPerKey().values()), "exactly one reward per key");
      assertEquals(1, provider.requests(), "no second delivery");
      assertEquals(
          List.of(1), List.copyOf(provider.requestsPerKey().values()), "one request per key");
      String verified =
          cli(join(join(new String[] {"effects", "verify", project.toString()}, model), database));
      assertThat(
          verified,
          verified,
          containsString(
              "1 effect: 1 done, 0 unknown, 0 prepared, 0 dispatching, 0 cancelled;"
                  + " 1 dispatch, 1 open compensation; 0 problems"));
      System.out.println(
          "effects end to end: provider "
              + provider.appliedPerKey()
              + ", "
              + provider.requests()
              + " deliveries; "
              + verified.trim());
    }
  }

  /**
   * Polls {@code sql} until it returns at least {@code count} rows; fails with the job's error if
   * it failed.
   */
  private static List<String> awaitRows(LocalPostgres postgres, String sql, int count)
      throws Exception {
    long deadline = System.nanoTime() + AWAIT.toNanos();
    List<String> rows = List.of();
    while (System.nanoTime() < deadline) {
      try {
        rows = query(postgres, sql);
      } catch (java.sql.SQLException notYet) {
        rows = List.of(); // the schema is migrated by run; a failed query is retried
      }
      if (rows.size() >= count) {
        return rows;
      }
      checkNoJobFailed();
      Thread.sleep(500);
    }
    return fail(
        "after "
            + AWAIT
            + " only "
            + rows.size()
            + " of "
            + count
            + " rows for "
            + sql
            + ": "
            + rows);
  }
}
