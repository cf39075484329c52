package dev.streamform.transforms.changelog;

import dev.streamform.transforms.RowCoders;
import dev.streamform.transforms.SchemaForm;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.StructuredCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Everything a {@link KeyedChangelog} keeps for one key besides its buffer of waiting events, in
 * one state cell: the aggregate, the latest event time applied ({@code latest(k)}), and the tick
 * timer's time and hold. One cell rather than four, because a runner finds a key's state by hashing
 * and comparing the encoded key on every access (the Flink runner: {@code FlinkKey.hashCode}, a
 * murmur3 of the key bytes): one read and at most one write per event and per timer firing.
 *
 * <p>Immutable; the {@code with...} methods return a new cell.
 */
final class KeyCell {
  static final KeyCell EMPTY = new KeyCell(null, null, null, null);

  final @Nullable Row aggregate;
  final @Nullable Long latest;
  final @Nullable Long tickAt;
  final @Nullable Long holdAt;

  KeyCell(
      @Nullable Row aggregate,
      @Nullable Long latest,
      @Nullable Long tickAt,
      @Nullable Long holdAt) {
    this.aggregate = aggregate;
    this.latest = latest;
    this.tickAt = tickAt;
    this.holdAt = holdAt;
  }

  static KeyCell of(@Nullable KeyCell stored) {
    return stored == null ? EMPTY : stored;
  }

  KeyCell withKey(@Nullable Row aggregate, @Nullable Long latest) {
    return new KeyCell(aggregate, latest, tickAt, holdAt);
  }

  KeyCell withTick(@Nullable Long tickAt, @Nullable Long holdAt) {
    return new KeyCell(aggregate, latest, tickAt, holdAt);
  }

  /** Nothing kept: the cell can be cleared. */
  boolean isEmpty() {
    return aggregate == null && latest == null && tickAt == null && holdAt == null;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    if (!(o instanceof KeyCell)) {
      return false;
    }
    KeyCell c = (KeyCell) o;
    return Objects.equals(aggregate, c.aggregate)
        && Objects.equals(latest, c.latest)
        && Objects.equals(tickAt, c.tickAt)
        && Objects.equals(holdAt, c.holdAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(aggregate, latest, tickAt, holdAt);
  }

  @Override
  public String toString() {
    return "KeyCell{aggregate="
        + aggregate
        + ", latest="
        + latest
        + ", tickAt="
        + tickAt
        + ", holdAt="
        + holdAt
        + "}";
  }

  /**
   * One byte saying which of the four parts are present, then each present part: the aggregate with
   * the aggregate's coder, the three times as variable-length longs.
   */
  static final class CellCoder extends StructuredCoder<KeyCell> {
    private static final VarLongCoder LONGS = VarLongCoder.of();
    private final Coder<Row> aggregateCoder;

    CellCoder(Coder<Row> aggregateCoder) {
      this.aggregateCoder = aggregateCoder;
    }

    @Override
    public void encode(KeyCell cell, OutputStream out) throws IOException {
      if (cell == null) {
        throw new CoderException("cannot encode a null KeyCell");
      }
      int present =
          (cell.aggregate == null ? 0 : 1)
              | (cell.latest == null ? 0 : 2)
              | (cell.tickAt == null ? 0 : 4)
              | (cell.holdAt == null ? 0 : 8);
      out.write(present);
      if (cell.aggregate != null) {
        aggregateCoder.encode(cell.aggregate, out);
      }
      if (cell.latest != null) {
        LONGS.encode(cell.latest, out);
      }
      if (cell.tickAt != null) {
        LONGS.encode(cell.tickAt, out);
      }
      if (cell.holdAt != null) {
        LONGS.encode(cell.holdAt, out);
      }
    }

    @Override
    public KeyCell decode(InputStream in) throws IOException {
      int present = in.read();
      if (present < 0 || present > 15) {
        throw new CoderException("not a KeyCell: first byte " + present);
      }
      Row aggregate = (present & 1) == 0 ? null : aggregateCoder.decode(in);
      Long latest = (present & 2) == 0 ? null : LONGS.decode(in);
      Long tickAt = (present & 4) == 0 ? null : LONGS.decode(in);
      Long holdAt = (present & 8) == 0 ? null : LONGS.decode(in);
      return new KeyCell(aggregate, latest, tickAt, holdAt);
    }

    @Override
    public List<? extends Coder<?>> getCoderArguments() {
      return List.of(aggregateCoder);
    }

    @Override
    public void verifyDeterministic() throws NonDeterministicException {
      aggregateCoder.verifyDeterministic();
    }

    private Object writeReplace() {
      return new Form(SchemaForm.of(aggregateCoder));
    }

    /** What this coder serializes as: its schemas as their portable bytes ({@link SchemaForm}). */
    private static final class Form implements Serializable {
      private static final long serialVersionUID = 1L;
      private final SchemaForm aggregate;

      Form(SchemaForm aggregate) {
        this.aggregate = aggregate;
      }

      private Object readResolve() {
        return new CellCoder(RowCoders.of(aggregate.schema()));
      }
    }
  }
}
