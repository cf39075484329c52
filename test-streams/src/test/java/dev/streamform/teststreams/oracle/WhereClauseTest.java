package dev.streamform.teststreams.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.streamform.policies.sql.ModelSql;
import dev.streamform.policies.sql.RowPredicate;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The oracle's own WHERE reading ({@link WhereClause}) against the engine's ({@code ModelSql} with
 * Calcite's parser, then {@code Expr}) on generated predicates — every supported form, nested, with
 * NULLs in the rows — so that a bug in either is a disagreement here and in fuzz, rather than one
 * shared answer. A planted engine bug (a row with a NULL column passing) is caught.
 */
class WhereClauseTest {
  private static final String[] NUMBERS = {"a", "d", "m"};
  private static final String[] STRINGS = {"'x'", "'b'", "'it''s'", "''"};

  @Test
  void handWorkedAnswers() {
    Map<String, Object> row = new HashMap<>();
    row.put("a", 10L);
    row.put("m", new BigDecimal("10.00"));
    row.put("s", null);
    assertTrue(where("a = m").test(row)); // 10 = 10.00 by value
    assertFalse(where("s <> 'test'").test(row)); // UNKNOWN filters the row out
    assertTrue(where("(NOT (s = 'x')) IS NOT TRUE").test(row)); // NOT UNKNOWN is UNKNOWN
    assertFalse(where("NOT (s = 'x') IS NOT TRUE").test(row)); // NOT binds looser than IS
    assertTrue(where("a / 3 = 3").test(row)); // int64 division truncates
    assertFalse(where("a / 0 = 0 OR a / 0 <> 0").test(row)); // division by zero is NULL
    assertTrue(where("a BETWEEN SYMMETRIC 11 AND 9").test(row));
    assertFalse(where("a NOT IN (1, NULL)").test(row)); // UNKNOWN, not TRUE
    assertTrue(where("-a < 0 AND \"a\" IN (10)").test(row));
    assertEquals(null, WhereClause.ofQuery("SELECT a, COUNT(*) AS n FROM source('s') GROUP BY a"));
  }

  /**
   * NaN orders above every number and equals itself, as the engine compares doubles: the oracle's
   * {@code x < y ? -1 : x > y ? 1 : 0} made NaN equal to every number, and fuzz blamed a correct
   * pipeline (review of the fixture harness #1).
   */
  @Test
  void nanOrdersAboveEveryNumber() {
    Map<String, Object> row = new HashMap<>();
    row.put("d", Double.NaN);
    assertFalse(where("d = 5").test(row));
    assertTrue(where("d > 5").test(row));
    assertTrue(where("d > 1e308").test(row));
    assertFalse(where("d < 0").test(row));
    assertTrue(where("d = d").test(row));
  }

  @Test
  void agreesWithTheEngineOnGeneratedPredicates() throws Exception {
    List<String> disagreements = compare(2_000, 12, 2026, false);
    assertTrue(
        disagreements.isEmpty(),
        disagreements.size()
            + " disagreements, e.g.\n"
            + String.join("\n", disagreements.subList(0, Math.min(10, disagreements.size()))));
  }

  /**
   * Chains of comparisons the engine reads as Calcite does (left to right, IS after them, IN and
   * BETWEEN before them, NOT as a right operand), and timestamps with every fraction sql.md allows
   * (1 to 9 digits): the oracle could read neither, so test --report and fuzz ended in an internal
   * error.
   */
  @Test
  void readsChainedComparisonsAndEveryDocumentedTimestampAsTheEngineDoes() throws Exception {
    String[] conditions = {
      "a > 1 = b",
      "b IS TRUE = FALSE",
      "a = 1 IS TRUE = b",
      "a > 0 = b IS NULL",
      "b = a BETWEEN 1 AND 2",
      "a IN (1, 2) = b",
      "a IN (1) IN (TRUE)",
      "b = NOT a > 0",
      "b = NOT a > 0 AND b",
      "a < 1 <> (d > 0)",
      "t >= TIMESTAMP '2026-08-30 10:00:00.1234'",
      "t < TIMESTAMP '2026-08-30 10:00:00.99999999'",
      "t > TIMESTAMP '2026-08-30 09:59:59.12345'",
      "t >= TIMESTAMP '2026-08-30T10:00:00.5'"
    };
    Random random = new Random(7);
    List<Map<String, Object>> sample = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      sample.add(row(random));
    }
    List<String> disagreements = new ArrayList<>();
    for (String condition : conditions) {
      String sql = "SELECT a, COUNT(*) AS n FROM source('s') WHERE " + condition + " GROUP BY a";
      RowPredicate engine = ModelSql.parse(sql).where().get();
      try {
        WhereClause oracle = WhereClause.ofQuery(sql);
        for (Map<String, Object> r : sample) {
          if (engine.test(r::get) != oracle.test(r)) {
            disagreements.add(condition + " on " + r + ": engine " + engine.test(r::get));
          }
        }
      } catch (RuntimeException e) {
        disagreements.add(condition + ": " + e);
      }
    }
    assertEquals(List.of(), disagreements);
  }

  /** The same comparison, with an engine that lets rows with NULLs pass, fails: it can fail. */
  @Test
  void aPlantedEngineBugIsCaught() throws Exception {
    assertFalse(compare(300, 12, 2026, true).isEmpty());
  }

  private static List<String> compare(int predicates, int rows, long seed, boolean planted)
      throws Exception {
    Random random = new Random(seed);
    List<Map<String, Object>> sample = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      sample.add(row(random));
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < predicates; i++) {
      String predicate = predicate(random, 3);
      String sql = "SELECT a, COUNT(*) AS n FROM source('s') WHERE " + predicate + " GROUP BY a";
      RowPredicate engine = ModelSql.parse(sql).where().get();
      WhereClause oracle = WhereClause.ofQuery(sql);
      for (Map<String, Object> r : sample) {
        boolean e = engine.test(r::get);
        if (planted && r.values().stream().anyMatch(v -> v == null)) {
          e = true; // the planted engine lets a row with a NULL column through
        }
        boolean o = oracle.test(r);
        if (e != o) {
          out.add(predicate + " on " + r + ": engine " + e + ", oracle " + o);
        }
      }
    }
    return out;
  }

  private static WhereClause where(String predicate) {
    return WhereClause.ofQuery(
        "SELECT a, COUNT(*) AS n FROM source('s') WHERE " + predicate + " GROUP BY a");
  }

  private static Map<String, Object> row(Random r) {
    Map<String, Object> row = new HashMap<>();
    row.put("a", r.nextInt(5) == 0 ? null : (long) (r.nextInt(7) - 3));
    // NaN too: it orders above every number and equals itself (docs/reference/sql.md)
    row.put(
        "d", r.nextInt(5) == 0 ? null : r.nextInt(8) == 0 ? Double.NaN : (r.nextInt(13) - 6) / 2.0);
    row.put(
        "m",
        r.nextInt(5) == 0
            ? null
            : new BigDecimal(r.nextInt(13) - 6).movePointLeft(r.nextInt(2)).setScale(3));
    row.put("s", r.nextInt(5) == 0 ? null : new String[] {"x", "b", "it's", "", "X"}[r.nextInt(5)]);
    row.put("b", r.nextInt(4) == 0 ? null : r.nextBoolean());
    row.put(
        "t",
        r.nextInt(5) == 0
            ? null
            : Instant.parse("2026-08-30T10:00:00Z").plusSeconds(r.nextInt(3) - 1));
    return row;
  }

  private static String predicate(Random r, int depth) {
    int pick = r.nextInt(depth <= 0 ? 8 : 14);
    switch (pick) {
      case 0:
        return number(r, 2) + " " + cmp(r) + " " + number(r, 2);
      case 1:
        return "s " + cmp(r) + " " + STRINGS[r.nextInt(STRINGS.length)];
      case 2:
        return "t " + cmp(r) + " TIMESTAMP '2026-08-30 10:00:0" + r.nextInt(2) + "'";
      case 3:
        return r.nextBoolean()
            ? "b"
            : "b = " + new String[] {"TRUE", "FALSE", "NULL"}[r.nextInt(3)];
      case 4:
        return new String[] {"a", "d", "m", "s", "b", "t"}[r.nextInt(6)]
            + (r.nextBoolean() ? " IS NULL" : " IS NOT NULL");
      case 5:
        return NUMBERS[r.nextInt(3)]
            + (r.nextBoolean() ? " NOT" : "")
            + " IN ("
            + literal(r)
            + ", "
            + literal(r)
            + (r.nextInt(4) == 0 ? ", NULL" : "")
            + ")";
      case 6:
        return number(r, 1)
            + (r.nextBoolean() ? " NOT" : "")
            + " BETWEEN "
            + (r.nextBoolean() ? "SYMMETRIC " : "")
            + number(r, 0)
            + " AND "
            + number(r, 0);
      case 7:
        return "s"
            + (r.nextBoolean() ? " NOT" : "")
            + " IN ("
            + STRINGS[r.nextInt(STRINGS.length)]
            + ", "
            + STRINGS[r.nextInt(STRINGS.length)]
            + ")";
      case 8:
      case 9:
        return "(" + predicate(r, depth - 1) + ") AND (" + predicate(r, depth - 1) + ")";
      case 10:
      case 11:
        return "(" + predicate(r, depth - 1) + ") OR (" + predicate(r, depth - 1) + ")";
      case 12:
        return "NOT (" + predicate(r, depth - 1) + ")";
      default:
        return "("
            + predicate(r, depth - 1)
            + ") IS "
            + (r.nextBoolean() ? "NOT " : "")
            + new String[] {"TRUE", "FALSE", "UNKNOWN"}[r.nextInt(3)];
    }
  }

  private static String cmp(Random r) {
    return new String[] {"=", "<>", "<", "<=", ">", ">="}[r.nextInt(6)];
  }

  private static String literal(Random r) {
    return new String[] {"0", "1", "-2", "1.5", "0.000", "2e0", "-0.5"}[r.nextInt(7)];
  }

  private static String number(Random r, int depth) {
    int pick = r.nextInt(depth <= 0 ? 2 : 5);
    switch (pick) {
      case 0:
        return NUMBERS[r.nextInt(3)];
      case 1:
        return literal(r);
      case 2:
        return number(r, depth - 1)
            + " "
            + new String[] {"+", "-", "*", "/"}[r.nextInt(4)]
            + " "
            + number(r, depth - 1);
      case 3:
        return "-(" + number(r, depth - 1) + ")";
      default:
        return "(" + number(r, depth - 1) + ")";
    }
  }
}
