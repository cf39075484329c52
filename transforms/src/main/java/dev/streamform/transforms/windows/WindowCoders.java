package dev.streamform.transforms.windows;

import dev.streamform.core.time.WindowStatus;
import dev.streamform.transforms.RowCoders;
import dev.streamform.transforms.SchemaForm;
import dev.streamform.transforms.envelope.EnvelopeCoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.ByteCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.InstantCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.RowCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.StructuredCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.schemas.Schema;

/** Coders for the outputs of {@link WindowedAggregate}. */
public final class WindowCoders {
  private WindowCoders() {}

  /**
   * A status's code, fixed here rather than taken from its position in the enum: reordering the
   * constants must not change what a savepoint's bytes mean (these are the codes earlier builds
   * wrote). A new constant fails to compile until it has a code.
   */
  static byte code(WindowStatus status) {
    return switch (status) {
      case EARLY -> 0;
      case ON_TIME -> 1;
      case CORRECTED -> 2;
      case FINAL -> 3;
    };
  }

  static WindowStatus status(byte code) throws IOException {
    return switch (code) {
      case 0 -> WindowStatus.EARLY;
      case 1 -> WindowStatus.ON_TIME;
      case 2 -> WindowStatus.CORRECTED;
      case 3 -> WindowStatus.FINAL;
      default -> throw new IOException("unknown window status code " + code);
    };
  }

  /** Coder for {@link WindowRevision}s with a given key schema and value schema. */
  public static final class WindowRevisionCoder extends StructuredCoder<WindowRevision> {
    private static final Coder<Integer> PREDECESSOR = NullableCoder.of(VarIntCoder.of());
    private final Schema keySchema;
    private final Schema valueSchema;
    private final RowCoder keys;
    private final RowCoder values;

    private WindowRevisionCoder(Schema keySchema, Schema valueSchema) {
      this.keySchema = keySchema;
      this.valueSchema = valueSchema;
      this.keys = RowCoders.of(keySchema);
      this.values = RowCoders.of(valueSchema);
    }

    public static WindowRevisionCoder of(Schema keySchema, Schema valueSchema) {
      return new WindowRevisionCoder(keySchema, valueSchema);
    }

    public Schema keySchema() {
      return keySchema;
    }

    public Schema valueSchema() {
      return valueSchema;
    }

    /** A calendar window's {@code window_local}, absent for fixed windows. */
    private static final Coder<String> LOCAL =
        org.apache.beam.sdk.coders.NullableCoder.of(StringUtf8Coder.of());

    @Override
    public void encode(WindowRevision r, OutputStream out) throws IOException {
      StringUtf8Coder.of().encode(r.model(), out);
      keys.encode(r.key(), out);
      values.encode(r.values(), out);
      InstantCoder.of().encode(r.windowStart(), out);
      InstantCoder.of().encode(r.windowEnd(), out);
      ByteCoder.of().encode(code(r.status()), out);
      VarIntCoder.of().encode(r.revision(), out);
      PREDECESSOR.encode(r.predecessor(), out);
      VarIntCoder.of().encode(r.generation(), out);
      StringUtf8Coder.of().encode(r.logicalWindowId(), out);
      StringUtf8Coder.of().encode(r.projectionId(), out);
      StringUtf8Coder.of().encode(r.aggregateDigest(), out);
      VarIntCoder.of().encode(r.offsets().size(), out);
      for (WindowRevision.PartitionOffsets o : r.offsets()) {
        VarIntCoder.of().encode(o.partition(), out);
        VarLongCoder.of().encode(o.min(), out);
        VarLongCoder.of().encode(o.max(), out);
        VarLongCoder.of().encode(o.count(), out);
      }
      LOCAL.encode(r.windowLocal(), out);
      VarLongCoder.of().encode(r.emission(), out);
    }

    @Override
    public WindowRevision decode(InputStream in) throws IOException {
      WindowRevision.Builder b =
          WindowRevision.builder()
              .setModel(StringUtf8Coder.of().decode(in))
              .setKey(keys.decode(in))
              .setValues(values.decode(in))
              .setWindowStart(InstantCoder.of().decode(in))
              .setWindowEnd(InstantCoder.of().decode(in))
              .setStatus(status(ByteCoder.of().decode(in)))
              .setRevision(VarIntCoder.of().decode(in))
              .setPredecessor(PREDECESSOR.decode(in))
              .setGeneration(VarIntCoder.of().decode(in))
              .setLogicalWindowId(StringUtf8Coder.of().decode(in))
              .setProjectionId(StringUtf8Coder.of().decode(in))
              .setAggregateDigest(StringUtf8Coder.of().decode(in));
      int n = VarIntCoder.of().decode(in);
      List<WindowRevision.PartitionOffsets> offsets = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        offsets.add(
            WindowRevision.PartitionOffsets.of(
                VarIntCoder.of().decode(in),
                VarLongCoder.of().decode(in),
                VarLongCoder.of().decode(in),
                VarLongCoder.of().decode(in)));
      }
      return b.setOffsets(List.copyOf(offsets))
          .setWindowLocal(LOCAL.decode(in))
          .setEmission(VarLongCoder.of().decode(in))
          .build();
    }

    @Override
    public List<? extends Coder<?>> getCoderArguments() {
      return List.of();
    }

    @Override
    public List<? extends Coder<?>> getComponents() {
      return List.of(keys, values);
    }

    @Override
    public void verifyDeterministic() throws NonDeterministicException {
      keys.verifyDeterministic();
      values.verifyDeterministic();
    }

    private Object writeReplace() {
      return new Form(SchemaForm.of(keySchema), SchemaForm.of(valueSchema));
    }

    /** What this coder serializes as: its schemas as their portable bytes ({@link SchemaForm}). */
    private static final class Form implements Serializable {
      private static final long serialVersionUID = 1L;
      private final SchemaForm keys;
      private final SchemaForm values;

      Form(SchemaForm keys, SchemaForm values) {
        this.keys = keys;
        this.values = values;
      }

      private Object readResolve() {
        return WindowRevisionCoder.of(keys.schema(), values.schema());
      }
    }
  }

  /** Coder for {@link TooLateEvent}. */
  public static final class TooLateEventCoder extends StructuredCoder<TooLateEvent> {
    private final EnvelopeCoder envelopes;

    private TooLateEventCoder(EnvelopeCoder envelopes) {
      this.envelopes = envelopes;
    }

    public static TooLateEventCoder of(EnvelopeCoder envelopes) {
      return new TooLateEventCoder(envelopes);
    }

    public EnvelopeCoder envelopeCoder() {
      return envelopes;
    }

    @Override
    public void encode(TooLateEvent value, OutputStream out) throws IOException {
      envelopes.encode(value.envelope(), out);
      InstantCoder.of().encode(value.windowStart(), out);
      InstantCoder.of().encode(value.windowEnd(), out);
      InstantCoder.of().encode(value.watermark(), out);
    }

    @Override
    public TooLateEvent decode(InputStream in) throws IOException {
      return TooLateEvent.of(
          envelopes.decode(in),
          InstantCoder.of().decode(in),
          InstantCoder.of().decode(in),
          InstantCoder.of().decode(in));
    }

    @Override
    public List<? extends Coder<?>> getCoderArguments() {
      return List.of();
    }

    @Override
    public List<? extends Coder<?>> getComponents() {
      return List.of(envelopes);
    }

    @Override
    public void verifyDeterministic() throws NonDeterministicException {
      envelopes.verifyDeterministic();
    }
  }
}
