package dev.streamform.transforms.windows;

import com.google.auto.value.AutoValue;
import dev.streamform.core.time.WindowStatus;
import dev.streamform.transforms.Times;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;
import org.joda.time.ReadableInstant;

/**
 * One result of a window of one key, as a revisable object (docs/semantics.md §6): a preview
 * ({@link WindowStatus#EARLY}, revision 0), a revision ({@link WindowStatus#ON_TIME} or {@link
 * WindowStatus#CORRECTED}, numbered 1, 2, ... each naming its predecessor) or the window's {@link
 * WindowStatus#FINAL} record (the last revision's number and values again; the window's state is
 * then freed).
 *
 * <p>Values accumulate: every revision carries the aggregate of every event accepted into the
 * window so far, never a delta. The identity fields are the same on every runner: {@link
 * #logicalWindowId()} and {@link #projectionId()} by {@code
 * dev.streamform.core.digest.RevisionIdentity}, {@link #aggregateDigest()} over the output values,
 * {@link #offsets()} per partition over the events included.
 *
 * <p>Element timestamp: the window's last millisecond ({@code window_end - 1ms}), as Beam stamps
 * the panes of a window, so the records can be re-windowed into the same windows downstream.
 */
@AutoValue
public abstract class WindowRevision implements Serializable {

  /** The smallest and largest offset of one partition's events included, and their count. */
  @AutoValue
  public abstract static class PartitionOffsets implements Serializable {
    public abstract int partition();

    public abstract long min();

    public abstract long max();

    public abstract long count();

    public static PartitionOffsets of(int partition, long min, long max, long count) {
      return new AutoValue_WindowRevision_PartitionOffsets(partition, min, max, count);
    }
  }

  public abstract String model();

  /** The key columns' values, named as the output names them. */
  public abstract Row key();

  /** The aggregate values after this revision, named as the aggregations. */
  public abstract Row values();

  public abstract Instant windowStart();

  public abstract Instant windowEnd();

  public abstract WindowStatus status();

  /** 0 for a preview; 1, 2, ... for revisions; the last revision's number for a final record. */
  public abstract int revision();

  /** The revision this one replaces: absent for revision 1 and for previews. */
  public abstract @Nullable Integer predecessor();

  public abstract int generation();

  public abstract String logicalWindowId();

  public abstract String projectionId();

  public abstract String aggregateDigest();

  /** Per partition (ascending), the offsets of the events this record's values include. */
  public abstract List<PartitionOffsets> offsets();

  /**
   * The local date a calendar window stands for ({@code 2026-10-25}; a week's first day; a month as
   * {@code 2026-10}), written as {@code window_local}; null for fixed windows.
   */
  public abstract @Nullable String windowLocal();

  /**
   * This record's place among the records of its key's window, 1, 2, ... in the order the keyed
   * stage emitted them (previews, revisions and the final record alike): the order a runner does
   * not keep between stages, carried so that fixtures compare what was emitted (docs/decisions/
   * 0024). 0 when the producer did not number it.
   */
  public abstract long emission();

  /** A builder holding this record's fields. */
  public abstract Builder toBuilder();

  public static Builder builder() {
    return new AutoValue_WindowRevision.Builder().setEmission(0);
  }

  /** Builds a {@link WindowRevision}. */
  @AutoValue.Builder
  public abstract static class Builder {
    public abstract Builder setModel(String model);

    public abstract Builder setKey(Row key);

    public abstract Builder setValues(Row values);

    public abstract Builder setWindowStart(Instant start);

    public abstract Builder setWindowEnd(Instant end);

    public abstract Builder setStatus(WindowStatus status);

    public abstract Builder setRevision(int revision);

    public abstract Builder setPredecessor(@Nullable Integer predecessor);

    public abstract Builder setGeneration(int generation);

    public abstract Builder setLogicalWindowId(String id);

    public abstract Builder setProjectionId(String id);

    public abstract Builder setAggregateDigest(String digest);

    public abstract Builder setOffsets(List<PartitionOffsets> offsets);

    public abstract Builder setWindowLocal(@Nullable String windowLocal);

    public abstract Builder setEmission(long emission);

    public abstract WindowRevision build();
  }

  /** True for revisions proper (on time or corrected): what a revision sink stores. */
  public boolean isRevision() {
    return status() == WindowStatus.ON_TIME || status() == WindowStatus.CORRECTED;
  }

  /**
   * A row as column -> plain Java value, timestamps as {@code java.time.Instant}: the form {@code
   * RevisionIdentity} hashes ({@link #key()} for the window's identity, {@link #values()} for
   * {@link #aggregateDigest()}), so a sink that stores it can recompute the digests.
   */
  public static Map<String, Object> plainValues(Row row) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (Schema.Field f : row.getSchema().getFields()) {
      Object v = row.getValue(f.getName());
      if (v instanceof ReadableInstant) {
        v = Times.toJava(((ReadableInstant) v));
      }
      values.put(f.getName(), v);
    }
    return values;
  }

  /** The value of an output column, key or aggregate. */
  public Object value(String column) {
    return key().getSchema().hasField(column) ? key().getValue(column) : values().getValue(column);
  }
}
