package dev.streamform.policies.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RowPredicateTest {

  private static RowPredicate where(String predicate) throws SqlModelException {
    return ModelSql.parse(
            "SELECT k, COUNT(*) AS n FROM source('s') WHERE " + predicate + " GROUP BY k")
        .where()
        .get();
  }

  private static Map<String, Object> row(Object... kv) {
    Map<String, Object> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  private static boolean test(String predicate, Object... kv) throws SqlModelException {
    return where(predicate).test(row(kv)::get);
  }

  @Test
  void comparisons() throws Exception {
    assertTrue(test("x = 1", "x", 1L));
    assertFalse(test("x = 1", "x", 2L));
    assertTrue(test("x <> 1", "x", 2L));
    assertTrue(test("x < 2", "x", 1L));
    assertTrue(test("x <= 1", "x", 1L));
    assertFalse(test("x > 1", "x", 1L));
    assertTrue(test("x >= 1", "x", 1L));
    assertTrue(test("s = 'paid'", "s", "paid"));
    assertFalse(test("s = 'paid'", "s", "Paid"));
    assertTrue(test("s < 'b'", "s", "a"));
    assertTrue(test("b = TRUE", "b", true));
    assertTrue(test("b", "b", true));
    assertFalse(test("b", "b", false));
  }

  /** SQL's UNKNOWN is the NULL boolean: it never passes on its own, and OR/AND treat it so. */
  @Test
  void unknownIsTheNullBoolean() throws Exception {
    assertFalse(test("UNKNOWN", "b", true));
    assertTrue(test("b OR UNKNOWN", "b", true));
    assertFalse(test("b OR UNKNOWN", "b", false));
    assertFalse(test("b AND UNKNOWN", "b", true));
    assertTrue(test("(b AND UNKNOWN) IS NULL", "b", true));
    assertEquals("b OR NULL", where("b OR UNKNOWN").toSql());
  }

  @Test
  void decimalsCompareByValue() throws Exception {
    assertTrue(test("x = 10", "x", new BigDecimal("10.00")));
    assertTrue(test("x = 10.00", "x", 10L));
    assertTrue(test("x = 10.0", "x", new BigDecimal("10")));
    assertTrue(test("x = 10", "x", 10.0));
    assertTrue(test("x = y", "x", new BigDecimal("10.00"), "y", 10L));
    assertTrue(test("x > 9.99", "x", new BigDecimal("10.00")));
    assertFalse(test("x > 10.001", "x", new BigDecimal("10.00")));
    assertTrue(test("x IN (1, 10.000)", "x", new BigDecimal("10")));
    // Exact: a decimal beyond double precision still compares exactly.
    assertFalse(test("x = 12345678901234567.1", "x", new BigDecimal("12345678901234567.2")));
    assertTrue(test("x BETWEEN 9.5 AND 10", "x", new BigDecimal("10.00")));
    // Integers are widened.
    assertTrue(test("x = 3", "x", 3));
  }

  @Test
  void nullsAreUnknownAndFilterTheRowOut() throws Exception {
    assertFalse(test("x = 1", "x", null));
    assertFalse(test("x <> 1", "x", null));
    assertFalse(test("NOT (x = 1)", "x", null));
    assertTrue(test("x IS NULL", "x", null));
    assertFalse(test("x IS NOT NULL", "x", null));
    assertTrue(test("x IS NOT NULL", "x", 0L));
    // UNKNOWN OR TRUE = TRUE; UNKNOWN AND FALSE = FALSE; UNKNOWN AND TRUE = UNKNOWN.
    assertTrue(test("x = 1 OR y = 2", "x", null, "y", 2L));
    assertFalse(test("x = 1 OR y = 2", "x", null, "y", 3L));
    assertFalse(test("x = 1 AND y = 2", "x", null, "y", 2L));
    assertTrue(test("NOT (x = 1 AND y = 2)", "x", null, "y", 3L));
    assertFalse(test("NOT (x = 1 AND y = 2)", "x", null, "y", 2L));
    // NOT IN with a NULL in the list is never true.
    assertFalse(test("x NOT IN (1, NULL)", "x", 2L));
    assertFalse(test("x IN (1, NULL)", "x", 2L));
    assertTrue(test("x IN (2, NULL)", "x", 2L));
    assertFalse(test("x NOT IN (1, 2)", "x", null));
    assertTrue(test("x NOT IN (1, 2)", "x", 3L));
    // IS TRUE / IS NOT TRUE never yield UNKNOWN.
    assertTrue(test("(x = 1) IS NOT TRUE", "x", null));
    assertFalse(test("(x = 1) IS TRUE", "x", null));
    assertFalse(test("b IS FALSE", "b", null));
    assertTrue(test("b IS NOT FALSE", "b", null));
    // Arithmetic with NULL is NULL.
    assertFalse(test("x + 1 > 0", "x", null));
    // BETWEEN with a NULL bound: false if the other bound already excludes.
    assertFalse(test("x BETWEEN 1 AND y", "x", 5L, "y", null));
    assertTrue(test("NOT (x BETWEEN 6 AND y)", "x", 5L, "y", null));
  }

  @Test
  void inAndBetween() throws Exception {
    assertTrue(test("s IN ('paid', 'shipped')", "s", "shipped"));
    assertFalse(test("s IN ('paid', 'shipped')", "s", "new"));
    assertTrue(test("s NOT IN ('paid', 'shipped')", "s", "new"));
    assertTrue(test("x BETWEEN 1 AND 3", "x", 3L));
    assertFalse(test("x BETWEEN 3 AND 1", "x", 2L));
    assertTrue(test("x BETWEEN SYMMETRIC 3 AND 1", "x", 2L));
    assertTrue(test("x NOT BETWEEN 1 AND 3", "x", 4L));
    assertTrue(test("x IN (-1, 2)", "x", -1L));
  }

  @Test
  void arithmetic() throws Exception {
    assertTrue(test("x + 1 = 3", "x", 2L));
    assertTrue(test("x - 1 = 1", "x", 2L));
    assertTrue(test("x * y = 6.0", "x", 2L, "y", new BigDecimal("3.0")));
    assertTrue(test("x / 2 = 3", "x", 7L)); // integer division truncates, as in SQL
    assertTrue(test("x / 2 = 3.5", "x", new BigDecimal("7")));
    assertTrue(test("x / 2 = 3.5", "x", 7.0));
    assertTrue(test("-x = -2", "x", 2L));
    assertTrue(test("1 + 2 * 3 = 7", "k", 0L));
    assertTrue(test("(1 + 2) * 3 = 9", "k", 0L));
    assertFalse(test("x / 0 = 1", "x", 1L)); // division by zero is NULL
    assertFalse(test("x / 0 IS NOT NULL", "x", 1L));
    assertTrue(test("x + 1 > 9223372036854775807", "x", Long.MAX_VALUE)); // widens, no overflow
    assertTrue(test("x * 1.5 = 15", "x", new BigDecimal("10.00")));
  }

  @Test
  void timestamps() throws Exception {
    Instant t = Instant.parse("2026-08-30T10:00:00Z");
    assertTrue(test("ts = TIMESTAMP '2026-08-30 10:00:00'", "ts", t));
    assertTrue(test("ts >= TIMESTAMP '2026-08-30 10:00:00'", "ts", t));
    assertFalse(test("ts > TIMESTAMP '2026-08-30 10:00:00'", "ts", t));
    assertTrue(test("ts > TIMESTAMP '2026-08-30 09:59:59.999'", "ts", t));
    assertTrue(
        test(
            "ts BETWEEN TIMESTAMP '2026-08-30 00:00:00' AND TIMESTAMP '2026-08-31 00:00:00'",
            "ts",
            t));
  }

  @Test
  void precedenceAndToSql() throws Exception {
    RowPredicate p = where("a = 1 OR b = 2 AND NOT c = 3");
    assertEquals("a = 1 OR b = 2 AND NOT c = 3", p.toSql());
    assertTrue(p.test(row("a", 1L, "b", 0L, "c", 3L)::get));
    assertFalse(p.test(row("a", 0L, "b", 2L, "c", 3L)::get));
    assertEquals(
        "(a = 1 OR b = 2) AND ts < TIMESTAMP '2026-08-30 10:00:00.5' AND x - (y - 1) > -1.5",
        where(
                "(a = 1 OR b = 2) AND ts < TIMESTAMP '2026-08-30 10:00:00.500' AND x - (y - 1) >"
                    + " -1.5")
            .toSql());
    assertEquals(
        "\"value\" IS NOT NULL AND s NOT IN ('it''s', 'b') AND x NOT BETWEEN 1 AND 2",
        where("\"value\" IS NOT NULL AND s NOT IN ('it''s', 'b') AND x NOT BETWEEN 1 AND 2")
            .toSql());
  }

  @Test
  void isSerializable() throws Exception {
    RowPredicate p = where("x = 10 AND ts < TIMESTAMP '2026-08-30 10:00:00' AND s IN ('a')");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(p);
    }
    RowPredicate copy;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (RowPredicate) in.readObject();
    }
    assertEquals(p.toSql(), copy.toSql());
    assertTrue(
        copy.test(
            row("x", new BigDecimal("10.00"), "ts", Instant.parse("2026-08-30T09:00:00Z"), "s", "a")
                ::get));
  }
}
