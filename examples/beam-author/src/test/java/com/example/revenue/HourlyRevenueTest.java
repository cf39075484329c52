package com.example.revenue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.streamform.policies.schema.ColumnType;
import dev.streamform.teststreams.StreamformFixtures;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import java.math.BigDecimal;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.transforms.errorhandling.ErrorHandler.BadRecordErrorHandler;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/** The hourly windows against a fixture written by hand, as a TestStream on the DirectRunner. */
class HourlyRevenueTest {
  @Test
  void aLateRefundRevisesTheHourAndOneTooLateIsRefused() {
    Map<String, ColumnType> columns = new LinkedHashMap<>();
    columns.put("merchant_id", ColumnType.INT64);
    columns.put("revenue", ColumnType.decimal(38, 2));
    columns.put("payments", ColumnType.INT64);
    StreamformFixtures.forSource(Paths.get("src/test/project"), "payments")
        .run("fixtures/hourly_revenue.yml", columns, HourlyRevenue.windows())
        .assertPassed();
  }

  /** A payment without {@code paid_at} reaches the error handler, with where it was and why. */
  @Test
  void aPaymentWithoutPaidAtGoesToTheErrorHandler() {
    Schema schema =
        Schema.builder()
            .addInt64Field("merchant_id")
            .addDecimalField("amount")
            .addNullableField("paid_at", Schema.FieldType.DATETIME)
            .build();
    Instant readAt = Instant.parse("2026-08-30T10:06:00Z");
    Pipeline pipeline = Pipeline.create();
    BadRecordErrorHandler<PCollection<String>> badRecords =
        pipeline.registerBadRecordErrorHandler(new Descriptions());
    pipeline
        .apply(
            Create.of(
                    SourceRecord.of(0, 0, readAt, row(schema, 10, Instant.parse("2026-08-30T10:05:00Z"))),
                    SourceRecord.of(0, 1, readAt, row(schema, 20, null)))
                .withCoder(SourceRecordCoder.of(schema)))
        .apply(new HourlyRevenue(badRecords));
    badRecords.close();
    PAssert.that(badRecords.getOutput())
        .satisfies(
            descriptions -> {
              List<String> all = new ArrayList<>();
              descriptions.forEach(all::add);
              assertEquals(1, all.size(), "one bad record: " + all);
              assertEquals(true, all.get(0).startsWith("partition 0 offset 1: "), all.get(0));
              return null;
            });
    pipeline.run().waitUntilFinish();
  }

  private static Row row(Schema schema, long amount, Instant paidAt) {
    return Row.withSchema(schema).addValues(7L, BigDecimal.valueOf(amount), paidAt).build();
  }

  /** The handler's sink: each bad record's description. */
  private static final class Descriptions
      extends PTransform<PCollection<BadRecord>, PCollection<String>> {
    @Override
    public PCollection<String> expand(PCollection<BadRecord> bad) {
      return bad.apply(
          MapElements.into(TypeDescriptors.strings())
              .via((BadRecord b) -> b.getFailure().getDescription()));
    }
  }
}
