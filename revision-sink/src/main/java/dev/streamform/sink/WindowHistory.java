package dev.streamform.sink;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * What the ledger knows of one projection (a window of a key, in one generation): its current row,
 * its ledger rows in revision order, what is held for it and what was refused. Values, keys and
 * offsets are the stored canonical JSON read back as maps (numbers as {@code Long}, decimals,
 * doubles and timestamps as the strings the digests hash).
 *
 * @param current the projection row; empty when only held revisions exist (revision 1 not yet
 *     applied)
 * @param canonical true when the canonical view shows this projection (its generation is the one
 *     its key reads: the canonical alias's, or a canary's for a key in its share)
 */
public record WindowHistory(
    String projectionId,
    String model,
    String logicalWindowId,
    int generation,
    Map<String, Object> key,
    Instant windowStart,
    Instant windowEnd,
    Optional<Current> current,
    List<LedgerRow> ledger,
    List<HeldRow> held,
    List<ConflictRow> conflicts,
    boolean canonical) {

  /** The projection row: where the window stands now. */
  public record Current(
      int revision,
      String status,
      Map<String, Object> values,
      String digest,
      Instant updatedAt,
      @Nullable Instant finalizedAt) {}

  /** One appended revision. */
  public record LedgerRow(
      int revision,
      @Nullable Integer predecessor,
      String status,
      Map<String, Object> values,
      String digest,
      Map<String, Object> offsets,
      Instant recordedAt) {}

  /** A revision or final record waiting for its predecessor. */
  public record HeldRow(int revision, boolean isFinal, String digest, Instant heldAt) {}

  /** A refused record. */
  public record ConflictRow(
      int revision,
      boolean isFinal,
      String reason,
      @Nullable String storedDigest,
      String offeredDigest,
      Instant recordedAt) {}
}
