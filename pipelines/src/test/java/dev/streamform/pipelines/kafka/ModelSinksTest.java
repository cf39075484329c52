package dev.streamform.pipelines.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.core.digest.RevisionIdentity;
import dev.streamform.core.time.WindowStatus;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.planner.Schemas;
import dev.streamform.planner.sinks.ModelSinks;
import dev.streamform.policies.project.Project;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.changelog.ChangelogRecord;
import dev.streamform.transforms.clock.LateEvent;
import dev.streamform.transforms.envelope.Envelope;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.windows.TooLateEvent;
import dev.streamform.transforms.windows.WindowRevision;
import dev.streamform.transforms.windows.WindowRevision.PartitionOffsets;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JSON records of a windowed model on Kafka: window records keyed by key and window, with the
 * row, its status and identity; too-late events keyed like the window that refused them.
 */
class ModelSinksTest {
  private static final Instant START = Instant.parse("2026-08-30T10:00:00Z");
  private static final Instant END = Instant.parse("2026-08-30T11:00:00Z");
  private static final Schema VALUES =
      Schema.builder()
          .addNullableField("revenue", Schema.FieldType.DECIMAL)
          .addNullableField("orders", Schema.FieldType.INT64)
          .build();

  @TempDir Path dir;

  /** The source {@code payments}: merchant, amount, {@code moreColumns} (name: type) and time. */
  private void payments(String... moreColumns) throws Exception {
    List<String> lines = new java.util.ArrayList<>();
    lines.addAll(
        List.of(
            "sources:",
            "  payments:",
            "    connector: kafka",
            "    topic: payments",
            "    schema:",
            "      merchant_id: int64",
            "      amount: decimal(12,2)"));
    for (String column : moreColumns) {
      lines.add("      " + column);
    }
    lines.addAll(
        List.of("      paid_at: timestamp", "    event_time: paid_at", "    watermark: 5m", ""));
    write("sources.yml", String.join("\n", lines));
  }

  private DeclaredModel model(String select, String extra) throws Exception {
    payments();
    write(
        "streamform.yml",
        String.join(
            "\n",
            "models:",
            "  hourly_revenue:",
            "    window: 1h",
            "    allowed_lateness: 24h",
            extra,
            ""));
    write(
        "models/hourly_revenue.sql",
        "SELECT "
            + select
            + ", SUM(amount) AS revenue, COUNT(*) AS orders"
            + " FROM source('payments') GROUP BY merchant_id\n");
    return DeclaredModel.of(Project.load(dir), "hourly_revenue");
  }

  /**
   * A dead-lettered event near the broker's limit gives a row the producer takes: its record is cut
   * as a long quarantined record's is (review of decisions and Kafka input #1: the whole record in
   * the row made it larger than 1 MiB, and the job failed on it at every restart).
   */
  @Test
  void aDeadLetterOfALargeRecordIsCut() throws Exception {
    Schema schema = Schema.builder().addStringField("note").addInt64Field("merchant_id").build();
    Row record = Row.withSchema(schema).addValues("n".repeat(1_048_000), 7L).build();
    KV<String, String> row =
        ModelSinks.of(hourlyRevenue())
            .deadLetterRecord(
                dev.streamform.transforms.decisions.DeadLetter.skew(
                    "0-5", "partition 0 offset 5: an hour ahead of its arrival", record));
    assertTrue(row.getValue().length() <= ModelSinks.MAX_ROW_CHARS, row.getValue().length() + "");
    com.fasterxml.jackson.databind.JsonNode value =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(row.getValue());
    assertTrue(value.get("record").isNull());
    assertTrue(value.get("record_truncated").asBoolean());
    assertTrue(value.get("record_bytes").asInt() > 1_048_000);
    assertEquals(5, value.get("offset").asInt());
    assertEquals("clock_skew: an hour ahead of its arrival", value.get("reason").asText());
  }

  private DeclaredModel hourlyRevenue() throws Exception {
    return model("merchant_id", "    key: [merchant_id]");
  }

  private void write(String relative, String text) throws Exception {
    Path f = dir.resolve(relative);
    Files.createDirectories(f.getParent());
    Files.writeString(f, text);
  }

  private static WindowRevision revision(
      String keyName,
      WindowStatus status,
      int revision,
      Integer predecessor,
      String revenue,
      long orders) {
    Row key =
        Row.withSchema(Schema.builder().addNullableField(keyName, Schema.FieldType.INT64).build())
            .addValue(7L)
            .build();
    String logical =
        RevisionIdentity.logicalWindowId(
            "hourly_revenue", Map.of(keyName, 7L), Times.toJava(START), Times.toJava(END));
    Map<String, Object> values = new LinkedHashMap<>();
    values.put("revenue", new BigDecimal(revenue));
    values.put("orders", orders);
    return WindowRevision.builder()
        .setModel("hourly_revenue")
        .setKey(key)
        .setValues(Row.withSchema(VALUES).addValues(new BigDecimal(revenue), orders).build())
        .setWindowStart(START)
        .setWindowEnd(END)
        .setStatus(status)
        .setRevision(revision)
        .setPredecessor(predecessor)
        .setGeneration(1)
        .setLogicalWindowId(logical)
        .setProjectionId(RevisionIdentity.projectionId(logical, 1))
        .setAggregateDigest(RevisionIdentity.aggregateDigest(values))
        .setOffsets(List.of(PartitionOffsets.of(0, 0, 3, 3)))
        .build();
  }

  private static Envelope payment(DeclaredModel model, long offset, String amount, String paidAt) {
    Map<String, Object> values = new LinkedHashMap<>();
    values.put("merchant_id", 7L);
    values.put("amount", new BigDecimal(amount));
    values.put("paid_at", java.time.Instant.parse(paidAt));
    Row row = Schemas.row(model.recordSchema(), values);
    return Envelope.event(SourceRecord.of(0, offset, new Instant(0), row), Instant.parse(paidAt));
  }

  /**
   * A changelog record: keyed by its key columns, its value the op, the output columns in their
   * order and the event that made it, byte for byte (what consumers parse; ADR 0170 tried another
   * way of writing it against this text).
   */
  @Test
  void aChangelogRecordIsKeyedByItsKeyAndCarriesOpColumnsAndEvent() throws Exception {
    payments("note: string");
    write(
        "streamform.yml",
        String.join(
            "\n",
            "models:",
            "  merchant_totals:",
            "    materialized: upsert",
            "    key: [merchant_id]",
            ""));
    write(
        "models/merchant_totals.sql",
        "SELECT merchant_id, SUM(amount) AS revenue, COUNT(*) AS orders, MAX(paid_at) AS last_paid,"
            + " MAX(note) AS note FROM source('payments') GROUP BY merchant_id\n");
    ModelSinks sinks = ModelSinks.of(DeclaredModel.of(Project.load(dir), "merchant_totals"));
    Row key =
        Row.withSchema(
                Schema.builder().addNullableField("merchant_id", Schema.FieldType.INT64).build())
            .addValue(7L)
            .build();
    Schema values =
        Schema.builder()
            .addNullableField("revenue", Schema.FieldType.DECIMAL)
            .addNullableField("orders", Schema.FieldType.INT64)
            .addNullableField("last_paid", Schema.FieldType.DATETIME)
            .addNullableField("note", Schema.FieldType.STRING)
            .build();
    KV<String, String> record =
        sinks.changelogRecord(
            ChangelogRecord.of(
                ChangelogRecord.Op.UPDATE,
                key,
                Row.withSchema(values)
                    .addValues(new BigDecimal("26.00"), 3L, END, "say \"hi\"\n")
                    .build(),
                "payments-0-4",
                0,
                4,
                START));

    assertEquals("{\"merchant_id\":7}", record.getKey());
    assertEquals(
        "{\"op\":\"update\",\"merchant_id\":7,\"revenue\":26.00,\"orders\":3,"
            + "\"last_paid\":\"2026-08-30T11:00:00Z\",\"note\":\"say \\\"hi\\\"\\n\","
            + "\"__event\":\"payments-0-4\"}",
        record.getValue());
  }

  @Test
  void aRevisionIsKeyedByKeyAndWindowAndCarriesItsRowStatusAndIdentity() throws Exception {
    ModelSinks sinks = ModelSinks.of(hourlyRevenue());
    WindowRevision r = revision("merchant_id", WindowStatus.CORRECTED, 2, 1, "26.00", 3);

    KV<String, String> record = sinks.windowRecord(r);

    assertEquals("{\"merchant_id\":7,\"window_start\":\"2026-08-30T10:00:00Z\"}", record.getKey());
    assertEquals(
        "{\"window_start\":\"2026-08-30T10:00:00Z\",\"window_end\":\"2026-08-30T11:00:00Z\","
            + "\"merchant_id\":7,\"revenue\":26.00,\"orders\":3,"
            + "\"status\":\"corrected\",\"revision\":2,\"predecessor\":1,"
            + "\"logical_window_id\":\""
            + r.logicalWindowId()
            + "\","
            + "\"projection_id\":\""
            + r.projectionId()
            + "\","
            + "\"aggregate_digest\":\""
            + r.aggregateDigest()
            + "\","
            + "\"offsets\":{\"0\":{\"min\":0,\"max\":3,\"count\":3}},\"generation\":1}",
        record.getValue());
    // the identity is RevisionIdentity's test vector for this window (policies'
    // RevisionIdentityTest)
    assertEquals(
        "63f859c63e35403012fad180f0e51c7ceef796cd726b773a95f7df60ec46904b", r.logicalWindowId());
  }

  @Test
  void revisionOneAndPreviewsHaveNoPredecessorAndFinalsRepeatTheLastRevision() throws Exception {
    ModelSinks sinks = ModelSinks.of(hourlyRevenue());
    String early =
        sinks
            .windowRecord(revision("merchant_id", WindowStatus.EARLY, 0, null, "30", 2))
            .getValue();
    String onTime =
        sinks
            .windowRecord(revision("merchant_id", WindowStatus.ON_TIME, 1, null, "30", 2))
            .getValue();
    String fin =
        sinks
            .windowRecord(revision("merchant_id", WindowStatus.FINAL, 2, 1, "26.00", 3))
            .getValue();

    assertTrue(early.contains("\"status\":\"early\",\"revision\":0,\"predecessor\":null"), early);
    assertTrue(
        onTime.contains("\"status\":\"on_time\",\"revision\":1,\"predecessor\":null"), onTime);
    assertTrue(
        fin.contains(
            "\"revenue\":26.00,\"orders\":3,\"status\":\"final\",\"revision\":2,\"predecessor\":1"),
        fin);
  }

  @Test
  void aTooLateEventIsKeyedLikeTheWindowThatRefusedIt() throws Exception {
    DeclaredModel model = hourlyRevenue();
    TooLateEvent e =
        TooLateEvent.of(
            payment(model, 6, "-1.00", "2026-08-30T10:20:00Z"),
            START,
            END,
            Instant.parse("2026-08-31T11:05:00Z"));

    KV<String, String> record = ModelSinks.of(model).tooLateRecord(e);

    assertEquals("{\"merchant_id\":7,\"window_start\":\"2026-08-30T10:00:00Z\"}", record.getKey());
    assertEquals(
        "{\"reason\":\""
            + e.reason()
            + "\",\"window_start\":\"2026-08-30T10:00:00Z\",\"window_end\":\"2026-08-30T11:00:00Z\","
            + "\"watermark\":\"2026-08-31T11:05:00Z\",\"partition\":0,\"offset\":6,"
            + "\"event_time\":\"2026-08-30T10:20:00Z\","
            + "\"record\":{\"merchant_id\":7,\"amount\":-1.00,\"paid_at\":\"2026-08-30T10:20:00Z\"}}",
        record.getValue());
  }

  @Test
  void aKeyRenamedByTheQueryIsNamedAsTheQueryNamesItEverywhere() throws Exception {
    DeclaredModel model = model("merchant_id AS merchant", "    key: [merchant]");
    ModelSinks sinks = ModelSinks.of(model);
    String expectedKey = "{\"merchant\":7,\"window_start\":\"2026-08-30T10:00:00Z\"}";

    assertEquals(
        expectedKey,
        sinks.windowRecord(revision("merchant", WindowStatus.ON_TIME, 1, null, "30", 2)).getKey());
    assertEquals(
        expectedKey,
        sinks
            .tooLateRecord(
                TooLateEvent.of(
                    payment(model, 6, "-1.00", "2026-08-30T10:20:00Z"),
                    START,
                    END,
                    Instant.parse("2026-08-31T11:05:00Z")))
            .getKey());
    // the same holds for a late event of an upsert model: its key is read by source column
    assertEquals(
        "{\"merchant\":7}",
        sinks
            .lateRecord(
                LateEvent.of(
                    payment(model, 2, "5.00", "2026-08-30T10:01:00Z"),
                    Instant.parse("2026-08-30T10:05:00Z")))
            .getKey());
  }

  @Test
  void aWindowedModelsTopicIsNotCompactedAndStreamformYmlMayNameTheTopics() throws Exception {
    ModelSinks defaults = ModelSinks.of(hourlyRevenue());
    assertEquals(
        List.of("hourly_revenue", "hourly_revenue.late", "hourly_revenue.quarantine"),
        List.of(defaults.topic(), defaults.lateTopic(), defaults.quarantineTopic()));
    assertFalse(defaults.topicIsCompacted(), "every revision is a record to keep");

    ModelSinks named =
        ModelSinks.of(
            model(
                "merchant_id",
                "    key: [merchant_id]\n"
                    + "    topic: revenue.hourly\n"
                    + "    late_topic: revenue.refused"));
    assertEquals(
        List.of("revenue.hourly", "revenue.refused", "hourly_revenue.quarantine"),
        List.of(named.topic(), named.lateTopic(), named.quarantineTopic()));
  }
}
