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
import org.apache.beam.sdk.coders.StructuredCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;

/** Coder for {@link SourceRecord}s whose records share one Beam {@link Schema}. */
public final class SourceRecordCoder extends StructuredCoder<SourceRecord> {
  private static final VarIntCoder INT = VarIntCoder.of();
  private static final VarLongCoder LONG = VarLongCoder.of();
  private static final InstantCoder INSTANT = InstantCoder.of();
  private static final Coder<Instant> NULLABLE_INSTANT = NullableCoder.of(InstantCoder.of());

  private final Schema schema;
  private final Coder<Row> rowCoder;

  private SourceRecordCoder(Schema schema) {
    this.schema = schema;
    this.rowCoder = NullableCoder.of(RowCoders.of(schema));
  }

  /** The schema of the records. */
  public Schema recordSchema() {
    return schema;
  }

  /**
   * @throws IllegalArgumentException if {@code recordSchema} is null
   */
  public static SourceRecordCoder of(Schema recordSchema) {
    if (recordSchema == null) {
      throw new IllegalArgumentException(
          "SourceRecordCoder.of(null): give the schema of the records, e.g."
              + " Schema.builder().addInt64Field(\"customer_id\").build()");
    }
    return new SourceRecordCoder(recordSchema);
  }

  @Override
  public void encode(SourceRecord value, OutputStream out) throws IOException {
    INT.encode(value.partition(), out);
    LONG.encode(value.offset(), out);
    INSTANT.encode(value.ingestTime(), out);
    rowCoder.encode(value.record(), out);
    NULLABLE_INSTANT.encode(value.watermark(), out);
  }

  @Override
  public SourceRecord decode(InputStream in) throws IOException {
    int partition = INT.decode(in);
    long offset = LONG.decode(in);
    Instant ingest = INSTANT.decode(in);
    Row record = rowCoder.decode(in);
    Instant watermark = NULLABLE_INSTANT.decode(in);
    return record != null
        ? SourceRecord.of(partition, offset, ingest, record)
        : SourceRecord.punctuation(partition, offset, ingest, watermark);
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
