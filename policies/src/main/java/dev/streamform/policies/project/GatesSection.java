package dev.streamform.policies.project;

import dev.streamform.core.time.Durations;
import dev.streamform.policies.declarations.GateThresholds;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Reads {@code gates:} of {@code streamform.yml}: the release gates' thresholds, every key optional
 * with the default of docs/semantics.md §10 ({@link GateThresholds#defaults()}).
 */
final class GatesSection {
  private GatesSection() {}

  static final List<String> KEYS =
      List.of(
          "oracle_traces",
          "oracle_seed",
          "oracle_agreement",
          "missing_offsets",
          "duplicated_offsets",
          "recomputation_mismatches",
          "publication_latency_p99",
          "late_disposition",
          "effects_per_key");

  /**
   * The thresholds {@code text} (a {@code streamform.yml} whose models were read) declares under
   * {@code gates:}; the defaults without it. Problems go to {@code problems}.
   */
  static GateThresholds read(String text, List<Problem> problems) {
    // the file as a whole (a key given twice at the top level, malformed YAML) is ModelsFile's to
    // report, which read it first: only what this reads under gates: is this one's to say
    List<Problem> all = new java.util.ArrayList<>();
    Optional<YamlMap> parsed = YamlMap.parseFile(ModelsFile.NAME, text, "models:", all);
    int fileProblems = all.size();
    try {
      return read(parsed, all);
    } finally {
      problems.addAll(all.subList(fileProblems, all.size()));
    }
  }

  private static GateThresholds read(Optional<YamlMap> parsed, List<Problem> problems) {
    GateThresholds d = GateThresholds.defaults();
    if (parsed.isEmpty() || !parsed.get().has("gates")) {
      return d;
    }
    YamlMap top = parsed.get();
    Optional<YamlMap> found =
        top.map("gates", Optional.of("gates"), "gates: {publication_latency_p99: 30s}");
    if (found.isEmpty()) {
      return d;
    }
    YamlMap g = found.get();
    g.allowOnly(KEYS);
    return new GateThresholds(
        (int) whole(g, "oracle_traces", 1, 1_000_000, d.oracleTraces()),
        whole(g, "oracle_seed", Long.MIN_VALUE, Long.MAX_VALUE, d.oracleSeed()),
        percent(g, "oracle_agreement", d.oracleAgreementPercent()),
        whole(g, "missing_offsets", 0, Long.MAX_VALUE, d.missingOffsets()),
        whole(g, "duplicated_offsets", 0, Long.MAX_VALUE, d.duplicatedOffsets()),
        whole(g, "recomputation_mismatches", 0, Long.MAX_VALUE, d.recomputationMismatches()),
        latency(g, d.publicationLatencyP99()),
        percent(g, "late_disposition", d.lateDispositionPercent()),
        whole(g, "effects_per_key", 1, Long.MAX_VALUE, d.effectsPerKey()));
  }

  private static long whole(YamlMap g, String key, long min, long max, long fallback) {
    Optional<String> text = g.string(key, key + ": " + Math.max(min, fallback));
    if (text.isEmpty()) {
      return fallback;
    }
    try {
      long v = Long.parseLong(text.get().trim());
      if (v >= min && v <= max) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below, as a value out of range is
    }
    g.report(
        key,
        "'"
            + text.get()
            + "' is not a whole number"
            + (min > Long.MIN_VALUE ? " from " + min : "")
            + (max < Long.MAX_VALUE ? " to " + max : ""),
        "e.g. " + key + ": " + Math.max(min, fallback));
    return fallback;
  }

  private static double percent(YamlMap g, String key, double fallback) {
    Optional<String> text = g.string(key, key + ": 100%");
    if (text.isEmpty()) {
      return fallback;
    }
    String t = text.get().trim();
    try {
      if (t.endsWith("%")) {
        double v = Double.parseDouble(t.substring(0, t.length() - 1).trim());
        if (v >= 0 && v <= 100) {
          return v;
        }
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    g.report(key, "'" + t + "' is not a percentage from 0% to 100%", "e.g. " + key + ": 100%");
    return fallback;
  }

  private static Duration latency(YamlMap g, Duration fallback) {
    String key = "publication_latency_p99";
    Optional<String> text = g.string(key, key + ": 60s");
    if (text.isEmpty()) {
      return fallback;
    }
    try {
      Duration d = Durations.parse(text.get());
      if (!d.isZero() && !d.isNegative()) {
        return d;
      }
      g.report(key, "a latency threshold of 0s can never be met", "e.g. " + key + ": 60s");
    } catch (IllegalArgumentException e) {
      g.report(key, "bad duration: " + e.getMessage(), "e.g. " + key + ": 60s");
    }
    return fallback;
  }
}
