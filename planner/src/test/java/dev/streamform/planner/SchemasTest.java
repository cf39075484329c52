package dev.streamform.planner;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.sameInstance;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.policies.schema.ColumnType;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.Row;
import org.joda.time.DateTime;
import org.joda.time.DateTimeZone;
import org.junit.jupiter.api.Test;

/**
 * {@link Schemas#row} attaches values that already are their fields' classes, and leaves everything
 * else to Beam's {@code Row.Builder.build()}: the row must be the one {@code build()} gives, its
 * values the same objects, and a refusal the one {@code build()} makes.
 */
class SchemasTest {
  private static final Schema DECLARED =
      Schemas.of(
          columns(
              "id", "string",
              "n", "int64",
              "amount", "decimal(12,2)",
              "ratio", "double",
              "flag", "bool",
              "at", "timestamp"));

  @Test
  void aDecodedEventsRowIsTheRowBeamBuildsWithTheSameValues() {
    Random r = new Random(20261206);
    List<String> differ = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      Map<String, Object> values = new HashMap<>();
      values.put("id", maybeNull(r, "c" + r.nextInt(1000)));
      values.put("n", maybeNull(r, r.nextLong()));
      values.put("amount", maybeNull(r, BigDecimal.valueOf(r.nextInt(1_000_000), 2)));
      values.put("ratio", maybeNull(r, r.nextDouble()));
      values.put("flag", maybeNull(r, r.nextBoolean()));
      values.put("at", maybeNull(r, Instant.ofEpochMilli(r.nextLong() % 4_000_000_000_000L)));
      Row row = Schemas.row(DECLARED, values);
      Row built = built(DECLARED, values);
      if (!row.equals(built)) {
        differ.add(row + " but Beam builds " + built);
      }
      for (int f = 0; f < DECLARED.getFieldCount(); f++) {
        if (!(DECLARED.getField(f).getType().getTypeName() == Schema.TypeName.DATETIME)) {
          assertThat(row.getValue(f), sameInstance(built.getValue(f)));
        }
      }
    }
    assertThat(differ, empty());
  }

  @Test
  void valuesBeamConvertsAreConvertedAsBeamDoes() {
    Schema schema = Schema.builder().addNullableField("at", Schema.FieldType.DATETIME).build();
    // a Joda DateTime in a timestamp field: build() keeps it as an Instant
    Map<String, Object> values = Map.of("at", new DateTime(1_788_084_000_000L, DateTimeZone.UTC));
    Row row = Schemas.row(schema, values);
    assertThat(row, is(built(schema, values)));
    assertThat(row.getValue("at").getClass(), is((Object) org.joda.time.Instant.class));
  }

  @Test
  void whatBeamRefusesIsRefusedAsBeamRefusesIt() {
    Schema required = Schema.builder().addInt64Field("n").addStringField("id").build();
    Map<String, Object> missing = new HashMap<>();
    missing.put("n", 1L);
    IllegalArgumentException nullRefused =
        assertThrows(IllegalArgumentException.class, () -> Schemas.row(required, missing));
    IllegalArgumentException beams =
        assertThrows(IllegalArgumentException.class, () -> built(required, missing));
    assertThat(nullRefused.getMessage(), is(beams.getMessage()));

    Map<String, Object> wrongClass = Map.of("n", "one", "id", "x");
    ClassCastException castRefused =
        assertThrows(ClassCastException.class, () -> Schemas.row(required, wrongClass));
    assertThat(
        castRefused.getMessage(),
        is(assertThrows(ClassCastException.class, () -> built(required, wrongClass)).getMessage()));
  }

  /** The reference: Beam's builder over the same values. */
  private static Row built(Schema schema, Map<String, Object> values) {
    Row.Builder b = Row.withSchema(schema);
    for (Schema.Field f : schema.getFields()) {
      b.addValue(Schemas.toBeam(values.get(f.getName())));
    }
    return b.build();
  }

  private static Object maybeNull(Random r, Object value) {
    return r.nextInt(8) == 0 ? null : value;
  }

  private static Map<String, ColumnType> columns(String... namesAndTypes) {
    Map<String, ColumnType> columns = new LinkedHashMap<>();
    for (int i = 0; i < namesAndTypes.length; i += 2) {
      columns.put(namesAndTypes[i], ColumnType.parse(namesAndTypes[i + 1]));
    }
    return columns;
  }
}
