package dev.streamform.planner.sinks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A decimal is written as a plain number with its scale, never in scientific notation, on Kafka and
 * in files alike (docs/reference/output-formats.md: "number, exact, with its scale"; found by a
 * read-only audit of the output formats: a decimal(20,8) column wrote 1E-8, 0E-8 and -1.0E-7, while
 * the revision digests hash the plain form).
 */
class DecimalTextTest {
  @Test
  void aSmallDecimalIsWrittenPlainWithItsScale() {
    Map<String, Object> values = new LinkedHashMap<>();
    values.put("a", new BigDecimal("0.00000001"));
    values.put("b", new BigDecimal("0E-8"));
    values.put("c", new BigDecimal("-1.0E-7"));
    values.put("d", new BigDecimal("30.00"));
    values.put("e", new BigDecimal("1E+3"));
    assertEquals(
        "{\"a\":0.00000001,\"b\":0.00000000,\"c\":-0.00000010,\"d\":30.00,\"e\":1000}",
        JsonRecords.text(JsonRecords.object(values)));
  }
}
