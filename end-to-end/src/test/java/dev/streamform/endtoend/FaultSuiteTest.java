package dev.streamform.endtoend;

import static dev.streamform.endtoend.ChangelogRows.normalized;
import static dev.streamform.endtoend.LocalServices.awaitNextCheckpoint;
import static dev.streamform.endtoend.LocalServices.awaitRunning;
import static dev.streamform.endtoend.LocalServices.cancelAll;
import static dev.streamform.endtoend.LocalServices.killTaskManager;
import static dev.streamform.endtoend.LocalServices.produce;
import static dev.streamform.endtoend.LocalServices.readUntil;
import static dev.streamform.endtoend.LocalServices.rest;
import static dev.streamform.endtoend.LocalServices.script;
import static dev.streamform.endtoend.LocalServices.submit;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.streamform.endtoend.LocalServices.TopicRecord;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.policies.project.Project;
import dev.streamform.policies.time.Timestamps;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.oracle.Oracle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fault suite of issue 16 on real services: one KRaft broker and one Flink session cluster
 * (started by {@code runners-config/bin}, stopped by pid), the upsert model {@code
 * customer_metrics} of project {@code faults/} submitted by {@code streamform run} with the shaded
 * job jar. Each test runs its own copy of the project on its own topics, injects one fault, and
 * compares everything the job wrote with the reference {@link Oracle}'s answer for the same items
 * in the same per-partition order (the fixture-shaped files of {@code faults/phases/}, or {@code
 * faults/jump.yml}):
 *
 * <ul>
 *   <li>every changelog record the oracle gives is on the topic (lost 0), and every record on the
 *       topic is the oracle's record for its causing event ({@code __event}): a record written
 *       again by a replay repeats it exactly (counted as redelivered), never a second application
 *       (doubled 0);
 *   <li>per key, the last record on the topic is the oracle's final value: what a reader of the
 *       compacted upsert topic by key sees;
 *   <li>the late and quarantine topics hold exactly the oracle's late and quarantined events.
 * </ul>
 *
 * <p>Each test prints its figures in one line ({@code fault ...: events in N, processed ...}).
 */
class FaultSuiteTest {
  private static final Path TEMPLATE = Path.of("src/test/resources/faults").toAbsolutePath();
  private static final String MODEL = "customer_metrics";

  private static boolean kafkaStarted;
  private static boolean flinkStarted;

  @BeforeAll
  static void startServices() throws Exception {
    LocalServices.requireFreePorts();
    kafkaStarted = true;
    script("kafka", "start");
    flinkStarted = true;
    script("flink", "start");
  }

  @AfterAll
  static void stopServices() throws Exception {
    try {
      if (flinkStarted) {
        script("flink", "stop");
      }
    } finally {
      if (kafkaStarted) {
        script("kafka", "stop");
      }
    }
  }

  /** Frees the slots for the next test, and brings a TaskManager back if a test left none. */
  @AfterEach
  void cleanUp() throws Exception {
    script("flink", "start-taskmanager"); // "already running" unless a kill test failed half-way
    cancelAll();
  }

  /**
   * kill -9 of the TaskManager while it reads phase 2 (phase 1 is covered by a completed
   * checkpoint); a new TaskManager is started; the job (submitted with {@code --restarts}) restarts
   * from its last checkpoint, reads phase 2 again from the checkpointed offsets, and then phase 3.
   */
  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void taskManagerKilledMidStreamRecoversFromTheLastCheckpoint() throws Exception {
    Story story = Story.of("kill", "phases/kill-1.yml", "phases/kill-2.yml", "phases/kill-3.yml");
    String job = submit(story.project, MODEL, 2, "--restarts", "3");
    awaitRunning(job);

    produce(story.project, story.phase(0));
    story.awaitChangelogOf(1);
    awaitNextCheckpoint(job); // phase 1 is now safe from a crash

    produce(story.project, story.phase(1));
    killTaskManager(); // mid-stream: phase 2 is being read and applied, and is in no checkpoint
    script("flink", "start-taskmanager");
    // the JobManager notices the loss by missed heartbeats, fails the job over, and restarts it
    await("job " + job + " restarted after the TaskManager died").atMost(LocalServices.AWAIT)
        .pollInterval(Duration.ofMillis(500)).until(() -> LocalServices.restarts(job) >= 1);
    awaitRunning(job);
    long restarts = LocalServices.restarts(job);

    produce(story.project, story.phase(2));
    Figures f = story.check("TaskManager kill -9 mid-stream (" + restarts + " restart)");
    assertEquals(0, f.lost, "lost");
    assertEquals(0, f.doubled, "doubled");
  }

  /** Stop with a savepoint at parallelism 2, restore it into a job at parallelism 1, go on. */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void savepointAtParallelismTwoRestoresIntoParallelismOne() throws Exception {
    Story story = Story.of("rescale", "phases/rescale-1.yml", "phases/rescale-2.yml");
    String job = submit(story.project, MODEL, 2);
    awaitRunning(job);
    produce(story.project, story.phase(0));
    story.awaitChangelogOf(1);
    String savepoint = LocalServices.stopWithSavepoint(job);

    produce(story.project, story.phase(1));
    String restored = submit(story.project, MODEL, 1, "--from-savepoint", savepoint);
    awaitRunning(restored);
    for (JsonNode v : rest("GET", "/jobs/" + restored, null).get("vertices")) {
      assertEquals(1, v.get("parallelism").asInt(), "restored job runs at parallelism 1: " + v.get("name"));
    }
    Figures f = story.check("savepoint at parallelism 2, restored at parallelism 1");
    assertEquals(0, f.redelivered, "a stop with savepoint leaves nothing to replay");
  }

  /**
   * A consumer offset rewind: the job is cancelled after phase 2 and a new one restored from the
   * savepoint taken after phase 1 — its state and its offsets — so it reads phase 2 again; then
   * phase 3. Then a full replay: a job with no savepoint reads the whole topic again from its
   * earliest offsets with empty state. Readers by key never see a double count.
   */
  @Test
  @Timeout(value = 7, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void offsetRewindReplaysWithoutDoubleCounting() throws Exception {
    Story story = Story.of("rewind", "phases/rewind-1.yml", "phases/rewind-2.yml", "phases/rewind-3.yml");
    String job = submit(story.project, MODEL, 2);
    awaitRunning(job);
    produce(story.project, story.phase(0));
    story.awaitChangelogOf(1);
    String afterPhase1 = LocalServices.savepoint(job); // the job goes on
    produce(story.project, story.phase(1));
    story.awaitChangelogOf(2);
    cancelAll();

    String rewound = submit(story.project, MODEL, 2, "--from-savepoint", afterPhase1);
    awaitRunning(rewound);
    produce(story.project, story.phase(2));
    int phase2 = story.oracle(2).changelog.size() - story.oracle(1).changelog.size();
    int all = story.oracle(3).changelog.size();
    Figures rewind = story.check("offset rewind to the savepoint after phase 1", all + phase2);
    assertEquals(phase2, rewind.redelivered, "phase 2's records, written once more by the rewound job");
    cancelAll();

    submit(story.project, MODEL, 2); // no savepoint: from the earliest offsets, empty state
    Figures replay = story.check("full replay from the earliest offsets", 2 * all + phase2);
    assertEquals(phase2 + all, replay.redelivered,
        "every record written once more by the replay");
  }

  /**
   * Partition 2 pauses past {@code idle_after} (5 s) while partitions 0 and 1 move two hours on;
   * the source watermark leaves partition 2 behind (observed on the cluster); then partition 2
   * resumes with events two hours behind the others: judged against its own W_2, they are on time
   * (or late only behind W_2), and the source watermark does not move back.
   */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aPartitionPausedPastIdleAfterResumesOnItsOwnClock() throws Exception {
    Story story = Story.of("idle", "phases/idle-1.yml", "phases/idle-2.yml", "phases/idle-3.yml")
        .withSourceLines("    idle_after: 5s\n");
    String job = submit(story.project, MODEL, 2);
    awaitRunning(job);
    produce(story.project, story.phase(0));
    story.awaitChangelogOf(1);
    produce(story.project, story.phase(1)); // partition 2 gets nothing from here on: it pauses
    story.awaitChangelogOf(2);
    // without idleness W = min_p W_p stays at partition 2's 09:59; idle, it follows W_0 = 11:55
    Instant released = Instant.parse("2026-08-30T11:55:00Z");
    await("the source watermark passes paused partition 2 (idle_after 5s)")
        .atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
        .until(() -> !sourceWatermark(job).isBefore(released));
    Instant before = sourceWatermark(job);

    produce(story.project, story.phase(2)); // partition 2 resumes, two hours behind
    Figures f = story.check("partition 2 idle past idle_after, resumed two hours behind");
    Instant after = sourceWatermark(job);
    assertTrue(!after.isBefore(before), "the resumed partition's first events did not move the watermark back: "
        + before + " -> " + after);
    assertEquals(0, f.lost, "lost");
  }

  /** One producer's clock jumps three hours ahead: its partition's later events are late; the others are not. */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aProducerClockJumpMakesOnlyItsOwnPartitionLate() throws Exception {
    Story story = Story.of("jump", "jump.yml");
    String job = submit(story.project, MODEL, 2);
    awaitRunning(job);
    produce(story.project, story.phase(0));
    Figures f = story.check("producer clock jump of 3 hours on partition 1");
    assertTrue(f.late > 0 && f.quarantined > 0, "the story has late and quarantined events: " + f);
  }

  /**
   * The source watermark as the job's operators see it: the smallest watermark any vertex of {@code
   * job} has on every subtask (the vertices after the clock follow its holds, W = min_p W_p over
   * partitions that are not idle; KafkaIO's own watermark, upstream of the clock, is processing
   * time; a source vertex reports none).
   */
  private static Instant sourceWatermark(String job) throws Exception {
    long smallest = Long.MAX_VALUE;
    for (JsonNode v : rest("GET", "/jobs/" + job, null).get("vertices")) {
      for (JsonNode w : rest("GET", "/jobs/" + job + "/vertices/" + v.get("id").asText() + "/watermarks", null)) {
        long value = Long.parseLong(w.get("value").asText());
        if (value != Long.MIN_VALUE) {
          smallest = Math.min(smallest, value);
        }
      }
    }
    return Instant.ofEpochMilli(smallest == Long.MAX_VALUE ? Long.MIN_VALUE : smallest);
  }

  /** What one test counted, against the oracle. */
  record Figures(int eventsIn, int processed, int late, int quarantined, int changelogRecords,
      int redelivered, int lost, int doubled) {}

  /**
   * One test's project copy (own topics) and its items: phases produced in order, compared with
   * the oracle of all phases so far.
   */
  private static final class Story {
    final String name;
    final Path project;
    final List<Path> phases = new ArrayList<>();
    final String topic;

    private Story(String name, Path project) {
      this.name = name;
      this.project = project;
      this.topic = "faults_" + name + "_metrics";
    }

    /** A copy of {@code faults/} on topics {@code faults_<name>...}, and the phase files in it. */
    static Story of(String name, String... phaseFiles) throws IOException {
      Path dir = Path.of("target", "faults", name).toAbsolutePath();
      copy(TEMPLATE, dir);
      Path sources = dir.resolve("sources.yml");
      String s = Files.readString(sources).replace("    topic: orders\n", "    topic: faults_" + name + "\n");
      Files.writeString(sources, s);
      Path models = dir.resolve("streamform.yml");
      String topic = "faults_" + name + "_metrics";
      Files.writeString(models, Files.readString(models) + "    topic: " + topic + "\n"
          + "    late_topic: " + topic + ".late\n    quarantine_topic: " + topic + ".quarantine\n");
      Story story = new Story(name, dir);
      for (String f : phaseFiles) {
        story.phases.add(dir.resolve(f));
      }
      return story;
    }

    /** Adds lines to the source's declaration (before the job is submitted). */
    Story withSourceLines(String lines) throws IOException {
      Path sources = project.resolve("sources.yml");
      Files.writeString(sources, Files.readString(sources) + lines);
      return this;
    }

    Path phase(int i) {
      return phases.get(i);
    }

    /** The oracle's answer for the first {@code n} phases, delivered in order. */
    FixtureOutcome oracle(int n) throws Exception {
      Project p = Project.load(project);
      List<Fixture.Given> given = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        given.addAll(Fixture.load(p, phases.get(i)).given());
      }
      return Oracle.of(DeclaredModel.of(p, MODEL)).run(given);
    }

    int eventsIn(int n) throws Exception {
      Project p = Project.load(project);
      int events = 0;
      for (int i = 0; i < n; i++) {
        events += (int) Fixture.load(p, phases.get(i)).given().stream().filter(g -> g.event().isPresent()).count();
      }
      return events;
    }

    /** Waits until the changelog topic holds a record for every event the first {@code n} phases change. */
    void awaitChangelogOf(int n) throws Exception {
      Set<String> events = new TreeSet<>();
      oracle(n).changelog.forEach(c -> events.add(c.eventId));
      readUntil(topic, "a record for each of " + events.size() + " events",
          records -> causes(records).containsAll(events));
    }

    /**
     * Reads the three topics once they hold the oracle's answer for every phase, prints the
     * figures and asserts them.
     */
    Figures check(String fault) throws Exception {
      return check(fault, 0);
    }

    /** {@link #check(String)} once the changelog topic also holds at least {@code atLeast} records. */
    Figures check(String fault, int atLeast) throws Exception {
      FixtureOutcome oracle = oracle(phases.size());
      Map<String, Map<String, Object>> expected = new TreeMap<>();
      Map<String, Map<String, Object>> finalByKey = new TreeMap<>();
      for (FixtureOutcome.Change c : oracle.changelog) {
        Map<String, Object> row = new LinkedHashMap<>(c.values);
        row.put("op", c.op);
        expected.put(c.eventId, normalized(row));
        finalByKey.put(String.valueOf(c.values.get("customer_id")), normalized(row));
      }
      Set<String> lateIds = new TreeSet<>();
      oracle.late.forEach(d -> lateIds.add(d.eventId));
      Set<String> quarantinedIds = new TreeSet<>();
      oracle.quarantined.forEach(q -> quarantinedIds.add(q.eventId));

      List<TopicRecord> changelog = readUntil(topic, "the oracle's " + expected.size() + " changelog events",
          read -> read.size() >= atLeast && causes(read).containsAll(expected.keySet()));
      List<TopicRecord> late = readUntil(topic + ".late", lateIds.size() + " late events",
          records -> positions(records).containsAll(lateIds));
      List<TopicRecord> quarantine = readUntil(topic + ".quarantine", quarantinedIds.size() + " quarantined records",
          records -> positions(records).containsAll(quarantinedIds));

      Map<String, Map<String, Object>> firstSeen = new TreeMap<>();
      Map<String, Map<String, Object>> lastByKey = new TreeMap<>();
      int redelivered = 0;
      int doubled = 0;
      List<String> wrong = new ArrayList<>();
      for (TopicRecord r : changelog) { // topic order: a key lives in one topic partition
        Map<String, Object> row = new LinkedHashMap<>();
        r.value().fields().forEachRemaining(f -> {
          if (!f.getKey().equals("__event")) {
            row.put(f.getKey(), f.getValue().isNumber() ? f.getValue().decimalValue() : f.getValue().asText());
          }
        });
        Map<String, Object> shown = normalized(row);
        String cause = r.value().get("__event").asText();
        lastByKey.put(String.valueOf(shown.get("customer_id")), shown);
        if (!shown.equals(expected.get(cause))) {
          doubled++; // applied twice, or applied to the wrong state: not what the oracle gives for it
          wrong.add(cause + " " + shown + " (oracle: " + expected.get(cause) + ")");
        } else if (firstSeen.putIfAbsent(cause, shown) != null) {
          redelivered++; // the same record again: a replay after recovery, harmless to readers by key
        }
      }
      Set<String> written = causes(changelog);
      int lost = (int) expected.keySet().stream().filter(e -> !written.contains(e)).count();
      Set<String> lateWritten = positions(late);
      Set<String> quarantinedWritten = positions(quarantine);
      Figures f = new Figures(eventsIn(phases.size()), written.size(), lateWritten.size(),
          quarantinedWritten.size(), changelog.size(), redelivered, lost, doubled);
      System.out.printf("fault %s: %s: events in %d, processed %d (oracle %d), late %d (oracle %d),"
              + " quarantined %d (oracle %d), changelog records %d (%d distinct, %d redelivered),"
              + " lost %d, doubled %d%n",
          name, fault, f.eventsIn, f.processed, oracle.processed, f.late, lateIds.size(), f.quarantined,
          quarantinedIds.size(), f.changelogRecords, firstSeen.size(), f.redelivered, f.lost, f.doubled);

      assertEquals(List.of(), wrong, "records the oracle does not give for their event (a double count)");
      assertEquals(expected.keySet(), written, "changelog events: the oracle's, each at least once");
      assertEquals(oracle.processed, f.processed, "events processed");
      assertEquals(finalByKey, lastByKey, "per key, the last record on the upsert topic is the oracle's final value");
      assertEquals(lateIds, lateWritten, "late events");
      assertEquals(quarantinedIds, quarantinedWritten, "quarantined events");
      assertEquals(f.eventsIn, f.processed + f.late + f.quarantined, "every event processed, late or quarantined");
      return f;
    }
  }

  /** The causing events ({@code __event}) of changelog records. */
  private static Set<String> causes(List<TopicRecord> records) {
    Set<String> out = new TreeSet<>();
    records.forEach(r -> out.add(r.value().get("__event").asText()));
    return out;
  }

  /** {@code <partition>-<offset>} of the source records that late or quarantine records name. */
  private static Set<String> positions(List<TopicRecord> records) {
    Set<String> out = new TreeSet<>();
    records.forEach(r -> out.add(r.value().get("partition").asInt() + "-" + r.value().get("offset").asLong()));
    return out;
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }
}
