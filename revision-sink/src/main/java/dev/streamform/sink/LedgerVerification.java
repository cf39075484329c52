package dev.streamform.sink;

import dev.streamform.core.text.Counts;
import java.util.List;

/**
 * The result of {@link Ledger#verify}: figures and one line per defect. The ledger is clean when it
 * has no gap, no mismatch and no conflict.
 *
 * @param projections projection rows of the model (every generation, or the one verified)
 * @param revisions ledger rows of those projections
 * @param gaps revision numbers missing from a window's chain {@code 1..n} (neither in the ledger
 *     nor held)
 * @param mismatches stored facts that disagree with a recomputation: a ledger row's digest and its
 *     values, a projection and its ledger's last row, a predecessor link, an identity and its hash
 * @param conflicts refused records recorded for the model
 * @param held revisions and final records waiting for a predecessor
 */
public record LedgerVerification(
    String model,
    int projections,
    int revisions,
    int gaps,
    int mismatches,
    int conflicts,
    int held,
    List<String> defects) {

  public boolean clean() {
    return gaps == 0 && mismatches == 0 && conflicts == 0;
  }

  /** {@code 3 projections, 5 revisions, 0 gaps, 0 mismatches, 0 conflicts}. */
  public String summary() {
    return Counts.of(projections, "projection")
        + ", "
        + Counts.of(revisions, "revision")
        + ", "
        + Counts.of(gaps, "gap")
        + ", "
        + Counts.of(mismatches, "mismatch")
        + ", "
        + Counts.of(conflicts, "conflict");
  }
}
