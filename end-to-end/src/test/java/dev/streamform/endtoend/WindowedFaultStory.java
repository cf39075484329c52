package dev.streamform.endtoend;

import static dev.streamform.endtoend.LocalServices.awaitRecords;
import static dev.streamform.endtoend.LocalServices.cli;
import static dev.streamform.endtoend.LocalServices.cliAnyStatus;
import static dev.streamform.endtoend.LocalServices.drain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.core.time.WindowStatus;
import dev.streamform.endtoend.LocalServices.TopicRecord;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.runners.postgres.LocalPostgres;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.teststreams.oracle.WindowedOracle;
import dev.streamform.teststreams.oracle.WindowedOutcome;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * One fault test's copy of project {@code faults-windowed/} (the windowed model {@code
 * customer_windows}: 10-minute windows, 5 minutes of allowed lateness, a reward effect) on topics
 * of its own, writing its revisions to PostgreSQL, and the phases of {@code faults/phases} it is
 * fed, each closed by a watermark item to every partition ({@link Phase}).
 *
 * <p>The expected answer is the reference {@link WindowedOracle}'s for a topic that has not ended
 * ({@link WindowedOracle#runUnended}): a Kafka topic never ends, so a window is revised or final
 * only as far as the items' own {@code min_p W_p} has gone (docs/semantics.md §6); the oracle's
 * answer for a bounded input would close every window at its end. The closing items make that
 * answer reach the windows each phase means to close, on every partition. {@link #check} compares
 * what the job wrote with it:
 *
 * <ul>
 *   <li>the window topic: every row of the oracle (a window's revision or final record, by logical
 *       window, status and revision) is on it (else counted as lost), every record on it is an
 *       oracle row with the oracle's aggregate digest (doubled: anything else), a repeat counts as
 *       redelivered;
 *   <li>the late topic names exactly the oracle's too-late events;
 *   <li>the ledger: the canonical view holds the oracle's final revision of every window, and
 *       {@code streamform ledger verify} finds 0 gaps, 0 mismatches, 0 conflicts;
 *   <li>the effects: after {@code streamform dispatch}, the provider (deduplication off) got one
 *       request per effect key, one for every window whose final revision makes the rule true, and
 *       {@code streamform effects verify} finds 0 problems.
 * </ul>
 */
final class WindowedFaultStory {
  static final Path TEMPLATE = Path.of("src/test/resources/faults-windowed").toAbsolutePath();
  static final String MODEL = "customer_windows";

  /** The reward's rule: a window's revenue at least this. */
  static final BigDecimal REWARD_AT = new BigDecimal("250");

  /**
   * A phase: a file of {@code faults/phases}, and the instant of the watermark item (to every
   * partition) appended to it, which moves {@code min_p W_p} there once the phase is read: windows
   * whose end + allowed lateness is at or before it are final.
   */
  record Phase(String file, String closedAt) {}

  /** What one test counted, against the oracle. */
  record Figures(
      int rows,
      int records,
      int redelivered,
      int lost,
      int doubled,
      int late,
      int projections,
      int rewarded,
      int requests) {}

  final String name;
  final Path project;
  final String topic;
  final List<Path> phases = new ArrayList<>();
  private final String[] database;

  private WindowedFaultStory(String name, Path project, String[] database) {
    this.name = name;
    this.project = project;
    this.topic = "faults_" + name + "_windows";
    this.database = database;
  }

  /**
   * A copy of {@code faults-windowed/} on topics {@code faults_<name>...}, its reward sent to
   * {@code provider}, its revisions to {@code postgres}; the phases are files of {@code
   * faults/phases}, copied for this model.
   */
  static WindowedFaultStory of(
      String name, LocalProviderServer provider, LocalPostgres postgres, Phase... phases)
      throws IOException {
    Path dir = Path.of("target", "faults", name).toAbsolutePath();
    copy(TEMPLATE, dir);
    Path sources = dir.resolve("sources.yml");
    Files.writeString(
        sources,
        Files.readString(sources)
            .replace("    topic: orders\n", "    topic: faults_" + name + "\n"));
    String topic = "faults_" + name + "_windows";
    Path models = dir.resolve("streamform.yml");
    Files.writeString(
        models,
        Files.readString(models)
            + "    topic: "
            + topic
            + "\n    late_topic: "
            + topic
            + ".late\n    quarantine_topic: "
            + topic
            + ".quarantine\n"
            + "    effects:\n"
            + "      - type: reward\n"
            + "        subject: customer_id\n"
            + "        when: \"revenue >= "
            + REWARD_AT
            + "\"\n"
            + "        provider: {kind: webhook, url: \""
            + provider.url()
            + "\", idempotency: key, receipts: true}\n");
    WindowedFaultStory story =
        new WindowedFaultStory(
            name,
            dir,
            new String[] {"--jdbc-url", postgres.jdbcUrl(), "--jdbc-user", LocalPostgres.USER});
    Files.createDirectories(dir.resolve("phases"));
    for (Phase f : phases) {
      Path phase = dir.resolve("phases").resolve(Path.of(f.file()).getFileName());
      String items =
          Files.readString(FaultStory.TEMPLATE.resolve(f.file()))
              .replace("model: " + FaultStory.MODEL + "\n", "model: " + MODEL + "\n");
      int expect = items.indexOf("\nexpect:");
      if (expect < 0) {
        throw new IllegalStateException(
            f.file() + " has no `expect:` line to close the phase before");
      }
      Files.writeString(
          phase,
          items.substring(0, expect)
              + "\n  - watermark: \""
              + f.closedAt()
              + "\"   # every partition: closes the phase's windows\n"
              + items.substring(expect));
      story.phases.add(phase);
    }
    return story;
  }

  /** The options of {@code run}, {@code ledger}, {@code dispatch} and {@code effects} commands. */
  String[] database() {
    return database.clone();
  }

  Path phase(int i) {
    return phases.get(i);
  }

  /**
   * The oracle's answer for the first {@code n} phases delivered in order, on a topic that has not
   * ended.
   */
  WindowedOutcome oracle(int n) throws Exception {
    Project p = Project.load(project);
    List<Fixture.Given> given = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      given.addAll(Fixture.load(p, phases.get(i)).given());
    }
    return WindowedOracle.of(DeclaredModel.of(p, MODEL)).runUnended(given);
  }

  /** Waits until the window topic holds every row the oracle gives for the first {@code n}. */
  void awaitRowsOf(int n) throws Exception {
    Set<String> rows = new TreeSet<>(expected(oracle(n)).keySet());
    awaitRecords(topic, rows.size() + " window rows", r -> identities(r).containsAll(rows));
  }

  /**
   * Drains the topics (each until it holds the oracle's answer, the window topic at least {@code
   * atLeast} records, or for at most {@link LocalServices#AWAIT}), the ledger, then dispatches the
   * effects; counts what is missing or extra, prints the figures and then asserts them.
   */
  Figures check(String fault, int atLeast, LocalPostgres postgres, LocalProviderServer provider)
      throws Exception {
    WindowedOutcome oracle = oracle(phases.size());
    Map<String, String> expected = expected(oracle);
    Set<String> lateIds = new TreeSet<>();
    oracle.late().forEach(l -> lateIds.add(l.eventId()));

    Map<String, Predicate<List<TopicRecord>>> enough = new LinkedHashMap<>();
    enough.put(topic, r -> r.size() >= atLeast && identities(r).containsAll(expected.keySet()));
    enough.put(topic + ".late", r -> positions(r).containsAll(lateIds));
    Map<String, List<TopicRecord>> read = drain(enough);
    List<TopicRecord> records = read.get(topic);
    List<TopicRecord> late = read.get(topic + ".late");
    Set<String> seen = new TreeSet<>();
    int redelivered = 0;
    List<String> wrong = new ArrayList<>();
    for (TopicRecord r : records) {
      String id = identity(r);
      String digest = r.value().get("aggregate_digest").asText();
      if (!digest.equals(expected.get(id))) {
        wrong.add(id + " " + r.value() + " (oracle digest: " + expected.get(id) + ")");
      } else if (!seen.add(id)) {
        redelivered++; // the same revision again: a replay after recovery
      }
    }
    int lost = (int) expected.keySet().stream().filter(id -> !seen.contains(id)).count();
    Set<String> lateWritten = positions(late);
    lost += (int) lateIds.stream().filter(id -> !lateWritten.contains(id)).count();

    // the ledger: every window's final revision, as the oracle gives it
    Map<String, String> finals = new TreeMap<>();
    oracle.rows().stream()
        .filter(r -> r.status() == WindowStatus.FINAL)
        .forEach(
            r -> finals.put(r.projectionId(), "final " + r.revision() + " " + r.aggregateDigest()));
    Map<String, String> canonical = awaitCanonical(postgres, finals.size());
    // its exit status and report go into the figures' line, asserted after it is printed
    String verified =
        cliAnyStatus(join(new String[] {"ledger", "verify", project.toString(), "--model", MODEL}));

    // the effects: dispatched until nothing is left to claim
    Set<String> rewarded = rewarded(oracle);
    List<String> passes = dispatch();
    String effects =
        cliAnyStatus(
            join(new String[] {"effects", "verify", project.toString(), "--model", MODEL}));

    Figures f =
        new Figures(
            expected.size(),
            records.size(),
            redelivered,
            lost,
            wrong.size(),
            lateWritten.size(),
            canonical.size(),
            provider.appliedPerKey().size(),
            provider.requests());
    System.out.printf(
        "fault %s: %s: window rows %d (oracle %d), records %d (%d redelivered), late %d (oracle"
            + " %d), lost %d, doubled %d; ledger: %d final projections (oracle %d), %s; effects:"
            + " %d windows rewarded (oracle %d), %d requests, per key %s; %s%n",
        name,
        fault,
        seen.size(),
        expected.size(),
        f.records(),
        f.redelivered(),
        f.late(),
        lateIds.size(),
        f.lost(),
        f.doubled(),
        f.projections(),
        finals.size(),
        summary(verified, " gaps, "),
        f.rewarded(),
        rewarded.size(),
        f.requests(),
        new TreeSet<>(provider.requestsPerKey().values()),
        summary(effects, " problem"));

    assertEquals(0, f.lost(), "lost: rows or late events of the oracle missing from the topics");
    assertEquals(List.of(), wrong, "records the oracle does not give (a double count)");
    assertEquals(lateIds, lateWritten, "too-late events");
    assertEquals(finals, canonical, "the canonical view holds every window's final revision");
    assertTrue(
        verified.startsWith("exit 0:") && verified.contains(" 0 gaps, 0 mismatches, 0 conflicts"),
        "ledger verify: " + verified);
    assertEquals(rewarded.size(), f.rewarded(), "one reward per rewarded window: " + passes);
    assertTrue(
        provider.requestsPerKey().values().stream().allMatch(n -> n == 1),
        "one request per effect key: " + provider.requestsPerKey());
    assertEquals(f.rewarded(), f.requests(), "no second delivery");
    assertTrue(
        effects.startsWith("exit 0:") && effects.contains("; 0 problems"),
        "effects verify: " + effects);
    return f;
  }

  /**
   * The logical windows whose reward the oracle's rows call for: some revision (the outbox
   * evaluates the rule on every new one) has revenue at or above {@link #REWARD_AT}.
   */
  static Set<String> rewarded(WindowedOutcome oracle) {
    Set<String> rewarded = new TreeSet<>();
    oracle.rows().stream()
        .filter(r -> r.status() != WindowStatus.EARLY)
        .filter(
            r ->
                new BigDecimal(String.valueOf(r.values().get("revenue"))).compareTo(REWARD_AT) >= 0)
        .forEach(r -> rewarded.add(r.logicalWindowId()));
    return rewarded;
  }

  /**
   * {@code streamform dispatch --once} until a pass claims nothing; returns what each pass printed.
   */
  List<String> dispatch() {
    List<String> passes = new ArrayList<>();
    for (int pass = 0; pass < 20; pass++) {
      String out =
          cli(
              join(
                  new String[] {
                    "dispatch", project.toString(), "--once", "--name", name, "--model", MODEL
                  }));
      passes.add(out.trim());
      if (out.matches("(?s)(.*[^0-9])?0 claimed.*")) {
        break;
      }
    }
    return passes;
  }

  /** The canonical view's final projections, once it holds {@code count} (or after a while). */
  private Map<String, String> awaitCanonical(LocalPostgres postgres, int count) throws Exception {
    Map<String, String> canonical = new TreeMap<>();
    long deadline = System.nanoTime() + LocalServices.AWAIT.toNanos();
    while (System.nanoTime() < deadline) {
      canonical.clear();
      try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), LocalPostgres.USER, "");
          ResultSet r =
              c.createStatement()
                  .executeQuery(
                      "SELECT projection_id, revision, aggregate_digest FROM"
                          + " streamform.canonical_projection WHERE model = '"
                          + MODEL
                          + "' AND status = 'final'")) {
        while (r.next()) {
          canonical.put(r.getString(1), "final " + r.getInt(2) + " " + r.getString(3));
        }
      } catch (SQLException notYet) {
        // the schema exists (`run` migrated it); a failed query is retried
      }
      if (canonical.size() >= count) {
        break;
      }
      LocalServices.checkNoJobFailed();
      Thread.sleep(500);
    }
    return canonical;
  }

  private String[] join(String[] command) {
    return Stream.concat(Stream.of(command), Stream.of(database)).toArray(String[]::new);
  }

  /** Each oracle row's identity and its aggregate digest. */
  private static Map<String, String> expected(WindowedOutcome oracle) {
    Map<String, String> rows = new TreeMap<>();
    for (WindowedOutcome.Row r : oracle.rows()) {
      rows.put(
          r.logicalWindowId() + " " + r.status().yamlName() + " " + r.revision(),
          r.aggregateDigest());
    }
    return rows;
  }

  private static String identity(TopicRecord r) {
    return r.value().get("logical_window_id").asText()
        + " "
        + r.value().get("status").asText()
        + " "
        + r.value().get("revision").asInt();
  }

  /**
   * The last line of a command's report ({@link LocalServices#cliAnyStatus}) that holds {@code
   * marker}, with the command's exit status.
   */
  private static String summary(String report, String marker) {
    String exit = report.substring(0, report.indexOf(':'));
    String body = report.substring(report.indexOf(':') + 1).trim();
    return body.lines().filter(l -> l.contains(marker)).reduce((a, b) -> b).orElse(body)
        + " ("
        + exit
        + ")";
  }

  private static Set<String> identities(List<TopicRecord> records) {
    Set<String> out = new TreeSet<>();
    records.forEach(r -> out.add(identity(r)));
    return out;
  }

  /** {@code <partition>-<offset>} of the source records that late records name. */
  private static Set<String> positions(List<TopicRecord> records) {
    Set<String> out = new TreeSet<>();
    records.forEach(
        r -> out.add(r.value().get("partition").asInt() + "-" + r.value().get("offset").asLong()));
    return out;
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
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
}
