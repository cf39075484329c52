package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line as a user meets it: output, errors and exit status. */
class StreamformTest {
  /** The seed's late-event project, from this module's folder (Maven runs tests there). */
  private static final Path LATE_EVENT = Path.of("../test-streams/fixtures/time/late-event");

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Streamform.run(new PrintWriter(out), new PrintWriter(err), args);
  }

  /**
   * A number option given something else says what a number is here, not Java's type (found by a
   * read-only audit of the rollout: "'abc' is not an int").
   */
  @Test
  void aNumberOptionGivenAWordSaysAWholeNumber() {
    for (String bad : new String[] {"abc", "99999999999", "2.5"}) {
      err.getBuffer().setLength(0);
      int status =
          run(
              "alias",
              "set",
              "p",
              "--model",
              "m",
              "--jdbc-url",
              "jdbc:postgresql://h/d",
              "--generation",
              bad);
      assertThat(err.toString(), status, is(2));
      assertThat(
          err.toString(),
          is(
              "streamform alias set: --generation: '"
                  + bad
                  + "' is not a whole number from 1 to "
                  + Integer.MAX_VALUE
                  + " — see 'streamform alias set --help'\n"));
    }
  }

  @Test
  void checkSummarisesAValidProject() {
    assertThat(run("check", LATE_EVENT.toString()), is(0));
    assertThat(
        out.toString(),
        is(
            "ok: 1 source (orders: event time ordered_at, watermark 5m, late drop),"
                + " 1 model (customer_metrics), 1 fixture\n"));
    assertThat(err.toString(), is(""));
  }

  @Test
  void checkListsEveryProblemThenTheCount() throws IOException {
    Files.createDirectories(dir.resolve("models"));
    Files.writeString(
        dir.resolve("sources.yml"),
        "sources:\n"
            + "  orders:\n"
            + "    connector: kafka\n"
            + "    topic: orders\n"
            + "    schema:\n"
            + "      customer_id: int64\n"
            + "      amount: double\n"
            + "    watermark: 5m\n"
            + "    late_events: keep\n");
    Files.writeString(
        dir.resolve("streamform.yml"),
        "models:\n  customer_metrics:\n    key: [customer_id]\n    retention: 30d\n");
    Files.writeString(
        dir.resolve("models/customer_metrics.sql"),
        "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') GROUP BY"
            + " customer_id");
    assertThat(run("check", dir.toString()), is(1));
    assertThat(out.toString(), is(""));
    assertThat(
        err.toString(),
        is(
            "sources.yml:8: source 'orders', key 'watermark': a watermark needs an event-time"
                + " column — add event_time: <timestamp column> or remove watermark\n"
                + "sources.yml:9: source 'orders', key 'late_events': late_events needs an"
                + " event-time column; without one nothing is late — add event_time: <timestamp"
                + " column> or remove late_events\n"
                + "streamform.yml:4: model 'customer_metrics', key 'retention': retention needs an"
                + " event-time source upstream; source 'orders' has no event_time, so there is no"
                + " clock to measure it by — add event_time: <timestamp column> to source 'orders'"
                + " in sources.yml, or remove retention\n"
                + "3 problems\n"));
  }

  /**
   * The late-event project's source and a windowed model of it, with {@code fixture} as
   * fixtures/w.yml.
   */
  private void windowedProject(String fixture) throws IOException {
    Files.createDirectories(dir.resolve("models"));
    Files.createDirectories(dir.resolve("fixtures"));
    Files.copy(LATE_EVENT.resolve("sources.yml"), dir.resolve("sources.yml"));
    Files.writeString(
        dir.resolve("streamform.yml"),
        "models:\n  hourly:\n    key: [customer_id]\n"
            + "    window: {size: 1h, every: 30m}\n    allowed_lateness: 10m\n"
            + "    early_results: every 2 events\n    generation: 2\n");
    Files.writeString(
        dir.resolve("models/hourly.sql"),
        "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') GROUP BY"
            + " customer_id");
    Files.writeString(dir.resolve("fixtures/w.yml"), fixture);
  }

  private static final String WINDOWED_FIXTURE_HEAD =
      "model: hourly\n"
          + "given:\n"
          + "  - event: { customer_id: 42, amount: 10, ordered_at: \"2026-08-30T10:00:00Z\" }\n"
          + "expect:\n";

  @Test
  void checkSummarisesAWindowedModel() throws IOException {
    windowedProject(
        WINDOWED_FIXTURE_HEAD
            + "  - { window_start: \"2026-08-30T09:30:00Z\", window_end: \"2026-08-30T10:30:00Z\","
            + " customer_id: 42, total_spend: 10, revision: 1, status: on_time }\n");
    assertThat(err.toString(), run("check", dir.toString()), is(0));
    assertThat(
        out.toString(),
        is(
            "ok: 1 source (orders: event time ordered_at, watermark 5m, late drop), 1 model"
                + " (hourly: window hopping 1h every 30m, allowed lateness 10m, early results every"
                + " 2 events, generation 2), 1 fixture\n"));
  }

  @Test
  void checkReportsAWindowedFixturesProblemsWithFileAndLine() throws IOException {
    windowedProject(
        WINDOWED_FIXTURE_HEAD
            + "  - { op: insert, window_start: \"2026-08-30T10:00:00Z\", window_end:"
            + " \"2026-08-30T11:00:00Z\", customer_id: 42, total_spend: 10, revision: 1 }\n"
            + "  - { window_start: \"2026-08-30T10:00:00Z\", customer_id: 42, total_spend: 10,"
            + " revision: -1, status: done }\n");
    assertThat(run("check", dir.toString()), is(1));
    assertThat(
        err.toString(),
        is(
            "fixtures/w.yml:5: expect row 1, key 'op': op belongs to fixtures of upsert models; a"
                + " row of windowed model 'hourly' says its revision and status instead — remove op"
                + " and give revision: <0 for early, 1, 2, ...> and status: early, on_time,"
                + " corrected or final\n"
                + "fixtures/w.yml:5: expect row 1, key 'status': required key is missing — add"
                + " status: early, on_time, corrected or final\n"
                + "fixtures/w.yml:6: expect row 2, key 'window_end': required key is missing — add"
                + " window_end: \"2026-08-30T11:00:00Z\" (window_start + 1h), the end (exclusive)"
                + " of the row's window\n"
                + "fixtures/w.yml:6: expect row 2, key 'revision': '-1' is not a whole number from"
                + " 0 — write a whole number from 0: 0 for an early preview, 1 for the first"
                + " revision, 2, ...\n"
                + "fixtures/w.yml:6: expect row 2, key 'status': 'done' is not early, on_time,"
                + " corrected or final — write status: early, on_time, corrected or final\n"
                + "5 problems\n"));
  }

  @Test
  void checkNamesAMissingFolder() {
    assertThat(run("check", dir.resolve("nowhere").toString()), is(1));
    assertThat(
        err.toString(),
        is(
            dir.resolve("nowhere")
                + ": no such folder — give the folder that"
                + " holds sources.yml, streamform.yml and models/\n1 problem\n"));
  }

  @Test
  void checkWithoutAFolderIsAUsageError() {
    assertThat(run("check"), is(2));
    assertThat(
        err.toString(),
        is(
            "streamform check: Missing required parameter: '<project-dir>'"
                + " — see 'streamform check --help'\n"));
  }

  /**
   * {@code streamform help check} prints check's help, as {@code git help} does: it said
   * "streamform check: Missing required parameter" (help was no command; found by a read-only audit
   * of the command line).
   */
  @Test
  void helpOfACommandPrintsItsHelp() {
    assertThat(run("help", "check"), is(0));
    assertThat(out.toString(), containsString("Usage: streamform check"));
    assertThat(err.toString(), is(""));
  }

  @Test
  void unknownCommandIsOneLineWithAHint() {
    assertThat(run("chek", "x"), is(2));
    assertThat(
        err.toString(),
        is(
            "streamform: unknown command 'chek' (did you mean 'check'?) — see 'streamform"
                + " --help'\n"));
  }

  @Test
  void twoSwappedLettersStillFindTheCommandAndTheOption() {
    assertThat(run("tset", "x"), is(2));
    assertThat(err.toString(), containsString("unknown command 'tset' (did you mean 'test'?)"));
    err.getBuffer().setLength(0);
    assertThat(run("test", "x", "--fial-fast"), is(2));
    assertThat(
        err.toString(),
        containsString("unknown option '--fial-fast' (did you mean '--fail-fast'?)"));
  }

  @Test
  void unknownOptionIsOneLineWithAHint() {
    assertThat(run("check", "--frobnicate", "x"), is(2));
    assertThat(
        err.toString(),
        is("streamform check: unknown option '--frobnicate' — see 'streamform check --help'\n"));
  }

  @Test
  void parallelismOnTheDirectRunnerIsRefusedNotIgnored() {
    // as --flink-master without --runner flink: a usage error before anything runs (ADR 0087)
    assertThat(run("test", LATE_EVENT.toString(), "--parallelism", "4"), is(2));
    assertThat(out.toString(), is(""));
    assertThat(
        err.toString(),
        is(
            "streamform test: --parallelism 4 is a Flink option, and this run is on the"
                + " DirectRunner: add --runner flink, or leave out --parallelism — see 'streamform"
                + " test --help'\n"));
    err.getBuffer().setLength(0);
    assertThat(
        run("run", LATE_EVENT.toString(), "--profile", "direct", "--parallelism", "2"), is(2));
    assertThat(
        err.toString(),
        startsWith(
            "streamform run: --parallelism 2 is a Flink option, and this run is on the"
                + " DirectRunner: "));
  }

  @Test
  void runnerChecksOnFlinkAreRefusedNotIgnored() {
    // the DirectRunner's immutability and encodability checks: Flink has none to turn on
    assertThat(run("test", LATE_EVENT.toString(), "--runner", "flink", "--runner-checks"), is(2));
    assertThat(out.toString(), is(""));
    assertThat(
        err.toString(),
        is(
            "streamform test: --runner-checks is a DirectRunner option, and this run is on flink"
                + " [local] parallelism 1: run on the DirectRunner, or leave out --runner-checks"
                + " — see 'streamform test --help'\n"));
  }

  @Test
  void rocksdbWithoutItsClassIsRefusedOnceBeforeAnyFixture() {
    // each fixture failed with "(org.apache.flink.contrib.streaming.state.RocksDBStateBackend)"
    assertThat(
        run(
            "test",
            LATE_EVENT.toString(),
            "--profile",
            "flink-local",
            "--state-backend",
            "rocksdb"),
        is(2));
    assertThat(out.toString(), is(""));
    assertThat(
        err.toString(),
        startsWith(
            "streamform test: --state-backend rocksdb: Flink's RocksDB state backend"
                + " (flink-statebackend-rocksdb) is not on streamform's class path"));
    assertThat(err.toString().split("flink-statebackend-rocksdb", -1).length, is(2));
  }

  @Test
  void filesystemWithoutAStoragePathRunsTheFixturesOnEmbeddedFlink() {
    // each fixture failed: "State backend was set to 'filesystem' but no storage path was
    // provided."
    assertThat(
        run(
            "test",
            LATE_EVENT.toString(),
            "--runner",
            "flink",
            "--parallelism",
            "2",
            "--state-backend",
            "filesystem"),
        is(0));
    assertThat(out.toString(), containsString("1 passed"));
    assertThat(
        err.toString(),
        startsWith(
            "state backend filesystem without a storage path: checkpoints of the embedded Flink"
                + " cluster go to "));
  }

  /**
   * A project whose Kafka source declares {@code partitions: 3}, a fixture of one event, and client
   * properties for an unreachable broker that answers nothing quickly (a command that goes on fails
   * there, exit 1).
   */
  private void kafkaProjectDeclaringThreePartitions() throws IOException {
    Files.createDirectories(dir.resolve("models"));
    Files.createDirectories(dir.resolve("fixtures"));
    Files.writeString(
        dir.resolve("sources.yml"),
        "sources:\n  orders:\n    connector: kafka\n    topic: orders\n    partitions: 3\n"
            + "    event_time: ordered_at\n    watermark: 5m\n"
            + "    schema:\n      customer_id: int64\n      amount: int64\n"
            + "      ordered_at: timestamp\n");
    Files.writeString(
        dir.resolve("streamform.yml"), "models:\n  totals:\n    key: [customer_id]\n");
    Files.writeString(
        dir.resolve("models/totals.sql"),
        "SELECT customer_id, SUM(amount) AS total FROM source('orders') GROUP BY customer_id\n");
    Files.writeString(
        dir.resolve("fixtures/one.yml"),
        "model: totals\ngiven:\n  - event: { customer_id: 1, amount: 1,"
            + " ordered_at: \"2026-08-30T10:00:00Z\" }\nexpect: []\n");
    Files.writeString(
        dir.resolve("client.properties"),
        "default.api.timeout.ms=1000\n"
            + "request.timeout.ms=500\n"
            + "socket.connection.setup.timeout.ms=200\n"
            + "socket.connection.setup.timeout.max.ms=200\n");
  }

  /**
   * A Kafka source that declares {@code partitions: 3} gets its topics created with 3 partitions
   * whatever {@code --partitions} says: another count is refused, not ignored (ADR 0089).
   */
  @Test
  void produceWithPartitionsThatDisagreeWithTheDeclaredCountIsRefusedNotIgnored()
      throws IOException {
    kafkaProjectDeclaringThreePartitions();
    String[] args = {
      "produce",
      dir.toString(),
      dir.resolve("fixtures/one.yml").toString(),
      "--bootstrap-servers",
      "127.0.0.1:1",
      "--kafka-properties",
      dir.resolve("client.properties").toString(),
      "--partitions",
      "5"
    };
    int exit = run(args);
    assertThat(err.toString(), exit, is(2));
    assertThat(out.toString(), is(""));
    assertThat(
        err.toString(),
        is(
            "streamform produce: --partitions 5 sizes the topic produce creates, and "
                + dir.resolve("sources.yml")
                + " declares partitions: 3 for source 'orders', which sizes it: leave out"
                + " --partitions, or give --partitions 3 — see 'streamform produce --help'\n"));
    // the declared count itself is not refused: produce goes on to the (unreachable) broker
    err.getBuffer().setLength(0);
    args[args.length - 1] = "3";
    assertThat(run(args), is(1));
    assertThat(err.toString(), not(containsString("--partitions")));
  }

  @Test
  void partitionsThatDisagreeWithTheDeclaredCountAreRefusedNotIgnored() throws IOException {
    kafkaProjectDeclaringThreePartitions();
    String[] args = {
      "run",
      dir.toString(),
      "--model",
      "totals",
      "--bootstrap-servers",
      "127.0.0.1:1",
      "--kafka-properties",
      dir.resolve("client.properties").toString(),
      "--partitions",
      "5"
    };
    assertThat(run(args), is(2));
    assertThat(out.toString(), is(""));
    assertThat(
        err.toString(),
        is(
            "streamform run: --partitions 5 sizes the topics a run creates, and "
                + dir.resolve("sources.yml")
                + " declares partitions: 3 for source 'orders', which sizes them: leave out"
                + " --partitions, or give --partitions 3 — see 'streamform run --help'\n"));
    // the declared count itself is what the run does: not refused, the run goes on to the broker
    err.getBuffer().setLength(0);
    args[args.length - 1] = "3";
    assertThat(run(args), is(1));
    assertThat(err.toString(), not(containsString("--partitions")));
  }

  /**
   * A shadow run on Kafka holds --partitions to the declared count as a normal run does, and, as it
   * creates no topic, refuses a --partitions that nothing declares rather than ignore it (ADR
   * 0089): refused before it connects to the database or the broker, so neither is needed here.
   */
  @Test
  void aShadowRunWithPartitionsThatDisagreeWithTheDeclaredCountIsRefusedToo() throws IOException {
    kafkaProjectDeclaringThreePartitions();
    Files.writeString(
        dir.resolve("streamform.yml"),
        "models:\n  totals:\n    key: [customer_id]\n    window: 1h\n    generation: 2\n");
    String[] args = {
      "run",
      dir.toString(),
      "--model",
      "totals",
      "--shadow",
      "--jdbc-url",
      "jdbc:postgresql://127.0.0.1:1/streamform",
      "--bootstrap-servers",
      "127.0.0.1:1",
      "--kafka-properties",
      dir.resolve("client.properties").toString(),
      "--partitions",
      "5"
    };
    assertThat(run(args), is(2));
    assertThat(out.toString(), is(""));
    assertThat(
        err.toString(),
        is(
            "streamform run: --partitions 5 sizes the topics a run creates, and "
                + dir.resolve("sources.yml")
                + " declares partitions: 3 for source 'orders', which sizes them: leave out"
                + " --partitions, or give --partitions 3 — see 'streamform run --help'\n"));
    // the declared count is accepted: the run goes on, and stops at the database it cannot reach
    err.getBuffer().setLength(0);
    args[args.length - 1] = "3";
    assertThat(run(args), is(1));
    assertThat(err.toString(), not(containsString("--partitions")));
    // with no declared count a normal run creates its topics with N; a shadow run creates none,
    // so N would do nothing: refused, not ignored (ADR 0087)
    String sources = Files.readString(dir.resolve("sources.yml"));
    assertThat(sources, containsString("    partitions: 3\n"));
    Files.writeString(dir.resolve("sources.yml"), sources.replace("    partitions: 3\n", ""));
    err.getBuffer().setLength(0);
    assertThat(run(args), is(2));
    assertThat(out.toString(), is(""));
    assertThat(
        err.toString(),
        is(
            "streamform run: --partitions 3 sizes the topics a run creates, and a shadow run"
                + " creates none (it reads the source topic and writes only revisions to the"
                + " database): leave out --partitions — see 'streamform run --help'\n"));
  }

  @Test
  void aBadFormatToleranceOrColorIsAUsageErrorThatPointsToHelp() {
    // as every other option error: the value, what it may be, then where the options are listed
    assertThat(run("test", LATE_EVENT.toString(), "--format", "xml"), is(2));
    assertThat(
        err.toString(),
        is("streamform test: --format xml is not text or json — see 'streamform test --help'\n"));
    err.getBuffer().setLength(0);
    assertThat(run("test", LATE_EVENT.toString(), "--tolerance", "-1"), is(2));
    assertThat(
        err.toString(),
        is(
            "streamform test: --tolerance -1 is not a number from 0, e.g. 1e-9 — see"
                + " 'streamform test --help'\n"));
    err.getBuffer().setLength(0);
    assertThat(run("test", LATE_EVENT.toString(), "--color", "sometimes"), is(2));
    assertThat(
        err.toString(),
        is(
            "streamform test: --color sometimes is not auto, always or never — see 'streamform"
                + " test --help'\n"));
    assertThat(out.toString(), is(""));
  }

  /**
   * run's help says when --partitions applies: a run that writes files and a shadow run of a source
   * that declares no partitions: both refuse it (ADR 0087, 0089 amended), so the help names both.
   */
  @Test
  void runHelpSaysWhichRunsRefusePartitions() {
    assertThat(run("run", "--help"), is(0));
    String help = out.toString();
    int at = help.indexOf("      --partitions=N");
    assertThat(help, at >= 0, is(true));
    int end = help.indexOf("\n      --", at + 1);
    String partitions = help.substring(at, end).replaceAll("\\s+", " ");
    assertThat(partitions, containsString("shadow run"));
    assertThat(partitions, containsString("writes files"));
  }

  @Test
  void helpListsTheCommands() {
    assertThat(run("--help"), is(0));
    assertThat(out.toString(), startsWith("Usage: streamform [-hV] COMMAND"));
    assertThat(out.toString(), containsString("check"));
  }

  @Test
  void everyCommandHasHelp() {
    assertThat(run("check", "--help"), is(0));
    // the one-line header (what --help lists), then the usage
    assertThat(
        out.toString(),
        startsWith(
            "Checks declarations, SQL and fixtures; each problem with"
                + " file, line and fix.\nUsage: streamform check [-hV] <project-dir>"));
  }

  @Test
  void ledgerVerifysOneLineHeaderNamesEveryDefectItExitsOneOn() {
    // its Exit status block: 1 on a gap, a mismatch or a conflict; the header --help lists agrees
    assertThat(run("ledger", "verify", "--help"), is(0));
    assertThat(
        out.toString(),
        startsWith(
            "Recomputes every projection from the ledger; exits 1 on a gap, mismatch or"
                + " conflict.\nUsage: streamform ledger verify "));
  }

  @Test
  void version() {
    assertThat(run("--version"), is(0));
    assertThat(out.toString(), startsWith("streamform "));
  }

  @Test
  void noCommandShowsUsage() {
    assertThat(run(), is(2));
    assertThat(err.toString(), startsWith("Usage: streamform"));
  }

  @Test
  void aProviderPortOutOfRangeIsABadCommandLine() {
    assertThat(run("provider", "--port", "99999"), is(2));
    assertThat(err.toString(), containsString("--port must be 0..65535, not 99999"));
    assertThat(err.toString(), not(containsString("Exception")));
  }

  /**
   * A broker that refuses a command is said in one line by that command, as its other messages are
   * (found by a read-only audit of the gates on Kafka: "streamform:" where "streamform gates:").
   */
  @Test
  void aRefusingBrokerIsSaidByTheCommand() {
    StringWriter said = new StringWriter();
    int status =
        Streamform.internalError(
            dev.streamform.pipelines.kafka.KafkaRefusedException.of(
                "read topic t",
                dev.streamform.pipelines.kafka.KafkaConnection.plaintext("127.0.0.1:1"),
                new org.apache.kafka.common.errors.TimeoutException("Timeout expired")),
            "gates",
            new PrintWriter(said, true));
    assertThat(status, is(1));
    assertThat(said.toString(), startsWith("streamform gates: "));
  }
}
