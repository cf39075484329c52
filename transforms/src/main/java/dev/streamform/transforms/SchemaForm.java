package dev.streamform.transforms;

import java.io.Serializable;
import org.apache.beam.model.pipeline.v1.SchemaApi;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.RowCoder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.SchemaTranslation;
import org.apache.beam.vendor.grpc.v1p69p0.com.google.protobuf.InvalidProtocolBufferException;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A {@link Schema} kept as the bytes of its portable form ({@link SchemaTranslation}: fields,
 * types, options, encoding positions and id) for Java serialization, and as the schema itself once
 * read.
 *
 * <p>Beam translates a pipeline's steps to their portable form again and again — the DirectRunner
 * twice for each bundle of a stateless step, {@code Pipeline.run} once for each of its rewrites'
 * matchers — and each translation Java-serializes the step's {@code DoFn} and the coders of its
 * inputs and outputs. Written field by field, a schema was most of a coder's bytes (about 1.5 of
 * its 2 KB) and of its time. So Streamform's coders that hold a schema serialize as a small form of
 * their own ({@code writeReplace}) holding a {@code SchemaForm}, whose {@code readResolve} builds
 * the coder again through its factory; a function that needs a schema captures a {@code SchemaForm}
 * and reads {@link #schema()}, which parses once. A coder serialized before (in a savepoint's coder
 * snapshot) still reads: the coders' fields are unchanged, so their default form deserializes as it
 * did ({@code CoderFormsTest}).
 */
public final class SchemaForm implements Serializable {
  private static final long serialVersionUID = 1L;

  private final byte @Nullable [] bytes;
  // a schema whose encoding positions were set is kept as it is: its portable form loses them
  private final @Nullable Schema positioned;
  private transient volatile @Nullable Schema schema;

  private SchemaForm(byte @Nullable [] bytes, @Nullable Schema positioned, Schema schema) {
    this.bytes = bytes;
    this.positioned = positioned;
    this.schema = schema;
  }

  /** The form of {@code schema}. */
  public static SchemaForm of(Schema schema) {
    return positionsSet(schema)
        ? new SchemaForm(null, schema, schema)
        : new SchemaForm(SchemaTranslation.schemaToProto(schema, true).toByteArray(), null, schema);
  }

  private static boolean positionsSet(Schema schema) {
    if (schema.isEncodingPositionsOverridden()) {
      return true;
    }
    for (Schema.Field f : schema.getFields()) {
      if (positionsSet(f.getType())) {
        return true;
      }
    }
    return false;
  }

  private static boolean positionsSet(Schema.FieldType type) {
    if (type.getRowSchema() != null && positionsSet(type.getRowSchema())) {
      return true;
    }
    if (type.getCollectionElementType() != null && positionsSet(type.getCollectionElementType())) {
      return true;
    }
    if (type.getMapKeyType() != null && positionsSet(type.getMapKeyType())) {
      return true;
    }
    return type.getMapValueType() != null && positionsSet(type.getMapValueType());
  }

  /** The form of the schema of {@code rows}: a {@link RowCoder}, or a nullable one. */
  public static SchemaForm of(Coder<?> rows) {
    Coder<?> inner =
        rows instanceof NullableCoder ? ((NullableCoder<?>) rows).getValueCoder() : rows;
    if (!(inner instanceof RowCoder)) {
      throw new IllegalArgumentException("not a coder of rows with a schema: " + rows);
    }
    return of(((RowCoder) inner).getSchema());
  }

  /** The schema (read from its bytes once after deserialization). */
  public Schema schema() {
    Schema s = schema;
    if (s == null && positioned != null) {
      s = positioned;
      schema = s;
    } else if (s == null) {
      try {
        s = SchemaTranslation.schemaFromProto(SchemaApi.Schema.parseFrom(bytes));
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalStateException("a serialized schema that does not parse", e);
      }
      schema = s;
    }
    return s;
  }
}
