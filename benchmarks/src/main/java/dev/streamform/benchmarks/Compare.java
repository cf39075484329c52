package dev.streamform.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The summary {@code benchmarks/compare} prints: two builds' {@code results.json}, pair by pair
 * (each pair: one run of each build, alternated so the machine's load falls on both), as the ratios
 * issue 31's targets are written in (events/s of a Streamform row over its Beam baseline, and the
 * same in CPU per event) and each row's CPU per event. One run's ratio on this machine moves by
 * about a tenth from run to run; a change shows when it moves the same way in every pair.
 *
 * <p>{@code Compare DIR}: reads {@code DIR/base-<i>/results.json} and {@code
 * DIR/new-<i>/results.json} for i = 1, 2, … while both exist.
 */
public final class Compare {
  /** A Streamform row and the baseline its target is written against, on Flink p2. */
  static final List<String[]> RATIOS =
      List.of(
          new String[] {"streamform", "plain-beam"},
          new String[] {"sf-log-order", "plain-beam"},
          new String[] {"sf-hourly", "beam-windows"});

  private static final String RUNNER = "flink-p2";

  private Compare() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: Compare DIR (with DIR/base-1/results.json, DIR/new-1/…)");
      System.exit(2);
    }
    System.out.print(summary(Path.of(args[0])));
  }

  /** A row's events/s and CPU µs per event (medians of its measured rounds), by pipeline. */
  static Map<String, double[]> rows(Path results) throws IOException {
    Map<String, double[]> rows = new LinkedHashMap<>();
    for (JsonNode c : new ObjectMapper().readTree(Files.readString(results))) {
      if (RUNNER.equals(c.path("runner").asText())
          && c.path("events_per_s").isNumber()
          && c.path("cpu_us_per_event").isNumber()) {
        rows.put(
            c.path("pipeline").asText(),
            new double[] {
              c.path("events_per_s").asDouble(), c.path("cpu_us_per_event").asDouble()
            });
      }
    }
    return rows;
  }

  /** The printed summary of the pairs in {@code dir}; says so when there is none. */
  static String summary(Path dir) throws IOException {
    List<Map<String, double[]>> base = new ArrayList<>();
    List<Map<String, double[]>> changed = new ArrayList<>();
    for (int i = 1; ; i++) {
      Path b = dir.resolve("base-" + i).resolve("results.json");
      Path n = dir.resolve("new-" + i).resolve("results.json");
      if (!Files.exists(b) || !Files.exists(n)) {
        break;
      }
      base.add(rows(b));
      changed.add(rows(n));
    }
    if (base.isEmpty()) {
      return "no pair of results in " + dir + " (base-1/results.json and new-1/results.json)\n";
    }
    StringBuilder out = new StringBuilder();
    for (String[] ratio : RATIOS) {
      if (!base.get(0).containsKey(ratio[0]) || !base.get(0).containsKey(ratio[1])) {
        continue;
      }
      out.append(
          String.format(
              Locale.ROOT,
              "%s / %s on %s: events/s ratio (CPU ratio), base -> new%n",
              ratio[0],
              ratio[1],
              RUNNER));
      int lower = 0;
      for (int i = 0; i < base.size(); i++) {
        double[] bs = base.get(i).get(ratio[0]);
        double[] bb = base.get(i).get(ratio[1]);
        double[] ns = changed.get(i).get(ratio[0]);
        double[] nb = changed.get(i).get(ratio[1]);
        if (bs == null || bb == null || ns == null || nb == null) {
          out.append(String.format(Locale.ROOT, "  pair %d: a row is missing%n", i + 1));
          continue;
        }
        if (ns[1] < bs[1]) {
          lower++;
        }
        out.append(
            String.format(
                Locale.ROOT,
                "  pair %d: %.3f (%.3f) -> %.3f (%.3f); %s CPU %.1f -> %.1f µs/event%n",
                i + 1,
                bs[0] / bb[0],
                bb[1] / bs[1],
                ns[0] / nb[0],
                nb[1] / ns[1],
                ratio[0],
                bs[1],
                ns[1]));
      }
      out.append(
          String.format(
              Locale.ROOT,
              "  %s's CPU per event lower in %d of %d pairs%n",
              ratio[0],
              lower,
              base.size()));
    }
    return out.toString();
  }
}
