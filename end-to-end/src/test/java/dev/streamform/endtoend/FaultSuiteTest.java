package dev.streamform.endtoend;

import static dev.streamform.endtoend.LocalServices.awaitNextCheckpoint;
import static dev.streamform.endtoend.LocalServices.awaitRunning;
import static dev.streamform.endtoend.LocalServices.cancelAll;
import static dev.streamform.endtoend.LocalServices.checkpoint;
import static dev.streamform.endtoend.LocalServices.killTaskManager;
import static dev.streamform.endtoend.LocalServices.produce;
import static dev.streamform.endtoend.LocalServices.rest;
import static dev.streamform.endtoend.LocalServices.script;
import static dev.streamform.endtoend.LocalServices.submit;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.streamform.core.time.WindowStatus;
import dev.streamform.endtoend.WindowedFaultStory.Phase;
import dev.streamform.runners.postgres.LocalPostgres;
import dev.streamform.sink.effects.LocalProviderServer;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.oracle.WindowedOutcome;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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
 * job jar. Each test runs its own copy of the project on its own topics ({@link FaultStory}),
 * injects one fault, and compares everything the job wrote with the reference oracle's answer for
 * the same items in the same per-partition order (the fixture-shaped files of {@code
 * faults/phases/}, or {@code faults/jump.yml}); each prints its figures in one line ({@code fault
 * ...: events in N, processed ...}).
 */
class FaultSuiteTest {
  private static final String MODEL = FaultStory.MODEL;

  /**
   * The checkpoint interval of a job whose checkpoints the test takes by hand ({@link
   * LocalServices#checkpoint}): no periodic checkpoint within a test's minutes, so what a restart
   * replays is known (everything after the last checkpoint the test took).
   */
  private static final Duration BY_HAND = Duration.ofHours(1);

  /**
   * Milliseconds between a job's failure and its restart: Flink's default for a job that asks for
   * restarts is 10 s, which every restart of the suite waited out for nothing.
   */
  private static final String RESTART_DELAY = "1000";

  /**
   * How many restarts a job that must survive a killed TaskManager asks for: each attempt before
   * the new TaskManager has registered fails at once for want of slots, so with restarts 1 s apart
   * the count is the time the new one may take to register (3, enough at 10 s apart, ran out on a
   * busy CI machine: "Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy
   * (maxNumberRestartAttempts=3, backoffTimeMS=1000)").
   */
  private static final String RESTARTS = "90";

  /**
   * The retention of the stories that run with one (docs/semantics.md §3): short enough that keys
   * expire in every phase of them (each asserts it of the oracle before it runs).
   */
  private static final String RETENTION = "1m";

  @BeforeAll
  static void startServices() throws Exception {
    LocalServices.start();
  }

  @AfterAll
  static void stopServices() throws Exception {
    LocalServices.stop();
  }

  /** Frees the slots for the next test, and brings a TaskManager back if a test left none. */
  @AfterEach
  void cleanUp() throws Exception {
    script("flink", "start-taskmanager"); // "already running" unless a kill test failed half-way
    cancelAll();
  }

  /**
   * kill -9 of the TaskManager once phase 2 is written and no checkpoint covers it: checkpoints are
   * taken by hand only, the last one after phase 1; the model declares {@code retention}, and keys
   * expire in both phases. A new TaskManager is started; the job (submitted with {@code
   * --restarts}) restarts from that checkpoint — state, expiry timers and offsets — reads phase 2
   * again, and writes each of its records once more: the replay is asserted, record for record
   * (redelivered = phase 2's records), and none differs from the oracle's (doubled 0). Then phase
   * 3.
   */
  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void taskManagerKilledMidStreamRecoversFromTheLastCheckpoint() throws Exception {
    FaultStory story =
        FaultStory.of("kill", "phases/kill-1.yml", "phases/kill-2.yml", "phases/kill-3.yml")
            .withRetention(RETENTION);
    assertTrue(
        story.expiries(1) > 0 && story.expiries(2) > story.expiries(1),
        "keys expire before the checkpoint and in the phase the restart replays");
    int phase2 = story.oracle(2).changelog.size() - story.oracle(1).changelog.size();
    String job = submitSurvivingKills(story.project, MODEL);
    awaitRunning(job);

    produce(story.project, story.phase(0));
    story.awaitChangelogOf(1);
    checkpoint(job); // phase 1 is now safe from a crash; nothing after it will be

    produce(story.project, story.phase(1));
    story.awaitChangelogOf(2); // every record of phase 2 is written, and in no checkpoint
    killTaskManager();
    script("flink", "start-taskmanager");
    // the JobManager notices the loss by missed heartbeats, fails the job over, and restarts it
    await("job " + job + " restarted after the TaskManager died")
        .atMost(LocalServices.AWAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(() -> LocalServices.restarts(job) >= 1);
    awaitRunning(job);
    long restarts = LocalServices.restarts(job);

    produce(story.project, story.phase(2));
    FaultStory.Figures f =
        story.check(
            "TaskManager kill -9 after phase 2, retention "
                + RETENTION
                + " ("
                + restarts
                + " restart)",
            story.oracle(3).changelog.size() + phase2);
    assertEquals(phase2, f.redelivered(), "replayed: phase 2's records, each written once more");
    assertEquals(0, f.doubled(), "doubled");
  }

  /**
   * Duplicate event ids across a checkpoint and a TaskManager kill -9 (issue 16): the source
   * declares {@code event_id: order_id} ({@code duplicates_within: 1h}). Phase 1 repeats some of
   * its own orders (exactly: duplicates; with another amount: conflicts) and is covered by a
   * completed checkpoint; phase 2 begins with repeats of phase 1's orders, whose first delivery is
   * in that checkpoint's state, and the TaskManager is killed while it is read; after the restart
   * the job reads phase 2 again from the checkpointed offsets — its first deliveries must be new
   * again, not duplicates of themselves — and phase 3 repeats orders of phases 1 and 2. Every
   * duplicate is dropped once, every conflict quarantined with its reason, as the oracle says.
   */
  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void duplicateIdsBeforeAndAfterACheckpointAndAcrossATaskManagerKill() throws Exception {
    FaultStory story =
        FaultStory.of("dups", "phases/dups-1.yml", "phases/dups-2.yml", "phases/dups-3.yml")
            .withEventId("1h");
    // the cases the story is about, as the oracle judges the inputs (before anything runs)
    FixtureOutcome phase1 = story.oracle(1);
    assertTrue(!phase1.duplicates.isEmpty(), "phase 1 has duplicates before the checkpoint");
    assertTrue(
        phase1.quarantined.stream().anyMatch(q -> q.reason.contains("another payload")),
        "phase 1 has a conflict before the checkpoint");
    assertTrue(
        story.duplicatesOf(0, 1) > 0,
        "phases 2-3 repeat orders first delivered in phase 1 (checkpointed)");
    assertTrue(
        story.duplicatesOf(0, 2) > 0, "phase 3 (after the restart) repeats orders of phase 1");
    assertTrue(
        story.duplicatesOf(1, 2) > 0,
        "phase 3 repeats orders first delivered in phase 2 (replayed)");
    int phase2 = story.oracle(2).changelog.size() - story.oracle(1).changelog.size();
    String job = submitSurvivingKills(story.project, MODEL);
    awaitRunning(job);

    produce(story.project, story.phase(0));
    story.awaitChangelogOf(1);
    checkpoint(job); // phase 1 and the ids it registered are now safe from a crash

    produce(story.project, story.phase(1));
    story.awaitChangelogOf(2); // phase 2, its repeats of phase 1 among them: in no checkpoint
    killTaskManager();
    script("flink", "start-taskmanager");
    await("job " + job + " restarted after the TaskManager died")
        .atMost(LocalServices.AWAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(() -> LocalServices.restarts(job) >= 1);
    awaitRunning(job);
    long restarts = LocalServices.restarts(job);

    produce(story.project, story.phase(2)); // repeats of phases 1 and 2 after the restart
    FaultStory.Figures f =
        story.check(
            "duplicate ids across a checkpoint and a TaskManager kill -9 ("
                + restarts
                + " restart)",
            story.oracle(3).changelog.size() + phase2);
    assertEquals(phase2, f.redelivered(), "replayed: phase 2's records, each written once more");
    assertEquals(0, f.doubled(), "doubled");
    assertTrue(
        f.duplicates() > 0 && f.conflicts() > 0, "the story has duplicates and conflicts: " + f);
  }

  /**
   * The late topic refuses every write mid-stream (docs/semantics.md §2: the late output is as
   * durable as the main one). Phase 2's late events are on the topic before the fault, and no
   * checkpoint covers them yet (a checkpoint every 15 s, the last one just before phase 2); the
   * broker refuses every record of the late topic ({@code max.message.bytes} smaller than any
   * record) while phase 3 is read: the job must fail and restart from its last checkpoint instead
   * of dropping phase 3's late events. Once the restart is seen, the topic takes writes again, and
   * every late event is on it afterwards (read committed), once by its position: the writes are at
   * least once, like the changelog's, so the replay after the restart writes phase 2's late events
   * again, identical; the figure line counts those records (docs/decisions/0037).
   */
  @Test
  @Timeout(value = 9, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void anUnwritableLateTopicFailsTheJobWhichRestartsFromItsCheckpointAndLosesNothing()
      throws Exception {
    FaultStory story =
        FaultStory.of("unwritable", "phases/kill-1.yml", "phases/kill-2.yml", "phases/kill-3.yml");
    String lateTopic = story.topic + ".late";
    assertTrue(
        story.oracle(3).late.size() > story.oracle(2).late.size()
            && story.oracle(2).late.size() > story.oracle(1).late.size(),
        "phases 2 and 3 have late events");
    String job =
        submit(
            story.project,
            MODEL,
            2,
            Duration.ofSeconds(15),
            "--restarts",
            "1000",
            "--restart-delay",
            RESTART_DELAY);
    awaitRunning(job);

    produce(story.project, story.phase(0));
    story.awaitChangelogOf(1);
    awaitNextCheckpoint(job);
    produce(story.project, story.phase(1));
    story.awaitLateOf(2); // phase 2's late events are written

    LocalServices.topicConfig(lateTopic, "max.message.bytes", "64"); // every late record is larger
    Instant refused = Instant.now();
    produce(story.project, story.phase(2));
    // The refused write fails the job only when the writer sees the producer's error, at a later
    // send or flush (the producer may retry until its delivery timeout, 2 minutes by default): on
    // a loaded machine that took longer than the usual wait (no restart within 2 minutes while
    // the suite ran beside other builds; the whole test took 95 s alone).
    await("job " + job + " restarted after the late topic refused its writes")
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> LocalServices.restarts(job) >= 1);
    int failures = LocalServices.failuresSince(job, refused);
    LocalServices.topicConfig(lateTopic, "max.message.bytes", null); // writable again
    awaitRunning(job);
    long restarts = LocalServices.restarts(job);

    FaultStory.Figures f =
        story.check(
            "late topic unwritable mid-stream ("
                + restarts
                + " restarts, "
                + failures
                + " failures before it was writable again)");
    assertTrue(restarts > 0, "the job restarted from its checkpoint");
    assertEquals(story.oracle(3).late.size(), f.late(), "every late event is on the late topic");
    assertEquals(0, f.doubled(), "doubled");
  }

  /**
   * Stop with a savepoint at parallelism 2, restore it into a job at parallelism 1, go on; the
   * model declares {@code retention}, and keys expire before the savepoint and after the restore.
   */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void savepointAtParallelismTwoRestoresIntoParallelismOne() throws Exception {
    FaultStory story =
        FaultStory.of("rescale", "phases/rescale-1.yml", "phases/rescale-2.yml")
            .withRetention(RETENTION);
    assertTrue(
        story.expiries(1) > 0 && story.expiries(2) > story.expiries(1),
        "keys expire before the savepoint and after the restore");
    String job = submit(story.project, MODEL, 2);
    awaitRunning(job);
    produce(story.project, story.phase(0));
    story.awaitChangelogOf(1);
    String savepoint = LocalServices.stopWithSavepoint(job);

    produce(story.project, story.phase(1));
    String restored = submit(story.project, MODEL, 1, "--from-savepoint", savepoint);
    awaitRunning(restored);
    for (JsonNode v : rest("GET", "/jobs/" + restored, null).get("vertices")) {
      assertEquals(
          1, v.get("parallelism").asInt(), "restored job runs at parallelism 1: " + v.get("name"));
    }
    FaultStory.Figures f =
        story.check(
            "savepoint at parallelism 2, restored at parallelism 1, retention " + RETENTION);
    assertEquals(0, f.redelivered(), "a stop with savepoint leaves nothing to replay");
  }

  /**
   * Rescale up from a savepoint: stop with a savepoint at parallelism 2 on one TaskManager, start a
   * second TaskManager (2 slots each), restore into a job at parallelism 4 whose subtasks run on
   * both, go on; the model declares {@code retention}, and keys expire before the savepoint and
   * after the restore: their state and expiry timers move to other subtasks (key groups are split
   * anew) and still expire where the oracle says.
   */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void savepointAtParallelismTwoRestoresIntoParallelismFourOverTwoTaskManagers() throws Exception {
    FaultStory story =
        FaultStory.of("rescale_up", "phases/rescale-1.yml", "phases/rescale-2.yml")
            .withRetention(RETENTION);
    assertTrue(
        story.expiries(1) > 0 && story.expiries(2) > story.expiries(1),
        "keys expire before the savepoint and after the restore");
    String job = submit(story.project, MODEL, 2);
    awaitRunning(job);
    produce(story.project, story.phase(0));
    story.awaitChangelogOf(1);
    String savepoint = LocalServices.stopWithSavepoint(job);

    produce(story.project, story.phase(1));
    script("flink", "start-taskmanager", "2");
    try {
      String restored = submit(story.project, MODEL, 4, "--from-savepoint", savepoint);
      awaitRunning(restored);
      Set<String> taskManagers = taskManagersOf(restored, 4);
      assertEquals(2, taskManagers.size(), "subtasks on both TaskManagers: " + taskManagers);
      FaultStory.Figures f =
          story.check(
              "savepoint at parallelism 2, restored at parallelism 4 over 2 TaskManagers,"
                  + " retention "
                  + RETENTION);
      assertEquals(0, f.redelivered(), "a stop with savepoint leaves nothing to replay");
    } finally {
      cancelAll(); // frees the second TaskManager's slots before it stops
      script("flink", "stop-taskmanager", "2");
    }
  }

  /**
   * The windowed model {@code customer_windows} (10-minute windows, 5 minutes of allowed lateness,
   * a reward effect when a window's revenue reaches 250) under the three faults in a row, its
   * revisions written to PostgreSQL and its effects sent to a provider that does not deduplicate.
   * Each phase ends with a watermark item to every partition that closes its windows (phase 1 the
   * 10:00 windows, phase 2 the 10:10 ones, phase 3 all), and the expected answer is the oracle's
   * for a topic that has not ended. A savepoint and a checkpoint by hand after phase 1; phase 2,
   * whose rows are all written (and in no checkpoint), its rewards dispatched; kill -9 of the
   * TaskManager, so the restarted job writes phase 2's rows again (asserted, row for row); phase 3
   * and the first check. Then a rewind and a rescale up at once: the job is cancelled and a new one
   * restored from the savepoint after phase 1 at parallelism 4 over two TaskManagers, which writes
   * the rows of phases 2 and 3 once more. After each, every record on the window topic is the
   * oracle's, lost is 0 (counted), {@code ledger verify} finds no gap, mismatch or conflict, the
   * canonical view holds the oracle's final revisions, and each rewarded window got exactly one
   * request.
   */
  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aWindowedModelWithLedgerAndEffectsUnderKillRewindAndRescale() throws Exception {
    long started = System.nanoTime();
    java.util.function.Consumer<String> step = // where the story's minutes go, for the CI budget
        what ->
            System.out.printf(
                "windowed: %s at %d s%n", what, (System.nanoTime() - started) / 1_000_000_000);
    try (LocalProviderServer provider = LocalProviderServer.start(0);
        LocalPostgres postgres = LocalPostgres.temporary()) {
      postgres.start();
      step.accept("PostgreSQL started");
      provider.dedupe(false); // a second delivery must show as a second effect
      // each item 1 s past the edges it closes: on the Flink runner an event-time timer fires once
      // the watermark has passed its time, so a final due at exactly W = end + 5m would wait for
      // W's next move (a live topic's next item), which the story's last phase never gets
      WindowedFaultStory story =
          WindowedFaultStory.of(
              "windowed",
              provider,
              postgres,
              new Phase("phases/kill-1.yml", "2026-08-30T10:15:01Z"),
              new Phase("phases/kill-2.yml", "2026-08-30T10:25:01Z"),
              new Phase("phases/kill-3.yml", "2026-08-30T11:00:01Z"));
      // the cases the story is about, as the oracle judges the items (before anything runs)
      int[] rows = new int[4];
      int[] finals = new int[4];
      for (int n = 1; n <= 3; n++) {
        WindowedOutcome o = story.oracle(n);
        rows[n] = o.rows().size();
        finals[n] = o.windowsFinalized();
      }
      assertTrue(
          finals[1] > 0 && finals[2] > finals[1] && finals[3] > finals[2],
          "each phase closes windows: " + finals[1] + ", " + finals[2] + ", " + finals[3]);
      assertTrue(
          story.oracle(2).rows().stream().anyMatch(r -> r.status() == WindowStatus.CORRECTED),
          "corrections before the kill");
      assertTrue(!story.oracle(3).late().isEmpty(), "too-late events");
      int rewardedBeforeKill = WindowedFaultStory.rewarded(story.oracle(2)).size();
      assertTrue(rewardedBeforeKill > 0, "rewards dispatched before the kill");
      String model = WindowedFaultStory.MODEL;
      String[] options =
          Stream.concat(
                  Stream.of("--restarts", RESTARTS, "--restart-delay", RESTART_DELAY),
                  Stream.of(story.database()))
              .toArray(String[]::new);
      String job = submit(story.project, model, 2, BY_HAND, options);
      step.accept("job submitted");
      awaitRunning(job);
      step.accept("job running");

      produce(story.project, story.phase(0));
      story.awaitRowsOf(1);
      String afterPhase1 = LocalServices.savepoint(job);
      checkpoint(job); // what the restart after the kill restores
      int before = LocalServices.readToEnd(story.topic).size();
      step.accept("phase 1 written, savepoint and checkpoint taken");

      produce(story.project, story.phase(1));
      story.awaitRowsOf(2);
      story.dispatch(); // phase 2's rewards are delivered before the replay writes them again
      assertEquals(rewardedBeforeKill, provider.requests(), "rewards delivered before the kill");
      step.accept("phase 2 written and dispatched");
      killTaskManager();
      int atKill = LocalServices.readToEnd(story.topic).size();
      assertEquals(
          rows[2] - rows[1], atKill - before, "phase 2's rows, written after the last checkpoint");
      script("flink", "start-taskmanager");
      await("job " + job + " restarted after the TaskManager died")
          .atMost(LocalServices.AWAIT)
          .pollInterval(Duration.ofMillis(500))
          .until(() -> LocalServices.restarts(job) >= 1);
      awaitRunning(job);
      step.accept("job restarted after the kill");

      produce(story.project, story.phase(2));
      WindowedFaultStory.Figures killed =
          story.check(
              "TaskManager kill -9 after phase 2", rows[3] + atKill - before, postgres, provider);
      assertEquals(
          atKill - before, killed.redelivered(), "replayed: phase 2's rows, each written again");
      cancelAll();
      step.accept("checked after the kill");

      script("flink", "start-taskmanager", "2");
      try {
        String rewound =
            submit(
                story.project,
                model,
                4,
                Stream.concat(Stream.of("--from-savepoint", afterPhase1), Stream.of(options))
                    .toArray(String[]::new));
        awaitRunning(rewound);
        step.accept("restored at parallelism 4");
        assertEquals(2, taskManagersOf(rewound, 4).size(), "subtasks on both TaskManagers");
        int again = rows[3] - rows[1];
        WindowedFaultStory.Figures rewind =
            story.check(
                "rewind to the savepoint after phase 1, restored at parallelism 4 over 2"
                    + " TaskManagers",
                killed.records() + again,
                postgres,
                provider);
        assertEquals(
            killed.redelivered() + again,
            rewind.redelivered(),
            "replayed: the rows of phases 2 and 3, each written once more");
        step.accept("checked after the rewind");
      } finally {
        cancelAll();
        script("flink", "stop-taskmanager", "2");
      }
    }
  }

  /**
   * The TaskManagers {@code job}'s subtasks run on, after asserting that every vertex runs at
   * {@code parallelism}.
   */
  private static Set<String> taskManagersOf(String job, int parallelism) throws Exception {
    Set<String> taskManagers = new TreeSet<>();
    for (JsonNode v : rest("GET", "/jobs/" + job, null).get("vertices")) {
      assertEquals(
          parallelism,
          v.get("parallelism").asInt(),
          "restored job runs at parallelism " + parallelism + ": " + v.get("name"));
      String vertex = "/jobs/" + job + "/vertices/" + v.get("id").asText();
      for (JsonNode tm : rest("GET", vertex + "/taskmanagers", null).get("taskmanagers")) {
        taskManagers.add(tm.get("taskmanager-id").asText());
      }
    }
    return taskManagers;
  }

  /**
   * A consumer offset rewind: the job is cancelled after phase 2 and a new one restored from the
   * savepoint taken after phase 1 — its state and its offsets — so it reads phase 2 again; then
   * phase 3. Then a full replay: a job with no savepoint reads the whole topic again from its
   * earliest offsets with empty state. Readers by key never see a double count. The model declares
   * {@code retention}: expiry in event time gives the same records on every replay.
   */
  @Test
  @Timeout(value = 7, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void offsetRewindReplaysWithoutDoubleCounting() throws Exception {
    FaultStory story =
        FaultStory.of("rewind", "phases/rewind-1.yml", "phases/rewind-2.yml", "phases/rewind-3.yml")
            .withRetention(RETENTION);
    assertTrue(
        story.expiries(1) > 0 && story.expiries(2) > story.expiries(1),
        "keys expire before the savepoint and in the phase the rewind reads again");
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
    FaultStory.Figures rewind =
        story.check(
            "offset rewind to the savepoint after phase 1, retention " + RETENTION, all + phase2);
    assertEquals(
        phase2, rewind.redelivered(), "phase 2's records, written once more by the rewound job");
    cancelAll();

    submit(story.project, MODEL, 2); // no savepoint: from the earliest offsets, empty state
    FaultStory.Figures replay =
        story.check(
            "full replay from the earliest offsets, retention " + RETENTION, 2 * all + phase2);
    assertEquals(
        phase2 + all, replay.redelivered(), "every record written once more by the replay");
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
    FaultStory story =
        FaultStory.of("idle", "phases/idle-1.yml", "phases/idle-2.yml", "phases/idle-3.yml")
            .withSourceLines("    idle_after: 5s\n")
            .withModelLines("    generation: 3\n");
    String job = submit(story.project, MODEL, 2);
    awaitRunning(job);
    produce(story.project, story.phase(0));
    story.awaitChangelogOf(1);
    produce(story.project, story.phase(1)); // partition 2 gets nothing from here on: it pauses
    story.awaitChangelogOf(2);
    // the clock says partition 2 went idle before it may resume: the vertices' watermarks alone
    // can pass 11:55 before then (a vertex after the clock that has no watermark yet reports none
    // and is skipped, leaving the source's processing-time one), and phase 3 would then meet a
    // partition the clock still holds, with no idle or resumed marker due (seen once in CI)
    LocalServices.awaitRecords(
        MODEL + ".idle",
        "partition 2's idle marker, before it resumes",
        rs -> marker(rs, "idle", 2));
    // without idleness W = min_p W_p stays at partition 2's 09:59; idle, it follows W_0 = 11:55
    Instant released = Instant.parse("2026-08-30T11:55:00Z");
    await("the source watermark passes paused partition 2 (idle_after 5s)")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> !sourceWatermark(job).isBefore(released));
    Instant before = sourceWatermark(job);

    produce(story.project, story.phase(2)); // partition 2 resumes, two hours behind
    FaultStory.Figures f =
        story.check("partition 2 idle past idle_after, resumed two hours behind");
    Instant after = sourceWatermark(job);
    assertTrue(
        !after.isBefore(before),
        "the resumed partition's first events did not move the watermark back: "
            + before
            + " -> "
            + after);
    assertEquals(0, f.redelivered(), "nothing replayed: no record written twice");

    // the idle markers the job wrote (docs/semantics.md §9.7): partition 2 went idle and resumed,
    // each marker naming the model's generation, no resumed partition's watermark moved back
    List<LocalServices.TopicRecord> markers =
        LocalServices.readUntil(
            MODEL + ".idle",
            "partition 2's idle and resumed markers",
            rs -> marker(rs, "idle", 2) && marker(rs, "resumed", 2));
    List<String> wrong = new ArrayList<>();
    for (LocalServices.TopicRecord r : markers) {
      JsonNode m = r.value();
      if (m.path("generation").asInt() != 3) {
        wrong.add("not generation 3: " + m);
      }
      if (m.path("kind").asText().equals("resumed")
          && m.hasNonNull("watermark")
          && Instant.parse(m.get("watermark_after").asText())
              .isBefore(Instant.parse(m.get("watermark").asText()))) {
        wrong.add("watermark moved back: " + m);
      }
    }
    System.out.println(
        "fault idle: "
            + markers.size()
            + " idle markers on "
            + MODEL
            + ".idle, e.g. "
            + markers.stream()
                .filter(r -> r.value().path("partition").asInt() == 2)
                .map(r -> r.value().toString())
                .toList());
    assertEquals(List.of(), wrong, "idle markers on the topic");
  }

  /** True when {@code records} hold a marker of {@code kind} for {@code partition}. */
  private static boolean marker(List<LocalServices.TopicRecord> records, String kind, int p) {
    return records.stream()
        .anyMatch(
            r ->
                r.value().path("kind").asText().equals(kind)
                    && r.value().path("partition").asInt() == p);
  }

  /**
   * One producer's clock jumps three hours ahead: its partition's later events are late; the others
   * are not.
   */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aProducerClockJumpMakesOnlyItsOwnPartitionLate() throws Exception {
    FaultStory story = FaultStory.of("jump", "jump.yml");
    String job = submit(story.project, MODEL, 2);
    awaitRunning(job);
    produce(story.project, story.phase(0));
    FaultStory.Figures f = story.check("producer clock jump of 3 hours on partition 1");
    assertTrue(
        f.late() > 0 && f.quarantined() > 0, "the story has late and quarantined events: " + f);
    assertEquals(0, f.redelivered(), "nothing replayed: no record written twice");
  }

  /**
   * Submits {@code model} at parallelism 2, checkpointed by hand only ({@link #BY_HAND}), asking
   * for {@link #RESTARTS} restarts {@link #RESTART_DELAY} ms apart so that it outlives a killed
   * TaskManager.
   */
  private static String submitSurvivingKills(Path project, String model) {
    return submit(
        project, model, 2, BY_HAND, "--restarts", RESTARTS, "--restart-delay", RESTART_DELAY);
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
      for (JsonNode w :
          rest("GET", "/jobs/" + job + "/vertices/" + v.get("id").asText() + "/watermarks", null)) {
        long value = Long.parseLong(w.get("value").asText());
        if (value != Long.MIN_VALUE) {
          smallest = Math.min(smallest, value);
        }
      }
    }
    return Instant.ofEpochMilli(smallest == Long.MAX_VALUE ? Long.MIN_VALUE : smallest);
  }
}
