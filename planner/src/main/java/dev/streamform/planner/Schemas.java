package dev.streamform.planner;

import dev.streamform.policies.schema.ColumnType;
import dev.streamform.transforms.Times;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
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

  /**
   * A row of {@code schema} from declared values (java.time.Instant for timestamps).
   *
   * <p>This runs once per event decoded. {@code Row.Builder.build()} walks every value through
   * Beam's generic field matcher (overrides, positions, per-type cases), and for a scalar value
   * that matcher only casts it to its type's class and keeps it as it is (a Joda {@code Instant}
   * for a timestamp included), and refuses a null where the field is not nullable. So when every
   * value already is its field's class, or null in a nullable field, the values are attached as
   * they are — the row {@code build()} gives; anything else goes through {@code build()}, which
   * decides and words any refusal as before ({@code SchemasTest} holds both).
   */
  public static Row row(Schema schema, Map<String, Object> values) {
    List<Object> beam = new ArrayList<>(schema.getFieldCount());
    boolean asTheyAre = true;
    for (Schema.Field f : schema.getFields()) {
      Object v = toBeam(values.get(f.getName()));
      asTheyAre = asTheyAre && keptAsItIs(f.getType(), v);
      beam.add(v);
    }
    return asTheyAre
        ? Row.withSchema(schema).attachValues(beam)
        : Row.withSchema(schema).addValues(beam).build();
  }

  /** The class {@code Row.Builder.build()} keeps a scalar of each type in. */
  private static final Map<Schema.TypeName, Class<?>> SCALAR_CLASS =
      new EnumMap<>(
          Map.of(
              Schema.TypeName.STRING, String.class,
              Schema.TypeName.INT64, Long.class,
              Schema.TypeName.INT32, Integer.class,
              Schema.TypeName.INT16, Short.class,
              Schema.TypeName.BYTE, Byte.class,
              Schema.TypeName.DECIMAL, BigDecimal.class,
              Schema.TypeName.DOUBLE, Double.class,
              Schema.TypeName.FLOAT, Float.class,
              Schema.TypeName.BOOLEAN, Boolean.class,
              Schema.TypeName.DATETIME, org.joda.time.Instant.class));

  private static boolean keptAsItIs(Schema.FieldType type, Object value) {
    return value == null
        ? type.getNullable()
        : value.getClass() == SCALAR_CLASS.get(type.getTypeName());
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
