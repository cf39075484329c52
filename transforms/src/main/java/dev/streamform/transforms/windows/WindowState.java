package dev.streamform.transforms.windows;

import dev.streamform.transforms.RowCoders;
import dev.streamform.transforms.SchemaForm;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.StructuredCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.Row;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The state of one open window of one key: the accumulator of the events accepted into its current
 * values, the last revision emitted (0 = none yet, so revision 1 is still to come at the window's
 * end), the on-time count (for previews) and the offsets included. Mutable; lives only inside
 * {@link WindowedAggregate}'s keyed step.
 */
final class WindowState {
  final long start;
  final long end;
  @Nullable Row accumulator;
  int revision;
  long onTime;
  long previewedOnTime;

  /** Records emitted for this window so far: the last one's {@link WindowRevision#emission()}. */
  long emitted;

  /** partition -> {min offset, max offset, count}. */
  final TreeMap<Integer, long[]> offsets = new TreeMap<>();

  /**
   * Derived, not state (the coder leaves them out; a decoded window computes them again): the
   * window's logical and projection ids, and the aggregate digest of {@link #digestOf}, the
   * accumulator it was computed from (the accumulator is replaced, never changed, when an event is
   * applied, so an identical reference means identical values).
   */
  transient @Nullable String logicalId;

  transient @Nullable String projectionId;
  transient @Nullable String digest;
  transient @Nullable Row digestOf;

  WindowState(long start, long end) {
    this.start = start;
    this.end = end;
  }

  void include(int partition, long offset) {
    long[] o = offsets.get(partition);
    if (o == null) {
      offsets.put(partition, new long[] {offset, offset, 1});
    } else {
      o[0] = Math.min(o[0], offset);
      o[1] = Math.max(o[1], offset);
      o[2]++;
    }
  }

  List<WindowRevision.PartitionOffsets> offsetList() {
    List<WindowRevision.PartitionOffsets> list = new ArrayList<>();
    for (Map.Entry<Integer, long[]> e : offsets.entrySet()) {
      long[] o = e.getValue();
      list.add(WindowRevision.PartitionOffsets.of(e.getKey(), o[0], o[1], o[2]));
    }
    return List.copyOf(list);
  }

  /**
   * The time at which the window's next edge is due: its end before revision 1, then its end plus
   * lateness.
   */
  long nextEdge(long allowedLatenessMillis) {
    return revision == 0 ? end : end + allowedLatenessMillis;
  }

  /** Coder for a key's open windows. */
  static final class ListCoder extends StructuredCoder<List<WindowState>> {
    private final Coder<Row> accumulators;

    ListCoder(Schema stateSchema) {
      this.accumulators = NullableCoder.of(RowCoders.of(stateSchema));
    }

    @Override
    public void encode(List<WindowState> windows, OutputStream out) throws IOException {
      VarIntCoder.of().encode(windows.size(), out);
      for (WindowState w : windows) {
        VarLongCoder.of().encode(w.start, out);
        VarLongCoder.of().encode(w.end, out);
        accumulators.encode(w.accumulator, out);
        VarIntCoder.of().encode(w.revision, out);
        VarLongCoder.of().encode(w.onTime, out);
        VarLongCoder.of().encode(w.previewedOnTime, out);
        VarLongCoder.of().encode(w.emitted, out);
        VarIntCoder.of().encode(w.offsets.size(), out);
        for (Map.Entry<Integer, long[]> e : w.offsets.entrySet()) {
          VarIntCoder.of().encode(e.getKey(), out);
          for (long v : e.getValue()) {
            VarLongCoder.of().encode(v, out);
          }
        }
      }
    }

    @Override
    public List<WindowState> decode(InputStream in) throws IOException {
      int n = VarIntCoder.of().decode(in);
      List<WindowState> windows = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        WindowState w = new WindowState(VarLongCoder.of().decode(in), VarLongCoder.of().decode(in));
        w.accumulator = accumulators.decode(in);
        w.revision = VarIntCoder.of().decode(in);
        w.onTime = VarLongCoder.of().decode(in);
        w.previewedOnTime = VarLongCoder.of().decode(in);
        w.emitted = VarLongCoder.of().decode(in);
        int parts = VarIntCoder.of().decode(in);
        for (int j = 0; j < parts; j++) {
          int p = VarIntCoder.of().decode(in);
          w.offsets.put(
              p,
              new long[] {
                VarLongCoder.of().decode(in),
                VarLongCoder.of().decode(in),
                VarLongCoder.of().decode(in)
              });
        }
        windows.add(w);
      }
      return windows;
    }

    @Override
    public List<? extends Coder<?>> getCoderArguments() {
      return List.of();
    }

    @Override
    public void verifyDeterministic() {}

    private Object writeReplace() {
      return new Form(SchemaForm.of(accumulators));
    }

    /** What this coder serializes as: its schemas as their portable bytes ({@link SchemaForm}). */
    private static final class Form implements Serializable {
      private static final long serialVersionUID = 1L;
      private final SchemaForm state;

      Form(SchemaForm state) {
        this.state = state;
      }

      private Object readResolve() {
        return new ListCoder(state.schema());
      }
    }
  }
}
