package dev.streamform.policies.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The WHERE language's evaluator ({@link Expr}) against Calcite's own: generated conditions over
 * generated rows, each evaluated by {@code Expr} and by Calcite (its JDBC driver running {@code
 * SELECT CASE WHEN c IS TRUE ... FROM (VALUES ...)}, which Calcite compiles and executes), must
 * give the same TRUE, FALSE or UNKNOWN. Where docs/reference/sql.md departs from Calcite on purpose
 * the generator stays clear: a division's divisor is a non-zero literal (Streamform makes division
 * by zero NULL, Calcite fails), values stay small enough that int64 arithmetic cannot overflow
 * (Streamform widens to decimal), and decimals are not divided (the scale of a decimal quotient is
 * the implementation's choice in SQL). See ADR 0080.
 */
class WhereAgainstCalciteTest {
  private static final int CONDITIONS = 240;
  private static final int PER_QUERY = 12;
  private static final int ROWS = 16;
  private static final long SEED = 20261203L;

  /** Column name, SQL type as Calcite declares it. */
  private static final String[][] COLUMNS = {
    {"a", "BIGINT"},
    {"b", "BIGINT"},
    {"d", "DOUBLE"},
    {"m", "DECIMAL(12, 2)"},
    {"s", "VARCHAR(10)"},
    {"f", "BOOLEAN"},
    {"ts", "TIMESTAMP(3)"},
  };

  private static final DateTimeFormatter SQL_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);
  private static final Instant BASE = Instant.parse("2026-08-30T10:00:00Z");

  @Test
  void generatedConditionsGiveCalcitesAnswers() throws Exception {
    SplittableRandom random = new SplittableRandom(SEED);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      rows.add(row(random));
    }
    List<String> conditions = new ArrayList<>();
    Generator g = new Generator(random);
    for (int i = 0; i < CONDITIONS; i++) {
      conditions.add(g.condition(3));
    }
    List<String> differences = new ArrayList<>();
    int answers = 0;
    int unknowns = 0;
    Properties info = new Properties();
    info.setProperty("lex", "JAVA"); // case-sensitive names, as a model's
    try (Connection calcite = DriverManager.getConnection("jdbc:calcite:", info)) {
      for (int from = 0; from < conditions.size(); from += PER_QUERY) {
        List<String> batch =
            conditions.subList(from, Math.min(from + PER_QUERY, conditions.size()));
        List<List<Boolean>> theirs = calcite(calcite, batch, rows);
        for (int c = 0; c < batch.size(); c++) {
          Expr.Predicate ours = (Expr.Predicate) ModelSql.condition(batch.get(c)).predicate();
          for (int r = 0; r < rows.size(); r++) {
            Map<String, Object> row = rows.get(r);
            Object value = ours.root.eval(row::get);
            Boolean expected = theirs.get(r).get(c);
            answers++;
            if (expected == null) {
              unknowns++;
            }
            if (!java.util.Objects.equals(expected, value)) {
              differences.add(
                  batch.get(c) + "  on " + row + ": Streamform " + value + ", Calcite " + expected);
            }
          }
        }
      }
    }
    assertEquals(List.of(), differences, differences.size() + " of " + answers + " answers differ");
    // the generator reaches all three answers, so agreement is not agreement on "unknown" alone
    assertTrue(unknowns > answers / 20 && unknowns < answers / 2, unknowns + " of " + answers);
  }

  /** Calcite's answer for each condition on each row: TRUE, FALSE or null (UNKNOWN). */
  private static List<List<Boolean>> calcite(
      Connection calcite, List<String> conditions, List<Map<String, Object>> rows)
      throws Exception {
    StringBuilder sql = new StringBuilder("SELECT i");
    for (String c : conditions) {
      sql.append(",\n  CASE WHEN (")
          .append(c)
          .append(") IS TRUE THEN 'T' WHEN (")
          .append(c)
          .append(") IS FALSE THEN 'F' ELSE 'N' END");
    }
    sql.append("\nFROM (VALUES ");
    for (int r = 0; r < rows.size(); r++) {
      sql.append(r == 0 ? "\n  (" : ",\n  (").append(r);
      for (String[] column : COLUMNS) {
        sql.append(", CAST(")
            .append(literal(rows.get(r).get(column[0])))
            .append(" AS ")
            .append(column[1])
            .append(")");
      }
      sql.append(")");
    }
    sql.append(") AS t(i");
    for (String[] column : COLUMNS) {
      sql.append(", ").append(column[0]);
    }
    sql.append(")\nORDER BY i");
    List<List<Boolean>> answers = new ArrayList<>();
    try (Statement statement = calcite.createStatement();
        ResultSet result = statement.executeQuery(sql.toString())) {
      while (result.next()) {
        List<Boolean> row = new ArrayList<>();
        for (int c = 0; c < conditions.size(); c++) {
          String v = result.getString(c + 2);
          row.add(v.equals("N") ? null : v.equals("T"));
        }
        answers.add(row);
      }
    }
    assertEquals(rows.size(), answers.size(), sql.toString());
    return answers;
  }

  private static Map<String, Object> row(SplittableRandom random) {
    Map<String, Object> row = new HashMap<>();
    row.put("a", nullOr(random, (long) random.nextInt(-6, 7)));
    row.put("b", nullOr(random, (long) random.nextInt(-20, 21)));
    row.put("d", nullOr(random, random.nextInt(-40, 41) / 4.0));
    row.put("m", nullOr(random, BigDecimal.valueOf(random.nextInt(-2000, 2001), 2)));
    row.put("s", nullOr(random, List.of("", "a", "b", "paid", "Paid", "z").get(random.nextInt(6))));
    row.put("f", nullOr(random, random.nextBoolean()));
    row.put("ts", nullOr(random, BASE.plusSeconds(random.nextInt(-7200, 7201)).plusMillis(500)));
    return row;
  }

  private static Object nullOr(SplittableRandom random, Object value) {
    return random.nextInt(6) == 0 ? null : value;
  }

  private static String literal(Object value) {
    if (value == null) {
      return "NULL";
    }
    if (value instanceof String) {
      return "'" + value + "'";
    }
    if (value instanceof Double) {
      return value + "E0";
    }
    if (value instanceof Instant) {
      return "TIMESTAMP '" + SQL_TIME.format((Instant) value) + "'";
    }
    return value.toString().toUpperCase(java.util.Locale.ROOT);
  }

  /** Random conditions in the WHERE language of docs/reference/sql.md. */
  private static final class Generator {
    private final SplittableRandom random;

    Generator(SplittableRandom random) {
      this.random = random;
    }

    String condition(int depth) {
      int pick = random.nextInt(depth <= 0 ? 6 : 10);
      switch (pick) {
        case 0:
        case 1:
          return comparison(depth);
        case 2:
          return string();
        case 3:
          return time();
        case 4:
          return is(depth);
        case 5:
          return inOrBetween(depth);
        case 6:
          return "NOT (" + condition(depth - 1) + ")";
        case 7:
          return "(" + condition(depth - 1) + ") AND (" + condition(depth - 1) + ")";
        case 8:
          return "(" + condition(depth - 1) + ") OR (" + condition(depth - 1) + ")";
        default:
          return random.nextBoolean() ? "f" : comparison(depth);
      }
    }

    private String comparison(int depth) {
      String op = List.of("=", "<>", "<", "<=", ">", ">=").get(random.nextInt(6));
      return number(depth) + " " + op + " " + number(depth);
    }

    private String string() {
      String op = List.of("=", "<>", "<", "<=", ">", ">=").get(random.nextInt(6));
      String other =
          random.nextInt(4) == 0
              ? "NULL"
              : "'" + List.of("a", "b", "paid", "").get(random.nextInt(4)) + "'";
      return random.nextBoolean() ? "s " + op + " " + other : other + " " + op + " s";
    }

    private String time() {
      String op = List.of("=", "<>", "<", "<=", ">", ">=").get(random.nextInt(6));
      Instant t =
          BASE.plusSeconds(60L * random.nextInt(-120, 121)).plusMillis(500L * random.nextInt(2));
      return "ts " + op + " " + literal(t);
    }

    private String is(int depth) {
      String test =
          List.of("IS NULL", "IS NOT NULL", "IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE")
              .get(random.nextInt(6));
      String operand =
          test.endsWith("NULL") && random.nextBoolean()
              ? number(depth)
              : "(" + condition(depth - 1) + ")";
      return operand + " " + test;
    }

    private String inOrBetween(int depth) {
      String not = random.nextInt(3) == 0 ? "NOT " : "";
      if (random.nextBoolean()) {
        List<String> items = new ArrayList<>();
        int n = 1 + random.nextInt(4);
        for (int i = 0; i < n; i++) {
          items.add(random.nextInt(8) == 0 ? "NULL" : numberLiteral());
        }
        return number(depth) + " " + not + "IN (" + String.join(", ", items) + ")";
      }
      String symmetric = random.nextInt(3) == 0 ? "SYMMETRIC " : "";
      return number(depth)
          + " "
          + not
          + "BETWEEN "
          + symmetric
          + numberLiteral()
          + " AND "
          + numberLiteral();
    }

    /** A numeric term: a column, a literal, or arithmetic on terms. */
    private String number(int depth) {
      int pick = random.nextInt(depth <= 0 ? 5 : 8);
      switch (pick) {
        case 0:
          return "a";
        case 1:
          return "b";
        case 2:
          return random.nextBoolean() ? "d" : "m";
        case 3:
        case 4:
          return numberLiteral();
        case 5:
          return "(" + number(depth - 1) + " + " + number(depth - 1) + ")";
        case 6:
          return "("
              + number(depth - 1)
              + (random.nextBoolean() ? " - " : " * ")
              + number(depth - 1)
              + ")";
        default:
          // a division by a non-zero literal, of an int64 or a double term only
          String dividend = List.of("a", "b", "d", "(a + b)").get(random.nextInt(4));
          String divisor = List.of("2", "3", "-4", "2.5E0").get(random.nextInt(4));
          return "(" + dividend + " / " + divisor + ")";
      }
    }

    private String numberLiteral() {
      switch (random.nextInt(4)) {
        case 0:
          return String.valueOf(random.nextInt(-10, 11));
        case 1:
          return BigDecimal.valueOf(random.nextInt(-1000, 1001), 2).toPlainString();
        case 2:
          return (random.nextInt(-40, 41) / 4.0) + "E0";
        default:
          return String.valueOf(random.nextInt(-3, 4));
      }
    }
  }
}
