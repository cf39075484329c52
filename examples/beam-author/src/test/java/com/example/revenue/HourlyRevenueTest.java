package com.example.revenue;

import dev.streamform.policies.schema.ColumnType;
import dev.streamform.teststreams.StreamformFixtures;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;
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
}
