package dev.streamform.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import dev.streamform.transforms.changelog.ChangelogRecordCoder;
import dev.streamform.transforms.decisions.DecisionCoders;
import dev.streamform.transforms.envelope.EnvelopeCoder;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.windows.WindowCoders;
import java.io.InputStream;
import java.io.Serializable;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.logicaltypes.SqlTypes;
import org.apache.beam.sdk.util.SerializableUtils;
import org.junit.jupiter.api.Test;

/**
 * Streamform's coders that hold a schema serialize as a small form ({@link SchemaForm}): Beam
 * serializes a step's coders each time it translates the step, the DirectRunner twice per bundle of
 * a stateless step (issue 31, ADR 0157). What a coder serialized as before (a savepoint's coder
 * snapshot, {@code coder-forms/*.b64}) still reads as an equal coder.
 */
class CoderFormsTest {
  private static Schema schema(String uuid, Schema.Builder b) {
    Schema s = b.build();
    s.setUUID(UUID.fromString(uuid));
    return s;
  }

  // the schemas the coders in coder-forms/ were written with (its README)
  private static final Schema RECORD =
      schema(
          "00000000-0000-0000-0000-00000000000a",
          Schema.builder()
              .addStringField("order_id")
              .addInt64Field("customer_id")
              .addDecimalField("amount")
              .addNullableField("country", Schema.FieldType.STRING)
              .addDateTimeField("ordered_at"));
  private static final Schema KEY =
      schema("00000000-0000-0000-0000-00000000000b", Schema.builder().addInt64Field("customer_id"));
  private static final Schema VALUE =
      schema(
          "00000000-0000-0000-0000-00000000000c",
          Schema.builder().addDecimalField("total_spend").addInt64Field("orders"));

  private static Map<String, Coder<?>> coders() throws Exception {
    Map<String, Coder<?>> c = new LinkedHashMap<>();
    c.put("EnvelopeCoder", EnvelopeCoder.of(RECORD));
    c.put("SourceRecordCoder", SourceRecordCoder.of(RECORD));
    c.put("ChangelogRecordCoder", ChangelogRecordCoder.of(KEY, VALUE));
    c.put("WindowRevisionCoder", WindowCoders.WindowRevisionCoder.of(KEY, VALUE));
    c.put("DecisionCoder", DecisionCoders.DecisionCoder.of(KEY, RECORD));
    c.put("UnscoredLateEventCoder", DecisionCoders.UnscoredLateEventCoder.of(KEY, RECORD));
    c.put("DeadLetterCoder", DecisionCoders.DeadLetterCoder.of(RECORD));
    c.put("StateUpdateCoder", DecisionCoders.StateUpdateCoder.of(KEY));
    Constructor<?> cell =
        Class.forName("dev.streamform.transforms.changelog.KeyCell$CellCoder")
            .getDeclaredConstructor(Coder.class);
    cell.setAccessible(true);
    c.put("CellCoder", (Coder<?>) cell.newInstance(RowCoders.of(VALUE)));
    Constructor<?> list =
        Class.forName("dev.streamform.transforms.windows.WindowState$ListCoder")
            .getDeclaredConstructor(Schema.class);
    list.setAccessible(true);
    c.put("ListCoder", (Coder<?>) list.newInstance(VALUE));
    return c;
  }

  @Test
  void aCoderSerializesItsSchemasAsTheirPortableBytesAndReadsBackEqual() throws Exception {
    List<String> large = new ArrayList<>();
    for (Map.Entry<String, Coder<?>> e : coders().entrySet()) {
      byte[] bytes = SerializableUtils.serializeToByteArray((Serializable) e.getValue());
      Object back = SerializableUtils.deserializeFromByteArray(bytes, e.getKey());
      assertThat(e.getKey(), back, equalTo(e.getValue()));
      assertThat(e.getKey(), back.getClass(), equalTo(e.getValue().getClass()));
      if (bytes.length >= 800) { // field by field, each was 1.8-2.2 KB
        large.add(e.getKey() + " " + bytes.length + " bytes");
      }
    }
    assertThat(large, is(List.of()));
  }

  @Test
  void whatTheBuildBeforeSerializedStillReadsAsAnEqualCoder() throws Exception {
    for (Map.Entry<String, Coder<?>> e : coders().entrySet()) {
      byte[] old;
      try (InputStream in = getClass().getResourceAsStream("/coder-forms/" + e.getKey() + ".b64")) {
        old =
            Base64.getMimeDecoder()
                .decode(new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim());
      }
      assertThat(e.getKey(), old.length, is(org.hamcrest.Matchers.greaterThan(1_500)));
      Object back = SerializableUtils.deserializeFromByteArray(old, e.getKey());
      assertThat(e.getKey(), back, equalTo(e.getValue()));
    }
  }

  @Test
  void aSchemaFormKeepsFieldsTypesOptionsEncodingPositionsAndId() {
    Schema s =
        Schema.builder()
            .addField(
                Schema.Field.of("day", Schema.FieldType.logicalType(SqlTypes.DATE))
                    .withOptions(
                        Schema.Options.builder().setOption("unit", Schema.FieldType.STRING, "d")))
            .addNullableField("note", Schema.FieldType.STRING)
            .addArrayField("tags", Schema.FieldType.STRING)
            .build();
    s.setUUID(UUID.randomUUID());
    s.setEncodingPositions(Map.of("day", 2, "note", 0, "tags", 1));
    byte[] bytes = SerializableUtils.serializeToByteArray(SchemaForm.of(s));
    Schema back = ((SchemaForm) SerializableUtils.deserializeFromByteArray(bytes, "form")).schema();
    assertThat(back, equalTo(s));
    assertThat(back.getUUID(), equalTo(s.getUUID()));
    assertThat(back.getEncodingPositions(), equalTo(s.getEncodingPositions()));
    assertThat(back.getField("day").getOptions(), equalTo(s.getField("day").getOptions()));
    assertThat(back.getField("day").getType(), equalTo(s.getField("day").getType()));
  }
}
