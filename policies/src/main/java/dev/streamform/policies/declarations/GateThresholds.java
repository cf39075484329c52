package dev.streamform.policies.declarations;

import java.time.Duration;

/**
 * The release gates' thresholds of a project ({@code gates:} in {@code streamform.yml}), each with
 * the default docs/semantics.md §10 gives; {@code streamform gates} measures a figure per gate and
 * compares it with these.
 *
 * @param oracleTraces how many generated traces the oracle gate runs
 * @param oracleSeed the seed of those traces (the same seed gives the same traces)
 * @param oracleAgreementPercent the share of traces that must agree with the oracle, 0-100
 * @param missingOffsets the most source offsets the run may leave unaccounted for
 * @param duplicatedOffsets the most source offsets the run may account for twice
 * @param recomputationMismatches the most projections whose value may differ from a recomputation
 *     from the ledger
 * @param publicationLatencyP99 the P99 of a correction's publication latency must stay below it
 * @param lateDispositionPercent the share of too-late events that must have a disposition, 0-100
 * @param effectsPerKey the most provider-side effects one effect key may have produced
 */
public record GateThresholds(
    int oracleTraces,
    long oracleSeed,
    double oracleAgreementPercent,
    long missingOffsets,
    long duplicatedOffsets,
    long recomputationMismatches,
    Duration publicationLatencyP99,
    double lateDispositionPercent,
    long effectsPerKey) {

  /** The defaults of docs/semantics.md §10, for a project without {@code gates:}. */
  public static GateThresholds defaults() {
    return new GateThresholds(200, 1, 100, 0, 0, 0, Duration.ofSeconds(60), 100, 1);
  }
}
