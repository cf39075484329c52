package dev.streamform.transforms.changelog;

import dev.streamform.transforms.RowCoders;
import dev.streamform.transforms.SchemaForm;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.List;
import org.apache.beam.sdk.coders.ByteCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.InstantCoder;
import org.apache.beam.sdk.coders.RowCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.StructuredCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.schemas.Schema;

/** Coder for {@link ChangelogRecord}s with a given key schema and value schema. */
public final class ChangelogRecordCoder extends StructuredCoder<ChangelogRecord> {
  private final Schema keySchema;
  private final Schema valueSchema;
  private final RowCoder keys;
  private final RowCoder values;

  private ChangelogRecordCoder(Schema keySchema, Schema valueSchema) {
    this.keySchema = keySchema;
    this.valueSchema = valueSchema;
    this.keys = RowCoders.of(keySchema);
    this.values = RowCoders.of(valueSchema);
  }

  public static ChangelogRecordCoder of(Schema keySchema, Schema valueSchema) {
    return new ChangelogRecordCoder(keySchema, valueSchema);
  }

  public Schema keySchema() {
    return keySchema;
  }

  public Schema valueSchema() {
    return valueSchema;
  }

  @Override
  public void encode(ChangelogRecord r, OutputStream out) throws IOException {
    ByteCoder.of().encode(code(r.op()), out);
    keys.encode(r.key(), out);
    values.encode(r.values(), out);
    StringUtf8Coder.of().encode(r.eventId(), out);
    VarIntCoder.of().encode(r.partition(), out);
    VarLongCoder.of().encode(r.offset(), out);
    InstantCoder.of().encode(r.eventTime(), out);
    EMITTED_AT.encode(r.emittedAt(), out);
    VarIntCoder.of().encode(r.emission(), out);
  }

  /**
   * The operation's code, fixed here rather than taken from its position in the enum: reordering
   * the constants must not change what a savepoint's bytes mean (these are the codes earlier builds
   * wrote). A new constant fails to compile until it has a code.
   */
  private static byte code(ChangelogRecord.Op op) {
    return switch (op) {
      case INSERT -> 0;
      case UPDATE -> 1;
    };
  }

  private static ChangelogRecord.Op op(byte code) throws IOException {
    return switch (code) {
      case 0 -> ChangelogRecord.Op.INSERT;
      case 1 -> ChangelogRecord.Op.UPDATE;
      default -> throw new IOException("unknown changelog operation code " + code);
    };
  }

  private static final Coder<org.joda.time.Instant> EMITTED_AT =
      org.apache.beam.sdk.coders.NullableCoder.of(InstantCoder.of());

  @Override
  public ChangelogRecord decode(InputStream in) throws IOException {
    return ChangelogRecord.of(
            op(ByteCoder.of().decode(in)),
            keys.decode(in),
            values.decode(in),
            StringUtf8Coder.of().decode(in),
            VarIntCoder.of().decode(in),
            VarLongCoder.of().decode(in),
            InstantCoder.of().decode(in))
        .emitted(EMITTED_AT.decode(in), VarIntCoder.of().decode(in));
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
      return of(keys.schema(), values.schema());
    }
  }
}
