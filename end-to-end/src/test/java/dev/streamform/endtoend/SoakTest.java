package dev.streamform.endtoend;

import static dev.streamform.endtoend.LocalServices.awaitRunning;
import static dev.streamform.endtoend.LocalServices.killTaskManager;
import static dev.streamform.endtoend.LocalServices.produce;
import static dev.streamform.endtoend.LocalServices.script;
import static dev.streamform.endtoend.LocalServices.submit;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The soak of issue 16, run by {@code end-to-end/soak [--minutes N] [--rate R]} and never by {@code
 * mvn verify} (it runs only when {@code -Dsoak.minutes} is set): for N minutes, a batch of R events
 * a second goes through broker → cluster → topics while the TaskManager is killed with {@code kill
 * -9} once a minute and a new one started; the job ({@code --restarts}) recovers from its last
 * checkpoint each time. At the end the totals are compared with the oracle's for every event
 * produced, as {@link FaultStory#check} does for the fault suite: lost 0, doubled 0.
 *
 * <p>The events are a seeded random walk (customers {@code p*10+1..p*10+5} on partition p, each
 * event 0–10 s after its partition's last, ~10% out of order within the 5m watermark, ~5% more than
 * 5 minutes behind: late), written as one fixture-shaped file per second under {@code
 * target/faults/soak/batches/} and produced with {@code streamform produce}.
 */
@EnabledIfSystemProperty(named = "soak.minutes", matches = "[1-9][0-9]*")
class SoakTest {

  @BeforeAll
  static void startServices() throws Exception {
    LocalServices.start();
  }

  @AfterAll
  static void stopServices() throws Exception {
    try {
      script("flink", "start-taskmanager"); // a kill may have been the last thing the test did
    } finally {
      LocalServices.stop();
    }
  }

  @Test
  void steadyRateWhileTheTaskManagerIsKilledEveryMinute() throws Exception {
    int minutes = Integer.getInteger("soak.minutes");
    int rate = Integer.getInteger("soak.rate", 20);
    FaultStory story = FaultStory.of("soak");
    Path batches = Files.createDirectories(story.project.resolve("batches"));
    String job =
        submit(story.project, FaultStory.MODEL, 2, "--restarts", String.valueOf(minutes + 3));
    awaitRunning(job);

    Random random = new Random(16);
    long[] clock = new long[3]; // per partition: seconds after 10:00 of the latest event time
    Instant start = Instant.now();
    int kills = 0;
    Instant lastKill = null;
    for (int second = 0; second < minutes * 60; second++) {
      Path batch = batches.resolve(String.format(Locale.ROOT, "batch-%05d.yml", second));
      Files.writeString(batch, batch(random, clock, rate));
      produce(story.project, batch);
      story.addPhase(batch);
      if (second % 60 == 59) {
        lastKill = Instant.now();
        killTaskManager();
        script("flink", "start-taskmanager");
        kills++;
        System.out.printf("soak: minute %d: TaskManager killed and a new one started%n", kills);
      }
      // a steady rate: the next batch at its second, whatever producing this one took
      Instant next = start.plusSeconds(second + 1);
      long wait = Duration.between(Instant.now(), next).toMillis();
      if (wait > 0) {
        Thread.sleep(wait);
      }
    }
    // the last kill came with the last batch: the job must have failed over from it and run again
    // (a kill while the job still waited for slots after an earlier one fails nothing over, so
    // restarts can be fewer than kills)
    Instant killed = lastKill;
    await("the JobManager recorded the failure the last TaskManager kill caused")
        .atMost(LocalServices.AWAIT)
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> LocalServices.failuresSince(job, killed) >= 1);
    awaitRunning(job);
    FaultStory.Figures f =
        story.check(
            "soak of "
                + minutes
                + " min at "
                + rate
                + " events/s, the TaskManager"
                + " killed "
                + kills
                + " times, the job restarted "
                + LocalServices.restarts(job)
                + " times");
    assertEquals(0, f.lost(), "lost");
    assertEquals(0, f.doubled(), "doubled");
    assertTrue(f.eventsIn() == minutes * 60 * rate, "every event produced was counted in: " + f);
  }

  /**
   * One second's events as a fixture-shaped file; {@code clock} carries each partition's time on.
   */
  private static String batch(Random random, long[] clock, int events) {
    StringBuilder out = new StringBuilder("model: customer_metrics\n\ngiven:\n");
    for (int i = 0; i < events; i++) {
      int p = random.nextInt(3);
      double r = random.nextDouble();
      long t;
      if (r < 0.05 && clock[p] > 900) {
        t = clock[p] - 360 - random.nextInt(540); // 6-15 min behind: late
      } else if (r < 0.15 && clock[p] > 240) {
        t = clock[p] - random.nextInt(240); // out of order within the watermark: on time
      } else {
        clock[p] += random.nextInt(11);
        t = clock[p];
      }
      out.append(
          String.format(
              Locale.ROOT,
              "  - { partition: %d, event: { customer_id: %d, amount: %d, ordered_at: \"%s\" } }%n",
              p,
              p * 10 + 1 + random.nextInt(5),
              1 + random.nextInt(50),
              Instant.parse("2026-08-30T10:00:00Z").plusSeconds(t)));
    }
    return out.append("\nexpect: []\n").toString();
  }
}
