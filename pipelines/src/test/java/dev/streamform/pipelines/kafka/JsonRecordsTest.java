package dev.streamform.pipelines.kafka;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.policies.schema.ColumnType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Kafka record values decoded by the declared schema, and every way a record is refused. */
class JsonRecordsTest {
  private static final Map<String, ColumnType> SCHEMA = new LinkedHashMap<>();

  static {
    SCHEMA.put("customer_id", ColumnType.INT64);
    SCHEMA.put("amount", ColumnType.decimal(12, 2));
    SCHEMA.put("ordered_at", ColumnType.TIMESTAMP);
    SCHEMA.put("vip", ColumnType.BOOL);
  }

  private static final JsonRecords RECORDS = JsonRecords.of(SCHEMA, List.of("customer_id"));

  private static JsonRecords.Decoded decode(String json) throws JsonRecords.NotARecord {
    return RECORDS.decode(json.getBytes(StandardCharsets.UTF_8));
  }

  private static String refusal(String json) {
    return assertThrows(JsonRecords.NotARecord.class, () -> decode(json)).getMessage();
  }

  @Test
  void aRecordIsTypedByTheSchema() throws Exception {
    Map<String, Object> v =
        decode("{\"customer_id\": 42, \"amount\": 0.1, \"ordered_at\": \"2026-08-30T10:00:00Z\","
                + " \"vip\": true}")
            .values();
    assertThat(v.get("customer_id"), is(42L));
    assertThat(v.get("amount"), is(new BigDecimal("0.10")));
    assertThat(v.get("ordered_at"), is(Instant.parse("2026-08-30T10:00:00Z")));
    assertThat(v.get("vip"), is(true));
  }

  @Test
  void timestampsMayOmitTheZoneOrBeEpochMillis() throws Exception {
    Instant t = Instant.parse("2026-08-30T10:00:00Z");
    assertThat(decode("{\"customer_id\": 1, \"ordered_at\": \"2026-08-30T10:00:00\"}").values()
        .get("ordered_at"), is(t));
    assertThat(decode("{\"customer_id\": 1, \"ordered_at\": " + t.toEpochMilli() + "}").values()
        .get("ordered_at"), is(t));
  }

  @Test
  void aMissingEventTimeIsLeftForExtractionToQuarantine() throws Exception {
    Map<String, Object> v = decode("{\"customer_id\": 1, \"amount\": 3}").values();
    assertThat(v.get("ordered_at"), is(nullValue()));
    assertThat(v.get("amount"), is(new BigDecimal("3.00")));
  }

  @Test
  void aPunctuationCarriesItsWatermark() throws Exception {
    JsonRecords.Decoded d = decode("{\"__watermark\": \"2026-08-30T10:20:00Z\"}");
    assertThat(d.watermark(), is(Instant.parse("2026-08-30T10:20:00Z")));
    assertThat(d.values(), is(nullValue()));
  }

  @Test
  void everyBadRecordGetsAReason() {
    assertThat(refusal("not json at all"), containsString("not JSON"));
    assertThat(refusal("[1, 2]"), containsString("not a JSON object: a JSON array"));
    assertThat(refusal("{\"customer_id\": \"abc\"}"), containsString("column `customer_id`: 'abc' is not an int64"));
    assertThat(refusal("{\"customer_id\": 1, \"amount\": 1.234}"),
        containsString("column `amount`: '1.234' has more than 2 decimal places for decimal(12,2)"));
    assertThat(refusal("{\"customer_id\": 1, \"amount\": {\"x\": 1}}"),
        containsString("column `amount` holds a JSON object, not a decimal(12,2)"));
    assertThat(refusal("{\"amount\": 1}"), containsString("key column `customer_id` has no value"));
    assertThat(refusal("{\"customer_id\": 1, \"ordered_at\": \"10:00:00\"}"),
        containsString("column `ordered_at`: '10:00:00' is a time of day without a date"));
    assertThat(refusal("{\"__watermark\": \"2026-08-30T10:20:00Z\", \"x\": 1}"),
        containsString("a punctuation has only the field __watermark"));
    assertThat(assertThrows(JsonRecords.NotARecord.class, () -> RECORDS.decode(null)).getMessage(),
        containsString("tombstone"));
  }
}
