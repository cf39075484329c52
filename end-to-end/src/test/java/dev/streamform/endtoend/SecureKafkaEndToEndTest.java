package dev.streamform.endtoend;

import static dev.streamform.endtoend.ChangelogRows.byKey;
import static dev.streamform.endtoend.ChangelogRows.expected;
import static dev.streamform.endtoend.ChangelogRows.rows;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Kafka path against a broker that wants TLS and a password: {@code runners-config/bin/kafka
 * start --secure} (SASL_SSL with SCRAM-SHA-256 on 127.0.0.1:9094, a fresh self-signed certificate,
 * its own state folder under {@code target/}, stopped by pid in {@link #stop()}), so it runs beside
 * the plain broker of {@link KafkaFlinkEndToEndTest}.
 *
 * <p>The project is {@code orders-kafka} with {@code kafka.properties:} naming the client settings,
 * whose password is {@code ${STREAMFORM_KAFKA_PASSWORD}}. Every command runs as its own {@code
 * streamform} process with that variable set to a recognisable secret and Kafka's client logging on
 * (slf4j-simple at INFO): produce, run (embedded Flink, stopped once its changelog holds what
 * {@code fixtures/phase1.yml} expects), consume, and the failures — a wrong password (one clear
 * line, fast), an unset variable (file, line, variable); check, explain, inspect-plan and --help
 * run in the test's JVM. Then every byte they printed, logs included, is searched for the secret.
 */
class SecureKafkaEndToEndTest {
  private static final int[] PORTS = {9094, 9095};
  private static final String BOOTSTRAP = "127.0.0.1:9094";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path HOME = Checkout.home();
  private static final Path SOURCE_PROJECT =
      Path.of("src/test/resources/orders-kafka").toAbsolutePath();
  private static final Path STATE = Path.of("target/kafka-secure").toAbsolutePath();
  private static final Path OUTPUT = Path.of("target/secure-outputs").toAbsolutePath();
  private static final String SECRET = "sfSecret" + random(16);

  private static boolean started;

  @BeforeAll
  static void start() throws Exception {
    for (int port : PORTS) {
      if (Checkout.listening(port)) {
        fail(
            "127.0.0.1:"
                + port
                + " is already in use. This test starts its own SASL_SSL broker on 9094/9095: stop"
                + " whatever holds the port (if it is ours: runners-config/bin/kafka stop --secure)"
                + " and run again.");
      }
    }
    started = true;
    script("start");
  }

  @AfterAll
  static void stop() throws Exception {
    if (started) {
      script("stop");
    }
  }

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void producedRunAndConsumedOverSaslSslWithTheSecretNeverPrinted() throws Exception {
    Path project = secureProject();
    Path clientProperties = STATE.resolve("client.properties");
    Fixture phase1 = Fixture.load(Project.load(project), project.resolve("fixtures/phase1.yml"));
    Map<String, String> env = Map.of("STREAMFORM_KAFKA_PASSWORD", SECRET);
    List<Path> outputs = new ArrayList<>();

    // what a user looks at before running (in this JVM: these commands read no environment, and a
    // JVM start each would cost more than the rest): none of it may show the secret either
    assertEquals(0, inProcess("check", outputs, "check", project.toString()));
    assertEquals(
        0, inProcess("explain", outputs, "explain", project.toString(), "customer_metrics"));
    assertEquals(
        0,
        inProcess("inspect-plan", outputs, "inspect-plan", project.toString(), "customer_metrics"));
    assertEquals(0, inProcess("run-help", outputs, "run", "--help"));

    Result produced =
        streamform(
            "produce",
            env,
            outputs,
            "produce",
            project.toString(),
            project.resolve("fixtures/phase1.yml").toString(),
            "--bootstrap-servers",
            BOOTSTRAP);
    assertEquals(0, produced.exitCode, produced.describe());

    // the embedded Flink runner: it keeps each key's order to the topic (the DirectRunner writes
    // bundles in parallel), and the job's consumer and producer factories travel through Flink's
    // job graph as they do to a cluster
    Process run =
        start(
            "run",
            env,
            outputs,
            "run",
            project.toString(),
            "--model",
            "customer_metrics",
            "--bootstrap-servers",
            BOOTSTRAP,
            "--runner",
            "flink");
    List<JsonNode> changelog;
    try {
      changelog = awaitChangelog(phase1.expect().size(), Duration.ofSeconds(150), run);
    } finally {
      run.destroy();
      if (!run.waitFor(20, TimeUnit.SECONDS)) {
        run.destroyForcibly().waitFor();
      }
    }
    assertEquals(
        byKey(expected(phase1.expect())),
        byKey(rows(changelog)),
        "the changelog the model wrote over SASL_SSL");

    // consume has no project: the settings come from the broker's client.properties
    Result consumed =
        streamform(
            "consume",
            env,
            outputs,
            "consume",
            "customer_metrics",
            "--kafka-properties",
            clientProperties.toString(),
            "--max-wait",
            "3s");
    assertEquals(0, consumed.exitCode, consumed.describe());
    List<JsonNode> printed = new ArrayList<>();
    for (String line : consumed.stdout().strip().split("\n")) {
      printed.add(JSON.readTree(line));
    }
    assertEquals(byKey(expected(phase1.expect())), byKey(rows(printed)), "what consume printed");

    // a wrong password: refused at once, in one line, before anything is started
    Map<String, String> wrong = Map.of("STREAMFORM_KAFKA_PASSWORD", "not-" + SECRET.substring(3));
    long began = System.nanoTime();
    Result refused =
        streamform(
            "run-wrong-password",
            wrong,
            outputs,
            "run",
            project.toString(),
            "--model",
            "customer_metrics",
            "--bootstrap-servers",
            BOOTSTRAP);
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began);
    assertEquals(1, refused.exitCode, refused.describe());
    assertThat(
        refused.stderrWithoutLogs(),
        containsString(
            "streamform run: cannot list topics at 127.0.0.1:9094: Authentication failed during"
                + " authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256 —"
                + " the broker refused the credentials"));
    assertEquals(1, refused.stderrWithoutLogs().strip().split("\n").length, refused.describe());
    assertThat("fails fast (JVM start included)", seconds, lessThan(60L));

    // no variable: the file, line and variable, before any connection
    Result unset =
        streamform(
            "produce-unset",
            Map.of(),
            outputs,
            "produce",
            project.toString(),
            project.resolve("fixtures/phase1.yml").toString(),
            "--bootstrap-servers",
            BOOTSTRAP);
    assertEquals(1, unset.exitCode, unset.describe());
    assertThat(
        unset.stderrWithoutLogs(),
        containsString(
            "streamform produce: kafka.properties:5: sasl.jaas.config names"
                + " ${STREAMFORM_KAFKA_PASSWORD}, which is not set in the environment"));

    // the secret appears in nothing any command printed, logs included
    assertThat(
        "the run logged Kafka's client configuration (the grep below reads the logs)",
        Files.readString(OUTPUT.resolve("run.stderr")),
        containsString("ConsumerConfig values"));
    for (Path output : outputs) {
      assertThat(
          output + " shows the secret", Files.readString(output), not(containsString(SECRET)));
    }
  }

  /** A copy of orders-kafka whose source names kafka.properties, with the password a reference. */
  private static Path secureProject() throws IOException {
    Path project =
        Files.createTempDirectory(Path.of("target").toAbsolutePath(), "orders-kafka-secure");
    try (Stream<Path> files = Files.walk(SOURCE_PROJECT)) {
      for (Path f : files.toList()) {
        Path to = project.resolve(SOURCE_PROJECT.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to);
        }
      }
    }
    Path sources = project.resolve("sources.yml");
    String text =
        Files.readString(sources)
            .replace(
                "    topic: orders\n",
                "    topic: orders\n    kafka.properties: kafka.properties\n");
    assertThat(text, containsString("kafka.properties: kafka.properties"));
    Files.writeString(sources, text);
    Files.writeString(
        project.resolve("kafka.properties"),
        String.join(
            "\n",
            "# the settings a user writes for a managed Kafka with SASL_SSL",
            "security.protocol=SASL_SSL",
            "sasl.mechanism=SCRAM-SHA-256",
            "# the password comes from the environment, never from this file",
            "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\",
            "    username=\"streamform\" password=\"${STREAMFORM_KAFKA_PASSWORD}\";",
            "ssl.truststore.type=PEM",
            "ssl.truststore.location=" + STATE.resolve("tls/ca.pem"),
            ""));
    return project;
  }

  /** Reads the model's changelog (the test's own client) until it has {@code count} records. */
  private static List<JsonNode> awaitChangelog(int count, Duration within, Process run)
      throws Exception {
    Properties p = new Properties();
    p.load(
        new java.io.StringReader(
            Files.readString(STATE.resolve("client.properties"))
                .replace("${STREAMFORM_KAFKA_PASSWORD}", SECRET)));
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    List<JsonNode> records = new ArrayList<>();
    long deadline = System.nanoTime() + within.toNanos();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      while (partitions.isEmpty()) {
        if (!run.isAlive()) {
          fail(
              "streamform run ended with "
                  + run.exitValue()
                  + ": "
                  + Files.readString(OUTPUT.resolve("run.stderr")));
        }
        try {
          consumer
              .listTopics(Duration.ofSeconds(10))
              .getOrDefault("customer_metrics", List.of())
              .forEach(i -> partitions.add(new TopicPartition("customer_metrics", i.partition())));
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
          // a busy machine: the TLS handshake and the run's JVM compete for the cores; ask again
        }
        if (System.nanoTime() > deadline) {
          fail("no topic customer_metrics after " + within);
        }
        Thread.sleep(partitions.isEmpty() ? 1000 : 0);
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      while (records.size() < count) {
        if (System.nanoTime() > deadline || !run.isAlive()) {
          fail(
              "customer_metrics has "
                  + records.size()
                  + " of "
                  + count
                  + " records (run "
                  + (run.isAlive() ? "running" : "ended")
                  + "): "
                  + records);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          records.add(
              JSON.readTree(
                  "{\"key\":"
                      + new String(r.key(), StandardCharsets.UTF_8)
                      + ",\"value\":"
                      + new String(r.value(), StandardCharsets.UTF_8)
                      + "}"));
        }
      }
    }
    return records;
  }

  /**
   * Runs {@code streamform args} in this JVM; its output kept in {@code OUTPUT}; its exit status.
   */
  private static int inProcess(String name, List<Path> outputs, String... args) throws IOException {
    java.io.StringWriter out = new java.io.StringWriter();
    java.io.StringWriter err = new java.io.StringWriter();
    int status =
        dev.streamform.cli.Streamform.run(
            new java.io.PrintWriter(out), new java.io.PrintWriter(err), args);
    Files.createDirectories(OUTPUT);
    Path stdout = Files.writeString(OUTPUT.resolve(name + ".stdout"), out.toString());
    Path stderr = Files.writeString(OUTPUT.resolve(name + ".stderr"), err.toString());
    outputs.add(stdout);
    outputs.add(stderr);
    assertThat(
        name + " printed something",
        out.toString() + err,
        not(org.hamcrest.Matchers.emptyString()));
    return status;
  }

  /** What one streamform process printed. */
  private record Result(String name, int exitCode, String stdout, String stderr) {
    /** The lines streamform itself printed on stderr, without the logs of Kafka and Beam. */
    String stderrWithoutLogs() {
      return stderr
          .lines()
          .filter(l -> l.startsWith("streamform"))
          .collect(Collectors.joining("\n"));
    }

    String describe() {
      return name
          + " exited "
          + exitCode
          + "\nstdout: "
          + stdout
          + "\nstderr: "
          + stderrWithoutLogs();
    }
  }

  /** Runs {@code streamform args} to its end (at most 3 minutes); output kept in {@code OUTPUT}. */
  private static Result streamform(
      String name, Map<String, String> env, List<Path> outputs, String... args) throws Exception {
    Process p = start(name, env, outputs, args);
    if (!p.waitFor(3, TimeUnit.MINUTES)) {
      p.destroyForcibly().waitFor();
      fail("streamform " + String.join(" ", args) + " did not end within 3 minutes");
    }
    return new Result(
        name,
        p.exitValue(),
        Files.readString(OUTPUT.resolve(name + ".stdout")),
        Files.readString(OUTPUT.resolve(name + ".stderr")));
  }

  /**
   * Starts {@code streamform args} as its own JVM with this test's classpath, except that Kafka's
   * and Beam's logs go to stderr (slf4j-simple at INFO instead of the command line's slf4j-nop), so
   * the search for the secret reads the job's logs too.
   */
  private static Process start(
      String name, Map<String, String> env, List<Path> outputs, String... args) throws IOException {
    Files.createDirectories(OUTPUT);
    Path stdout = OUTPUT.resolve(name + ".stdout");
    Path stderr = OUTPUT.resolve(name + ".stderr");
    outputs.add(stdout);
    outputs.add(stderr);
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx768m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd HH:mm:ss",
                "-cp",
                classpathWithLogs(),
                "dev.streamform.cli.Streamform"));
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(HOME.toFile())
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile());
    builder.environment().remove("STREAMFORM_KAFKA_PASSWORD");
    builder.environment().putAll(env);
    return builder.start();
  }

  private static String classpathWithLogs() throws IOException {
    List<String> entries =
        new ArrayList<>(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
    if (entries.size() == 1 && entries.get(0).endsWith(".jar")) {
      // surefire's manifest-only jar: its Class-Path lists the real classpath as file URLs
      try (JarFile jar = new JarFile(entries.get(0))) {
        entries.clear();
        for (String url : jar.getManifest().getMainAttributes().getValue("Class-Path").split(" ")) {
          entries.add(Path.of(java.net.URI.create(url)).toString());
        }
      }
    }
    entries.removeIf(e -> Path.of(e).getFileName().toString().startsWith("slf4j-nop"));
    return String.join(File.pathSeparator, entries);
  }

  private static void script(String command) throws Exception {
    Path log = Path.of("target", "services-secure.log").toAbsolutePath();
    Files.createDirectories(log.getParent());
    ProcessBuilder builder =
        new ProcessBuilder(HOME.resolve("runners-config/bin/kafka").toString(), command, "--secure")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().put("STREAMFORM_KAFKA_SECURE_STATE_DIR", STATE.toString());
    builder.environment().put("STREAMFORM_KAFKA_PASSWORD", SECRET);
    if (builder.start().waitFor() != 0) {
      fail("runners-config/bin/kafka " + command + " --secure failed; see " + log);
    }
  }

  private static String random(int n) {
    String alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    SecureRandom r = new SecureRandom();
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < n; i++) {
      s.append(alphabet.charAt(r.nextInt(alphabet.length())));
    }
    return s.toString();
  }
}
