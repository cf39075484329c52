package dev.streamform.teststreams.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.RunnerChoice;
import dev.streamform.teststreams.oracle.WindowedOracle;
import dev.streamform.teststreams.trace.TraceGenerator;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hand-over from Deduplicate to the windows on the DirectRunner, run many times: a kept late
 * event (its time behind its partition's watermark, yet on time for its window, as that watermark
 * is before the window's end) must reach its window before the window's on-time edge, every run.
 *
 * <p>Seed 2026, trace 5 of the windowed {@code ordersWithIds} model once disagreed with the oracle
 * in {@code FuzzWindowedTest}: partition 1's offset 3 (09:52:21.576, behind W_1 = 09:55:05, window
 * [09:45, 10:00)) became a correction of a window it belongs to on time. Deduplicate had released
 * it timestamped with its event time, behind Deduplicate's output watermark; the GroupByKey before
 * the windowed stage gave it no hold, so the windowed stage's watermark passed 10:00 while it was
 * on its way, depending on the runner's scheduling. Before the fix (events travel at {@code
 * LogOrder.timestampOf}, never behind their partition's watermark) 23 of 180 runs of this trace
 * disagreed on the DirectRunner (default options), and this test failed 3 times in 3 (4, 5 and 3 of
 * its 30 runs); after it, 0 of 120 runs did.
 */
class DedupWindowedHandOverTest {
  private static final FixtureRunner DIRECT = FixtureRunner.on(RunnerChoice.direct());
  private static final int RUNS = 30;

  @Test
  void aKeptLateEventReachesItsWindowBeforeTheOnTimeEdgeInEveryRun(@TempDir Path dir) {
    DeclaredModel model =
        FuzzProjects.model(
            FuzzProjects.ordersWithIds(dir.resolve("ids"), true), "customer_metrics");
    Fixture trace = TraceGenerator.forModel(model).generate(2026, 5);
    assertTrue(
        hasKeptLateEventOnTimeForItsWindow(trace),
        "trace 5 of seed 2026 no longer has an event behind its partition's watermark that is on"
            + " time for its window; pick a trace that has one");
    String expected = WindowedOracle.of(model).outcome(trace).canonical();
    int disagreeing = 0;
    String firstDiff = "";
    for (int run = 0; run < RUNS; run++) {
      String actual = DIRECT.run(model, trace).canonical();
      if (!actual.equals(expected)) {
        if (disagreeing++ == 0) {
          firstDiff = FuzzRun.diff(expected, actual);
        }
      }
    }
    assertEquals(
        0,
        disagreeing,
        disagreeing
            + " of "
            + RUNS
            + " runs disagreed with the oracle;"
            + " the first:\n"
            + firstDiff);
  }

  /**
   * Whether an event's time is behind its partition's watermark (event time - 5m, or a watermark
   * item) while that watermark is before the end of the event's 15-minute window.
   */
  private static boolean hasKeptLateEventOnTimeForItsWindow(Fixture trace) {
    long delay = Duration.ofMinutes(5).toMillis();
    long size = Duration.ofMinutes(15).toMillis();
    Map<Integer, Long> watermarks = new HashMap<>();
    for (Fixture.Given g : trace.given()) {
      Long w = watermarks.get(g.partition());
      if (g.watermark().isPresent()) {
        long t = g.watermark().get().toEpochMilli();
        if (g.allPartitions()) {
          continue; // not in this trace's kind; a partition's own items decide here
        }
        watermarks.put(g.partition(), w == null ? t : Math.max(w, t));
        continue;
      }
      Object at = g.event().get().get("ordered_at");
      if (at == null) {
        continue;
      }
      long t = Instant.parse(String.valueOf(at)).toEpochMilli();
      long end = Math.floorDiv(t, size) * size + size;
      if (w != null && t < w && w < end) {
        return true;
      }
      watermarks.put(g.partition(), w == null ? t - delay : Math.max(w, t - delay));
    }
    return false;
  }
}
