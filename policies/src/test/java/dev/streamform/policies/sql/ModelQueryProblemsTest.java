package dev.streamform.policies.sql;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.streamform.policies.schema.ColumnType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ModelQueryProblemsTest {

  static final Map<String, ColumnType> ORDERS = orders();

  private static Map<String, ColumnType> orders() {
    Map<String, ColumnType> m = new LinkedHashMap<>();
    m.put("customer_id", ColumnType.INT64);
    m.put("region", ColumnType.STRING);
    m.put("amount", ColumnType.decimal(12, 2));
    m.put("qty", ColumnType.INT64);
    m.put("weight", ColumnType.DOUBLE);
    m.put("paid", ColumnType.BOOL);
    m.put("ordered_at", ColumnType.TIMESTAMP);
    m.put("status", ColumnType.STRING);
    return m;
  }

  private static List<String> problems(String sql) throws SqlModelException {
    return ModelSql.parse(sql).problems(ORDERS);
  }

  @Test
  void seedModelHasNoProblemsAndSumOfDecimal12_2IsDecimal38_2() throws Exception {
    ModelQuery q = ModelSql.parse(ModelSqlParseTest.SEED);
    assertThat(q.problems(ORDERS), empty());
    LinkedHashMap<String, ColumnType> out = q.outputColumns(ORDERS);
    assertThat(out.keySet(), contains("customer_id", "total_spend"));
    assertEquals(ColumnType.INT64, out.get("customer_id"));
    assertEquals(ColumnType.decimal(38, 2), out.get("total_spend"));
    assertEquals("decimal(38,2)", out.get("total_spend").toString());
  }

  @ParameterizedTest(name = "{0}({1}) = {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          SUM   | qty         | int64
          SUM   | weight      | double
          SUM   | amount      | decimal(38,2)
          COUNT | region      | int64
          COUNT | *           | int64
          MIN   | ordered_at  | timestamp
          MAX   | region      | string
          MIN   | amount      | decimal(12,2)
          MAX   | paid        | bool
          MIN   | weight      | double
          AVG   | qty         | double
          AVG   | weight      | double
          AVG   | amount      | decimal(38,6)
          """)
  void outputTypes(String function, String argument, String expected) throws Exception {
    ModelQuery q =
        ModelSql.parse(
            "SELECT region, "
                + function
                + "("
                + argument
                + ") AS agg FROM source('orders') GROUP BY region");
    assertThat(q.problems(ORDERS), empty());
    LinkedHashMap<String, ColumnType> out = q.outputColumns(ORDERS);
    assertEquals(ColumnType.STRING, out.get("region"));
    assertEquals(ColumnType.parse(expected), out.get("agg"));
  }

  @Test
  void avgOfDecimalKeepsALargerScale() throws Exception {
    Map<String, ColumnType> schema = Map.of("k", ColumnType.STRING, "x", ColumnType.decimal(20, 9));
    ModelQuery q = ModelSql.parse("SELECT k, AVG(x) AS a, SUM(x) AS s FROM source('s') GROUP BY k");
    assertEquals(ColumnType.decimal(38, 9), q.outputColumns(schema).get("a"));
    assertEquals(ColumnType.decimal(38, 9), q.outputColumns(schema).get("s"));
  }

  @Test
  void keyColumnsKeepTheirTypeUnderAnAlias() throws Exception {
    ModelQuery q =
        ModelSql.parse(
            "SELECT ordered_at AS t, paid, COUNT(*) AS n FROM source('o') GROUP BY ordered_at,"
                + " paid");
    assertThat(q.problems(ORDERS), empty());
    LinkedHashMap<String, ColumnType> out = q.outputColumns(ORDERS);
    assertThat(out.keySet(), contains("t", "paid", "n"));
    assertEquals(ColumnType.TIMESTAMP, out.get("t"));
    assertEquals(ColumnType.BOOL, out.get("paid"));
  }

  @Test
  void unknownColumnSuggestsCloseNames() throws Exception {
    List<String> p =
        problems(
            "SELECT customer_id,\n"
                + "  SUM(amout) AS total\n"
                + "FROM source('orders')\n"
                + "GROUP BY customer_id");
    assertThat(p, hasSize(1));
    assertEquals(
        "line 2: SUM(amout) AS total uses unknown column `amout`; did you mean `amount`?",
        p.get(0));
  }

  @Test
  void unknownColumnInDifferentCaseSuggestsTheRightCase() throws Exception {
    List<String> p =
        problems("SELECT Customer_ID, COUNT(*) AS n FROM source('orders') GROUP BY Customer_ID");
    assertThat(
        p.get(0),
        containsString(
            "line 1: GROUP BY uses unknown column `Customer_ID`; did you mean `customer_id`?"));
  }

  @Test
  void unknownColumnWithNothingCloseListsTheColumns() throws Exception {
    List<String> p =
        problems("SELECT customer_id, MAX(zzzzzz) AS m FROM source('orders') GROUP BY customer_id");
    assertThat(p.get(0), containsString("the source's columns are `customer_id`, `region`"));
  }

  @Test
  void nonKeyColumnWithoutAggregate() throws Exception {
    List<String> p =
        problems(
            "SELECT customer_id,\n"
                + "  region,\n"
                + "  COUNT(*) AS n FROM source('orders') GROUP BY customer_id");
    assertEquals(
        List.of(
            "line 2: column `region` is selected but is not a GROUP BY column, so it has no single"
                + " value per key; add it to GROUP BY, or aggregate it, e.g. MAX(region) AS"
                + " region"),
        p);
  }

  @Test
  void groupByColumnNotSelected() throws Exception {
    List<String> p =
        problems(
            "SELECT customer_id, COUNT(*) AS n FROM source('orders')\n"
                + "GROUP BY customer_id,\n"
                + " region");
    assertEquals(
        List.of(
            "line 3: GROUP BY column `region` is not selected; add it to the SELECT list (key"
                + " columns are part of the model's output)"),
        p);
  }

  @Test
  void groupByColumnTwice() throws Exception {
    List<String> p =
        problems("SELECT region, COUNT(*) AS n FROM source('orders') GROUP BY region, region");
    assertThat(p, contains(startsWith("line 1: GROUP BY lists `region` twice")));
  }

  @Test
  void groupByColumnSelectedTwiceIsRefusedAtItsSecondLine() throws Exception {
    List<String> p =
        problems(
            "SELECT region,\n"
                + "  region AS region2,\n"
                + "  COUNT(*) AS n FROM source('orders') GROUP BY region");
    assertEquals(
        List.of(
            "line 2: GROUP BY column `region` is selected twice (also at line 1); select it"
                + " once, under the name you want with AS (a key column has one name in the"
                + " output)"),
        p);
  }

  @Test
  void comparingWithUnknownIsNeverTrueAtItsLine() throws Exception {
    List<String> p =
        problems(
            "SELECT region, COUNT(*) AS n FROM source('orders')\n"
                + "WHERE paid = UNKNOWN GROUP BY region");
    assertThat(p, contains(startsWith("line 2: `paid = NULL` is never true")));
  }

  /** `i + NULL = 2` advised "write `2 IS NULL`": the NULL side is `qty + NULL`, not 2. */
  @Test
  void arithmeticWithNullComparedIsNeverTrueAndTheAdviceDoesNotNameTheOtherSide() throws Exception {
    List<String> p =
        problems(
            "SELECT region, COUNT(*) AS n FROM source('orders') WHERE qty + NULL = 2 GROUP BY"
                + " region");
    assertEquals(
        List.of(
            "line 1: `qty + NULL = 2` is never true: `qty + NULL` is always NULL (arithmetic with"
                + " NULL is NULL), and a comparison with NULL is UNKNOWN; leave NULL out of the"
                + " arithmetic, or test a column with IS NULL"),
        p);
  }

  @Test
  void sumAndAvgNeedNumbers() throws Exception {
    List<String> p =
        problems(
            "SELECT customer_id,\n"
                + " SUM(status) AS s,\n"
                + " AVG(ordered_at) AS a\n"
                + "FROM source('orders') GROUP BY customer_id");
    assertEquals(
        List.of(
            "line 2: SUM(status) needs a numeric column (int64, double or decimal), but `status`"
                + " is string; aggregate a numeric column, or use COUNT, MIN or MAX",
            "line 3: AVG(ordered_at) needs a numeric column (int64, double or decimal), but"
                + " `ordered_at` is timestamp; aggregate a numeric column, or use COUNT, MIN or"
                + " MAX"),
        p);
  }

  @Test
  void aggregateWithoutAlias() throws Exception {
    List<String> p =
        problems("SELECT customer_id,\n SUM(amount)\nFROM source('orders') GROUP BY customer_id");
    assertEquals(
        List.of(
            "line 2: SUM(amount) has no name; name the output column: SUM(amount) AS sum_amount"),
        p);
  }

  @Test
  void duplicateOutputNames() throws Exception {
    List<String> p =
        problems(
            "SELECT customer_id,\n"
                + " SUM(amount) AS total,\n"
                + " MAX(amount) AS total,\n"
                + " COUNT(*) AS Total\n"
                + "FROM source('orders') GROUP BY customer_id");
    assertEquals(
        List.of(
            "line 3: output name `total` is already used (line 2); give each select item a"
                + " distinct name with AS <name>",
            "line 4: output name `Total` differs only in case from `total` (line 2); give each"
                + " select item a distinct name with AS <name>"),
        p);
    assertThrows(
        IllegalArgumentException.class,
        () ->
            ModelSql.parse(
                    "SELECT customer_id, SUM(amount) AS customer_id FROM source('o') GROUP BY"
                        + " customer_id")
                .outputColumns(ORDERS));
  }

  @Test
  void whereUnknownColumn() throws Exception {
    List<String> p =
        problems(
            "SELECT customer_id, COUNT(*) AS n FROM source('orders')\n"
                + "WHERE stauts = 'paid'\n"
                + "GROUP BY customer_id");
    assertEquals(List.of("line 2: WHERE uses unknown column `stauts`; did you mean `status`?"), p);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          ordered_at > '2026-08-30 10:00:00' | `ordered_at > '2026-08-30 10:00:00'` compares `ordered_at` (timestamp) with '2026-08-30 10:00:00' (a string), which cannot be compared; write the time as a timestamp literal, e.g. TIMESTAMP '2026-08-30 10:00:00'
          amount = '10'                      | `amount = '10'` compares `amount` (decimal(12,2)) with '10' (a string), which cannot be compared; compare numbers with numbers (no quotes) and strings with quoted strings
          paid = 1                           | `paid = 1` compares `paid` (bool) with 1 (a number), which cannot be compared; compare values of the same kind
          status IN ('a', 2)                 | IN list compares `status` (string) with 2 (a number)
          qty BETWEEN 'a' AND 'b'            | BETWEEN compares `qty` (int64) with 'a' (a string)
          status + 1 > 2                     | `status + 1`: arithmetic + needs numbers, but `status` (string) is not a number
          qty AND paid                       | AND needs a condition, but `qty` (int64) is not a boolean; write a comparison such as `qty > 0`
          NOT status                         | NOT needs a condition, but `status` (string) is not a boolean
          qty                                | WHERE qty is not a condition (a number); write a comparison, e.g. WHERE qty > 0
          status = NULL                      | `status = NULL` is never true: a comparison with NULL is UNKNOWN; write `status IS NULL` instead
          """)
  void whereTypeProblems(String where, String message) throws Exception {
    List<String> p =
        problems(
            "SELECT customer_id, COUNT(*) AS n FROM source('orders')\nWHERE "
                + where
                + "\nGROUP BY customer_id");
    assertThat(p, hasSize(1));
    assertThat(p.get(0), startsWith("line 2: "));
    assertThat(p.get(0), containsString(message));
  }

  @Test
  void wellTypedWhereHasNoProblems() throws Exception {
    assertThat(
        problems(
            "SELECT customer_id, COUNT(*) AS n FROM source('orders')\n"
                + "WHERE ordered_at >= TIMESTAMP '2026-08-30 10:00:00' AND amount * qty > 10.5"
                + " AND weight BETWEEN 1 AND 2e1 AND region NOT IN ('eu', NULL) AND paid"
                + " AND NOT (status IS NULL) AND paid IS NOT FALSE\n"
                + "GROUP BY customer_id"),
        empty());
  }

  @Test
  void severalProblemsAreAllReported() throws Exception {
    List<String> p =
        problems(
            "SELECT regon,\n"
                + " SUM(status),\n"
                + " COUNT(*) AS n\n"
                + "FROM source('orders')\n"
                + "WHERE qty = 'x'\n"
                + "GROUP BY regon");
    assertThat(p, hasSize(5));
  }
}
