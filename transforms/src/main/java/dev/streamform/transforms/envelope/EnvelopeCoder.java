package dev.streamform.transforms.envelope;

import dev.streamform.transforms.RowCoders;
import dev.streamform.transforms.SchemaForm;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.InstantCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.StructuredCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.Row;

/** Coder for {@link Envelope}s whose records share one Beam {@link Schema}. */
public final class EnvelopeCoder extends StructuredCoder<Envelope> {
  private static final StringUtf8Coder STRING = StringUtf8Coder.of();
  private static final VarIntCoder INT = VarIntCoder.of();
  private static final VarLongCoder LONG = VarLongCoder.of();
  private static final InstantCoder INSTANT = InstantCoder.of();

  private final Schema schema;
  private final Coder<Row> rowCoder;

  private EnvelopeCoder(Schema schema) {
    this.schema = schema;
    this.rowCoder = NullableCoder.of(RowCoders.of(schema));
  }

  public static EnvelopeCoder of(Schema recordSchema) {
    return new EnvelopeCoder(recordSchema);
  }

  /** The schema of the records inside the envelopes. */
  public Schema recordSchema() {
    return schema;
  }

  @Override
  public void encode(Envelope value, OutputStream out) throws IOException {
    STRING.encode(value.eventId(), out);
    INSTANT.encode(value.eventTime(), out);
    INSTANT.encode(value.ingestTime(), out);
    INT.encode(value.partition(), out);
    LONG.encode(value.offset(), out);
    rowCoder.encode(value.record(), out);
  }

  @Override
  public Envelope decode(InputStream in) throws IOException {
    return Envelope.of(
        STRING.decode(in),
        INSTANT.decode(in),
        INSTANT.decode(in),
        INT.decode(in),
        LONG.decode(in),
        rowCoder.decode(in));
  }

  @Override
  public List<? extends Coder<?>> getCoderArguments() {
    return List.of();
  }

  @Override
  public List<? extends Coder<?>> getComponents() {
    return List.of(rowCoder);
  }

  @Override
  public void verifyDeterministic() throws NonDeterministicException {
    rowCoder.verifyDeterministic();
  }

  private Object writeReplace() {
    return new Form(SchemaForm.of(schema));
  }

  /** What this coder serializes as: its schemas as their portable bytes ({@link SchemaForm}). */
  private static final class Form implements Serializable {
    private static final long serialVersionUID = 1L;
    private final SchemaForm schema;

    Form(SchemaForm schema) {
      this.schema = schema;
    }

    private Object readResolve() {
      return of(schema.schema());
    }
  }
}
