package dev.streamform.pipelines.kafka;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.streamform.planner.sinks.ModelSinks;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import org.apache.beam.sdk.values.KV;
import org.junit.jupiter.api.Test;

/**
 * A quarantine row stays writable whatever the record it carries: one bad record never stops a job,
 * and a quarantine write that the producer refuses would fail the job on that record again and
 * again (issue 28).
 */
class QuarantineRowTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Kafka's default producer max.request.size. */
  private static final int ONE_MIB = 1024 * 1024;

  @Test
  void aRecordNearTheBrokersLimitGivesARowTheProducerTakes() throws Exception {
    // 900 KB of control characters: JSON escapes each as \\u0001, six times its size
    byte[] bytes = new byte[900_000];
    Arrays.fill(bytes, (byte) 1);
    KV<String, String> row = ModelSinks.quarantined(2, 41L, "not JSON", bytes);
    System.out.printf(
        "quarantine row of a %,d-byte record: %,d characters%n",
        bytes.length, row.getValue().length());
    assertThat(row.getValue().length(), lessThanOrEqualTo(ModelSinks.MAX_ROW_CHARS));
    assertThat(row.getValue().length() < ONE_MIB, is(true));
    JsonNode value = JSON.readTree(row.getValue());
    assertThat(value.get("value_truncated").asBoolean(), is(true));
    assertThat(value.get("value_bytes").asInt(), is(900_000));
    assertThat(value.get("partition").asInt(), is(2));
    assertThat(value.get("offset").asLong(), is(41L));
    byte[] kept = Base64.getDecoder().decode(value.get("value_base64").asText());
    assertThat(kept.length, is(ModelSinks.KEPT_BYTES));
  }

  /** A reason that quotes much of its record is cut, so the row stays writable. */
  @Test
  void aLongReasonIsCut() throws Exception {
    KV<String, String> row =
        ModelSinks.quarantined(
            0, 7L, "partition 0 offset 7: " + "n".repeat(2_000_000), "{}".getBytes());
    assertThat(row.getValue().length(), lessThanOrEqualTo(ModelSinks.MAX_ROW_CHARS));
    String reason = JSON.readTree(row.getValue()).get("reason").asText();
    assertThat(reason.length(), lessThanOrEqualTo(ModelSinks.MAX_REASON_CHARS));
    assertThat(reason.endsWith("(the reason is 2000000 characters; cut)"), is(true));
  }

  @Test
  void aSmallRecordIsKeptWhole() throws Exception {
    byte[] bytes = "{\"amount\": 1e900000000}".getBytes(StandardCharsets.UTF_8);
    JsonNode value =
        JSON.readTree(ModelSinks.quarantined(0, 3L, "column `amount`: x", bytes).getValue());
    assertThat(value.has("value_truncated"), is(false));
    assertThat(Base64.getDecoder().decode(value.get("value_base64").asText()), is(bytes));
    assertThat(value.get("value").isNull(), is(false));
  }
}
