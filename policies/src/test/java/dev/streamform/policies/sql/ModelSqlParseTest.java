package dev.streamform.policies.sql;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ModelSqlParseTest {

  static final String SEED =
      "SELECT customer_id, SUM(amount) AS total_spend FROM source('orders') GROUP BY customer_id";

  @Test
  void parsesTheSeedModel() throws Exception {
    ModelQuery q = ModelSql.parse(SEED);
    assertEquals("orders", q.source());
    assertEquals(List.of("customer_id"), q.keyColumns());
    assertEquals(2, q.outputs().size());
    OutputColumn key = q.outputs().get(0);
    assertEquals("customer_id", key.name());
    assertEquals(OutputColumn.Kind.KEY, key.kind());
    assertEquals(Optional.empty(), key.function());
    OutputColumn sum = q.outputs().get(1);
    assertEquals("total_spend", sum.name());
    assertEquals(OutputColumn.Kind.AGGREGATE, sum.kind());
    assertEquals(Optional.of(OutputColumn.Function.SUM), sum.function());
    assertEquals(Optional.of("amount"), sum.argument());
    assertEquals(1, sum.line());
    assertFalse(q.where().isPresent());
    assertEquals(SEED, q.toSql());
  }

  @Test
  void parsesEveryAggregateOnItsOwnLine() throws Exception {
    ModelQuery q =
        ModelSql.parse(
            "SELECT region,\n"
                + "       Customer_Id,\n"
                + "       sum(amount) AS total,\n"
                + "       COUNT(*) AS n,\n"
                + "       count(coupon) AS with_coupon,\n"
                + "       MIN(amount) AS smallest,\n"
                + "       Max(ordered_at) AS last_order,\n"
                + "       AVG(amount) AS mean\n"
                + "FROM source('orders')\n"
                + "GROUP BY region, Customer_Id;\n");
    assertEquals(List.of("region", "Customer_Id"), q.keyColumns());
    assertThat(
        q.outputs().stream().map(OutputColumn::name).collect(Collectors.toList()),
        contains(
            "region",
            "Customer_Id",
            "total",
            "n",
            "with_coupon",
            "smallest",
            "last_order",
            "mean"));
    assertThat(
        q.outputs().stream()
            .map(o -> o.function().map(Enum::name).orElse("-"))
            .collect(Collectors.toList()),
        contains("-", "-", "SUM", "COUNT", "COUNT", "MIN", "MAX", "AVG"));
    assertEquals(Optional.empty(), q.outputs().get(3).argument());
    assertEquals(Optional.of("coupon"), q.outputs().get(4).argument());
    for (int i = 0; i < 8; i++) {
      assertEquals(i + 1, q.outputs().get(i).line(), q.outputs().get(i).name());
    }
  }

  @Test
  void keepsTheCaseOfIdentifiersAndAcceptsQuotedReservedWords() throws Exception {
    ModelQuery q =
        ModelSql.parse(
            "SELECT \"user\", SUM(\"value\") AS \"Total Value\" FROM source('Events') GROUP BY"
                + " \"user\"");
    assertEquals("Events", q.source());
    assertEquals(List.of("user"), q.keyColumns());
    assertEquals("Total Value", q.outputs().get(1).name());
    assertEquals(Optional.of("value"), q.outputs().get(1).argument());
    assertEquals(
        "SELECT \"user\", SUM(\"value\") AS \"Total Value\" FROM source('Events') GROUP BY"
            + " \"user\"",
        q.toSql());
  }

  @Test
  void parsesWhereAndAliasedSource() throws Exception {
    ModelQuery q =
        ModelSql.parse(
            "SELECT customer_id, COUNT(*) AS n FROM source('orders') AS o\n"
                + "WHERE amount > 10 AND status IN ('paid', 'shipped')\n"
                + "GROUP BY customer_id");
    assertTrue(q.where().isPresent());
    assertEquals("amount > 10 AND status IN ('paid', 'shipped')", q.where().get().toSql());
  }

  @Test
  void aggregateWithoutAliasGetsAGeneratedNameAndIsFlagged() throws Exception {
    ModelQuery q = ModelSql.parse("SELECT k, COUNT(*), SUM(x) FROM source('s') GROUP BY k");
    assertEquals("count_all", q.outputs().get(1).name());
    assertTrue(q.outputs().get(1).aliasMissing());
    assertEquals("sum_x", q.outputs().get(2).name());
  }

  @Test
  void keyColumnMayBeRenamed() throws Exception {
    ModelQuery q =
        ModelSql.parse("SELECT k AS customer, COUNT(*) AS n FROM source('s') GROUP BY k");
    assertEquals("customer", q.outputs().get(0).name());
    assertEquals(Optional.of("k"), q.outputs().get(0).argument());
  }

  // ------------------------------------------------------------------ refusals

  private static SqlModelException refused(String sql) {
    return assertThrows(SqlModelException.class, () -> ModelSql.parse(sql));
  }

  /** Each refusal: the SQL (with the construct on line 2 or 3), the message fragment, the line. */
  @ParameterizedTest(name = "{1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          SELECT k, COUNT(*) AS n\\nFROM source('a') JOIN source('b') ON a.x = b.x\\nGROUP BY k | JOIN is not supported | 2
          SELECT k, COUNT(*) AS n\\nFROM source('a'), source('b')\\nGROUP BY k | FROM lists several sources | 2
          SELECT k, COUNT(*) AS n\\nFROM (SELECT k FROM source('a'))\\nGROUP BY k | subqueries are not supported | 2
          SELECT k, COUNT(*) AS n FROM source('a')\\nWHERE k IN (SELECT k FROM source('b'))\\nGROUP BY k | subqueries are not supported | 2
          SELECT k, COUNT(*) AS n FROM source('a')\\nWHERE EXISTS (SELECT 1 FROM source('b'))\\nGROUP BY k | subqueries are not supported | 2
          SELECT k,\\n (SELECT 1) AS x1 FROM source('a') GROUP BY k | subqueries are not supported | 2
          SELECT k,\\n SUM(x) OVER (PARTITION BY k) AS s FROM source('a') GROUP BY k | window functions (OVER) are not supported | 2
          SELECT k, COUNT(*) AS n FROM source('a')\\nGROUP BY k\\nHAVING COUNT(*) > 1 | HAVING is not supported | 3
          SELECT k, COUNT(*) AS n FROM source('a')\\nGROUP BY k\\nORDER BY k | ORDER BY is not supported | 3
          SELECT k, COUNT(*) AS n FROM source('a')\\nGROUP BY k\\nLIMIT 10 | LIMIT / FETCH is not supported | 3
          SELECT k, COUNT(*) AS n FROM source('a')\\nGROUP BY k\\nOFFSET 10 | OFFSET is not supported | 3
          SELECT\\nDISTINCT k FROM source('a') GROUP BY k | SELECT DISTINCT is not supported | 2
          SELECT k, COUNT(*) AS n FROM source('a') GROUP BY k\\nUNION\\nSELECT k, COUNT(*) AS n FROM source('b') GROUP BY k | UNION is not supported | 3
          SELECT\\n* FROM source('a') GROUP BY k | SELECT * is not supported | 2
          SELECT k, COUNT(*) AS n\\nFROM orders\\nGROUP BY k | FROM orders is not supported: models read sources through source(); write FROM source('orders') | 2
          SELECT k, COUNT(*) AS n\\nFROM kafka('orders')\\nGROUP BY k | FROM kafka(...) is not supported | 2
          SELECT k, COUNT(*) AS n\\nFROM source(orders)\\nGROUP BY k | source(orders) needs the name in single quotes: source('orders') | 2
          SELECT k, COUNT(*) AS n\\nFROM source('a', 'b')\\nGROUP BY k | source(...) takes exactly one quoted source name | 2
          SELECT k,\\n UPPER(name) AS u FROM source('a') GROUP BY k | function UPPER is not supported in the SELECT list | 2
          SELECT k,\\n STDDEV_POP(x) AS u FROM source('a') GROUP BY k | function STDDEV_POP is not supported | 2
          SELECT k, COUNT(*) AS n FROM source('a')\\nWHERE LOWER(name) = 'x'\\nGROUP BY k | function LOWER is not supported in WHERE | 2
          SELECT k, COUNT(*) AS n FROM source('a')\\nWHERE name LIKE 'x%'\\nGROUP BY k | operator LIKE is not supported in WHERE | 2
          SELECT k, COUNT(*) AS n FROM source('a')\\nWHERE SUM(x) > 3\\nGROUP BY k | aggregate SUM is not allowed in WHERE | 2
          SELECT k,\\n COUNT(DISTINCT x) AS n FROM source('a') GROUP BY k | COUNT(DISTINCT ...) is not supported | 2
          SELECT k,\\n SUM(x) FILTER (WHERE y > 1) AS n FROM source('a') GROUP BY k | aggregate FILTER (WHERE ...) is not supported | 2
          SELECT k,\\n SUM(x * 2) AS n FROM source('a') GROUP BY k | an aggregate's argument must be a single column | 2
          SELECT k,\\n SUM(MAX(x)) AS n FROM source('a') GROUP BY k | nested aggregates | 2
          SELECT k,\\n x + 1 AS n FROM source('a') GROUP BY k | arithmetic `x + 1` in the SELECT list is not supported | 2
          SELECT k,\\n SUM(*) AS n FROM source('a') GROUP BY k | SUM(*) is not supported | 2
          SELECT k, COUNT(*) AS n\\nFROM source('a') | the query has no GROUP BY | 1
          SELECT k, COUNT(*) AS n FROM source('a')\\nGROUP BY ROLLUP(k) | GROUP BY ROLLUP is not supported | 2
          SELECT k, COUNT(*) AS n FROM source('a')\\nGROUP BY 1 | GROUP BY 1 (a position or constant) is not supported | 2
          SELECT k, COUNT(*) AS n FROM source('a')\\nGROUP BY k + 1 | GROUP BY `k + 1` is not supported | 2
          WITH t AS (SELECT k FROM source('a'))\\nSELECT k FROM t GROUP BY k | WITH (common table expressions) is not supported | 1
          SELECT k, COUNT(*) AS n FROM source('a')\\nWHERE ts > DATE '2026-01-01'\\nGROUP BY k | DATE literals are not supported | 2
          SELECT k, COUNT(*) AS n FROM source('a')\\nWHERE ts > TIMESTAMP '2026-13-01 00:00:00'\\nGROUP BY k | is not a valid timestamp | 2
          SELECT k, COUNT(*) AS n FROM source('a')\\nWHERE x = ANY (SELECT 1)\\nGROUP BY k | subqueries are not supported | 2
          SELECT k, COUNT(*) AS n FROM source('a')\\nWHERE CAST(x AS INTEGER) = 1\\nGROUP BY k | CAST is not supported in WHERE | 2
          SELECT k, COUNT(*) AS n FROM source('a')\\nWHERE ts < CURRENT_TIMESTAMP\\nGROUP BY k | CURRENT_TIMESTAMP is not supported: a model must give the same result when events are replayed | 2
          SELECT k, COUNT(*) AS n FROM source('a')\\nWHERE ts > INTERVAL '1' HOUR\\nGROUP BY k | INTERVAL | 2
          SELECT k, COUNT(*) AS n FROM source('a')\\nWHERE CASE WHEN x THEN 1 END = 1\\nGROUP BY k | CASE is not supported in WHERE | 2
          SELECT o.k, COUNT(*) AS n FROM source('a') AS o\\nGROUP BY o.k | qualified name o.k is not supported; write the column name alone: k | 1
          SELECT k, COUNT(*) AS n FROM source('a') GROUP BY k\\nFETCH FIRST 2 ROWS ONLY | LIMIT / FETCH is not supported | 2
          SELECT k, COUNT(*) AS n,\\n RANK() OVER w AS r FROM source('a') GROUP BY k WINDOW w AS (ORDER BY k) | WINDOW clauses (window functions) are not supported | 2
          SELECT k, COUNT(*) AS n FROM source('a') GROUP BY k\\nQUALIFY n > 1 | QUALIFY (filtering on window functions) is not supported | 2
          INSERT INTO t SELECT 1 | a model must be a SELECT query, found INSERT | 1
          SELECT k, COUNT(*) AS n FROM source('a') GROUP BY k;\\nSELECT k FROM source('b') GROUP BY k | exactly one SELECT statement | 2
          """)
  void refuses(String sql, String message, int line) {
    SqlModelException e = refused(sql.replace("\\n", "\n"));
    assertThat(e.getMessage(), containsString(message));
    assertEquals(line, e.line(), e.getMessage());
    assertThat(e.getMessage(), containsString("line " + line));
  }

  /**
   * sql.md documents TIMESTAMP 'yyyy-MM-dd HH:mm:ss[.fff]': a form the oracle of test --report and
   * fuzz could not read was taken (no seconds, a year past 9999); it is refused with the documented
   * form, and every documented fraction (1 to 9 digits) is read, with a space or a T.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "2026-08-30 10:00",
        "2026-08-30T10:00",
        "2026-08-30T10:00:00Z",
        "+10000-01-01 00:00:00",
        "2026-08-30 10:00:00.1234567891",
        "2026-08-30 10:00:00.",
        "2026-8-30 10:00:00"
      })
  void aTimestampOutsideTheDocumentedFormIsRefusedWithIt(String text) {
    SqlModelException e =
        refused(
            "SELECT k, COUNT(*) AS n FROM source('a')\nWHERE ts > TIMESTAMP '"
                + text
                + "'\nGROUP BY k");
    assertEquals(2, e.line(), e.getMessage());
    assertThat(
        e.getMessage(),
        containsString(
            "TIMESTAMP '"
                + text
                + "' is not a valid timestamp; write TIMESTAMP 'yyyy-MM-dd HH:mm:ss' (or a T"
                + " between date and time) with an optional fraction of 1 to 9 digits, in UTC,"
                + " e.g. TIMESTAMP '2026-08-30 10:00:00'"));
  }

  @Test
  void everyDocumentedTimestampFractionIsRead() throws Exception {
    for (String fraction : new String[] {"", ".1", ".12", ".1234", ".12345", ".123456789"}) {
      for (String separator : new String[] {" ", "T"}) {
        ModelSql.parse(
            "SELECT k, COUNT(*) AS n FROM source('a') WHERE ts > TIMESTAMP '2026-08-30"
                + separator
                + "10:00:00"
                + fraction
                + "' GROUP BY k");
      }
    }
  }

  @Test
  void syntaxErrorsPointAtTheUsersText() {
    SqlModelException e =
        refused("SELECT k, COUNT(*) AS n\nFROM source('a')\nWHERE x = = 1\nGROUP BY k");
    assertEquals(3, e.line());
    assertEquals(9, e.column());
    assertThat(
        e.getMessage(),
        allOf(
            containsString("syntax error at line 3, column 9"),
            containsString("Encountered \"= =\"")));
    assertThat(e.getMessage(), containsString("a model is SELECT"));
  }

  @Test
  void concatenationIsRefusedByName() {
    SqlModelException e =
        refused("SELECT k, COUNT(*) AS n FROM source('a')\nWHERE s = 'a' || 'b'\nGROUP BY k");
    assertEquals(2, e.line());
    assertThat(e.getMessage(), containsString("operator || is not supported in WHERE"));
  }

  @Test
  void stringContinuationIsRefusedAsSuch() {
    SqlModelException e =
        refused("SELECT k, COUNT(*) AS n FROM source('a')\nWHERE s <> 'a' 'b'\nGROUP BY k");
    assertEquals(2, e.line());
    assertEquals(
        "line 2: string continuation ('a' 'b', literals side by side) is not supported; write one"
            + " literal, 'ab'",
        e.getMessage());
  }

  /** 1e400 was taken as an infinite double and shown as `InfinityE0`, which is not SQL. */
  @ParameterizedTest
  @ValueSource(strings = {"1e400", "-1e400", "1.8e308"})
  void aDoubleLiteralOutsideTheDoubleRangeIsRefused(String literal) {
    SqlModelException e =
        refused("SELECT k, COUNT(*) AS n FROM source('a')\nWHERE d < " + literal + "\nGROUP BY k");
    assertEquals(2, e.line());
    assertThat(
        e.getMessage(),
        containsString(
            "is outside the range of a double (about ±1.8e308); write a number within it"));
  }

  @Test
  void columnsCountATabAsOneCharacter() {
    SqlModelException e =
        refused("\tSELECT k, COUNT(*) AS n FROM source('o')\n\tWHERE\tx  = = 1 GROUP BY k");
    assertEquals(2, e.line());
    assertEquals(11, e.column());
  }

  @Test
  void reservedWordAsColumnSuggestsQuotes() {
    SqlModelException e = refused("SELECT k,\n  SUM(value) AS v FROM source('a') GROUP BY k");
    assertEquals(2, e.line());
    assertThat(
        e.getMessage(),
        containsString(
            "`value` is a reserved word in SQL: if it is a column, quote it as \"value\""));
  }

  @Test
  void bangEqualSuggestsAngleBrackets() {
    SqlModelException e =
        refused("SELECT k, COUNT(*) AS n FROM source('a')\nWHERE k != 'x' GROUP BY k");
    assertEquals(2, e.line());
    assertThat(e.getMessage(), containsString("write <> for 'not equal'"));
  }

  @Test
  void backTicksSuggestDoubleQuotes() {
    SqlModelException e = refused("SELECT `k`, COUNT(*) AS n FROM source('a') GROUP BY k");
    assertEquals(1, e.line());
    assertThat(e.getMessage(), containsString("quote identifiers with double quotes"));
  }

  @Test
  void emptySqlIsRefused() {
    SqlModelException e = refused("  \n ");
    assertThat(e.getMessage(), containsString("empty"));
  }

  @Test
  void queryEqualityIsByValue() throws Exception {
    assertEquals(ModelSql.parse(SEED), ModelSql.parse(SEED));
  }

  /**
   * A WHERE of thousands of levels is refused with its line, never a hang or a StackOverflowError
   * (audit of hostile input: 800 terms of n + 0 hung a test, 2,000 NOTs ended a run in a
   * StackOverflowError, 3,000 one in check itself, 1,000 parentheses said line 0, column 0).
   */
  @Test
  void aConditionTooDeepIsRefusedWithItsLine() throws Exception {
    String head = "SELECT k, COUNT(*) AS n FROM source('s')\nWHERE ";
    String tail = "\nGROUP BY k\n";
    for (String where :
        List.of(
            "n" + " + 0".repeat(800) + " > 0",
            "NOT ".repeat(2_000) + "n > 0",
            "NOT ".repeat(3_000) + "n > 0",
            "(".repeat(1_000) + "n > 0" + ")".repeat(1_000))) {
      SqlModelException e =
          assertThrows(SqlModelException.class, () -> ModelSql.parse(head + where + tail));
      assertThat(e.getMessage(), containsString("nests"));
      assertTrue(e.line() >= 1, e.getMessage());
    }
    // a hundred levels are taken
    ModelSql.parse(head + "NOT ".repeat(98) + "n > 0" + tail);
  }
}
