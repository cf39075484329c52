package dev.streamform.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code benchmarks/compare}'s summary: the ratios pair by pair, from the runs' results.json. */
class CompareTest {
  @TempDir Path dir;

  private void results(String run, double sf, double sfCpu, double plain, double plainCpu)
      throws Exception {
    Path d = Files.createDirectories(dir.resolve(run));
    Files.writeString(
        d.resolve("results.json"),
        String.format(
            java.util.Locale.ROOT,
            "[%n"
                + "  {\"pipeline\": \"streamform\", \"runner\": \"direct\", \"events_per_s\": 1,"
                + " \"cpu_us_per_event\": 1},%n"
                + "  {\"pipeline\": \"streamform\", \"runner\": \"flink-p2\", \"events_per_s\": %s,"
                + " \"cpu_us_per_event\": %s},%n"
                + "  {\"pipeline\": \"plain-beam\", \"runner\": \"flink-p2\", \"events_per_s\": %s,"
                + " \"cpu_us_per_event\": %s},%n"
                + "  {\"pipeline\": \"fixture-suite-warm\", \"runner\": \"direct\","
                + " \"events_per_s\": null}%n"
                + "]%n",
            sf,
            sfCpu,
            plain,
            plainCpu));
  }

  @Test
  void eachPairShowsBothBuildsRatiosAndTheRowsCpuPerEvent() throws Exception {
    results("base-1", 80_000, 25.0, 80_000, 25.0);
    results("new-1", 88_000, 22.5, 80_000, 25.0);
    results("base-2", 70_000, 28.0, 75_000, 26.0);
    results("new-2", 72_000, 28.5, 72_000, 27.0);
    results("base-3", 70_000, 28.0, 75_000, 26.0); // no new-3: not a pair

    assertEquals(
        String.join(
            "\n",
            "streamform / plain-beam on flink-p2: events/s ratio (CPU ratio), base -> new",
            "  pair 1: 1.000 (1.000) -> 1.100 (1.111); streamform CPU 25.0 -> 22.5 µs/event",
            "  pair 2: 0.933 (0.929) -> 1.000 (0.947); streamform CPU 28.0 -> 28.5 µs/event",
            "  streamform's CPU per event lower in 1 of 2 pairs",
            ""),
        Compare.summary(dir));
  }

  @Test
  void withoutAPairItSaysWhatItLookedFor() throws Exception {
    results("base-1", 80_000, 25.0, 80_000, 25.0);

    assertEquals(
        "no pair of results in " + dir + " (base-1/results.json and new-1/results.json)\n",
        Compare.summary(dir));
  }
}
