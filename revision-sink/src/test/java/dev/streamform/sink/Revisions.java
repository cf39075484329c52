package dev.streamform.sink;

import dev.streamform.core.digest.RevisionIdentity;
import dev.streamform.core.time.WindowStatus;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.windows.WindowRevision;
import java.math.BigDecimal;
import java.util.List;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;

/**
 * Revisions of the hourly revenue model made by hand, identity fields computed as the windows do
 * (shared with the command line's tests through this module's test jar).
 */
public final class Revisions {
  public static final String MODEL = "hourly_revenue";
  static final Schema KEY = Schema.builder().addInt64Field("merchant_id").build();
  static final Schema VALUES =
      Schema.builder().addNullableField("revenue", Schema.FieldType.DECIMAL).build();

  private Revisions() {}

  /**
   * Revision {@code n} (on time for 1, corrected after) of merchant's window at {@code hour}:00 on
   * 2026-08-30.
   */
  public static WindowRevision revision(long merchant, int hour, int n, String revenue) {
    return revision(merchant, hour, n, revenue, 1);
  }

  public static WindowRevision revision(
      long merchant, int hour, int n, String revenue, int generation) {
    return record(
        merchant,
        hour,
        n == 1 ? WindowStatus.ON_TIME : WindowStatus.CORRECTED,
        n,
        n > 1 ? n - 1 : null,
        revenue,
        generation);
  }

  /** The window's final record after revision {@code r}. */
  public static WindowRevision finalOf(WindowRevision r) {
    return WindowRevision.builder()
        .setModel(r.model())
        .setKey(r.key())
        .setValues(r.values())
        .setWindowStart(r.windowStart())
        .setWindowEnd(r.windowEnd())
        .setStatus(WindowStatus.FINAL)
        .setRevision(r.revision())
        .setPredecessor(r.predecessor())
        .setGeneration(r.generation())
        .setLogicalWindowId(r.logicalWindowId())
        .setProjectionId(r.projectionId())
        .setAggregateDigest(r.aggregateDigest())
        .setOffsets(r.offsets())
        .build();
  }

  public static WindowRevision preview(long merchant, int hour, String revenue) {
    return record(merchant, hour, WindowStatus.EARLY, 0, null, revenue, 1);
  }

  private static WindowRevision record(
      long merchant,
      int hour,
      WindowStatus status,
      int n,
      Integer predecessor,
      String revenue,
      int generation) {
    Row key = Row.withSchema(KEY).addValue(merchant).build();
    Row values = Row.withSchema(VALUES).addValue(new BigDecimal(revenue)).build();
    return record(key, values, hour, status, n, predecessor, generation);
  }

  /**
   * Revision {@code n} of generation 1 of the window of {@code key} at {@code hour}:00 with {@code
   * values}.
   */
  public static WindowRevision revision(Row key, Row values, int hour, int n) {
    return record(
        key,
        values,
        hour,
        n == 1 ? WindowStatus.ON_TIME : WindowStatus.CORRECTED,
        n,
        n > 1 ? n - 1 : null,
        1);
  }

  private static WindowRevision record(
      Row key,
      Row values,
      int hour,
      WindowStatus status,
      int n,
      Integer predecessor,
      int generation) {
    Instant start = Instant.parse(String.format("2026-08-30T%02d:00:00Z", hour));
    Instant end = start.plus(org.joda.time.Duration.standardHours(1));
    String logical =
        RevisionIdentity.logicalWindowId(
            MODEL, WindowRevision.plainValues(key), Times.toJava(start), Times.toJava(end));
    return WindowRevision.builder()
        .setModel(MODEL)
        .setKey(key)
        .setValues(values)
        .setWindowStart(start)
        .setWindowEnd(end)
        .setStatus(status)
        .setRevision(n)
        .setPredecessor(predecessor)
        .setGeneration(generation)
        .setLogicalWindowId(logical)
        .setProjectionId(RevisionIdentity.projectionId(logical, generation))
        .setAggregateDigest(RevisionIdentity.aggregateDigest(WindowRevision.plainValues(values)))
        .setOffsets(
            List.of(WindowRevision.PartitionOffsets.of(0, 0, Math.max(n, 0), Math.max(n, 0) + 1)))
        .build();
  }
}
