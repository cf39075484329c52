package dev.streamform.sink;

import dev.streamform.core.digest.RevisionIdentity;
import dev.streamform.core.time.WindowStatus;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.windows.WindowRevision;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A revision or final record as the ledger stores it: key, values and offsets as the canonical JSON
 * {@link RevisionIdentity} hashes, status as spelled in fixtures ({@code on_time}, {@code
 * corrected}, {@code final}).
 */
record StoredRevision(
    String projectionId,
    String model,
    String logicalWindowId,
    int generation,
    String keyJson,
    Instant windowStart,
    Instant windowEnd,
    int revision,
    @Nullable Integer predecessor,
    String status,
    String valuesJson,
    String digest,
    String offsetsJson) {

  static final String FINAL = "final";

  /**
   * The stored form of a revision or final record.
   *
   * @throws IllegalArgumentException for a preview, or a revision whose predecessor is not the
   *     revision before it
   */
  static StoredRevision of(WindowRevision r) {
    if (!r.isRevision() && r.status() != WindowStatus.FINAL) {
      throw new IllegalArgumentException("a preview is not stored: " + r);
    }
    Integer expected = r.revision() > 1 ? r.revision() - 1 : null;
    if (r.isRevision()
        && (r.revision() < 1 || !java.util.Objects.equals(r.predecessor(), expected))) {
      throw new IllegalArgumentException(
          "revision "
              + r.revision()
              + " of projection "
              + r.projectionId()
              + " names predecessor "
              + r.predecessor()
              + ", not "
              + expected);
    }
    Map<String, Object> offsets = new LinkedHashMap<>();
    for (WindowRevision.PartitionOffsets o : r.offsets()) {
      offsets.put(
          String.valueOf(o.partition()),
          Map.of("min", o.min(), "max", o.max(), "count", o.count()));
    }
    return new StoredRevision(
        r.projectionId(),
        r.model(),
        r.logicalWindowId(),
        r.generation(),
        RevisionIdentity.canonical(WindowRevision.plainValues(r.key())),
        Times.toJava(r.windowStart()),
        Times.toJava(r.windowEnd()),
        r.revision(),
        r.isRevision() ? r.predecessor() : null,
        r.status().yamlName(),
        RevisionIdentity.canonical(WindowRevision.plainValues(r.values())),
        r.aggregateDigest(),
        RevisionIdentity.canonical(offsets));
  }

  boolean isFinal() {
    return FINAL.equals(status);
  }

  /** Short identity for log lines: the projection id's first 12 digits and the revision. */
  String label() {
    return (isFinal() ? "final record of revision " : "revision ")
        + revision
        + " of projection "
        + projectionId.substring(0, 12)
        + " (model "
        + model
        + ", generation "
        + generation
        + ", key "
        + keyJson
        + ", window "
        + windowStart
        + " .. "
        + windowEnd
        + ")";
  }
}
