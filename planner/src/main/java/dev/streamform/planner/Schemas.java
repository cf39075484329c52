package dev.streamform.planner;

import dev.streamform.policies.schema.ColumnType;
import dev.streamform.transforms.Times;
import java.math.BigDecimal;
import java.util.Map;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.Row;

/** Maps declared column types to Beam schemas and values, both ways. All fields are nullable. */
public final class Schemas {
  private Schemas() {}

  public static Schema.FieldType fieldType(ColumnType type) {
    switch (type.kind()) {
      case INT64:
        return Schema.FieldType.INT64;
      case STRING:
        return Schema.FieldType.STRING;
      case BOOL:
        return Schema.FieldType.BOOLEAN;
      case DOUBLE:
        return Schema.FieldType.DOUBLE;
      case DECIMAL:
        return Schema.FieldType.DECIMAL;
      case TIMESTAMP:
        return Schema.FieldType.DATETIME;
      default:
        throw new IllegalArgumentException("unknown type " + type);
    }
  }

  public static Schema of(Map<String, ColumnType> columns) {
    Schema.Builder b = Schema.builder();
    columns.forEach((name, type) -> b.addNullableField(name, fieldType(type)));
    return b.build();
  }

  /** A row of {@code schema} from declared values (java.time.Instant for timestamps). */
  public static Row row(Schema schema, Map<String, Object> values) {
    Row.Builder b = Row.withSchema(schema);
    for (Schema.Field f : schema.getFields()) {
      b.addValue(toBeam(values.get(f.getName())));
    }
    return b.build();
  }

  /** A Beam row value as a declared value: joda instants become java.time instants. */
  public static Object fromBeam(Object value) {
    if (value instanceof org.joda.time.ReadableInstant) {
      return Times.toJava(((org.joda.time.ReadableInstant) value));
    }
    return value;
  }

  static Object toBeam(Object value) {
    if (value instanceof java.time.Instant) {
      return Times.toJoda(((java.time.Instant) value));
    }
    return value;
  }

  /** Text of a value for the collected outputs: parseable back with ColumnValues.convert. */
  public static String text(Object value) {
    Object v = fromBeam(value);
    if (v == null) {
      return null;
    }
    if (v instanceof BigDecimal) {
      return ((BigDecimal) v).toPlainString();
    }
    return v.toString();
  }
}
