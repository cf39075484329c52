package dev.streamform.policies.sql;

import dev.streamform.policies.schema.ColumnType;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.chrono.IsoChronology;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSelectKeyword;
import org.apache.calcite.sql.SqlUnknownLiteral;
import org.apache.calcite.sql.fun.SqlBetweenOperator;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Parses a model's SQL with Apache Calcite's parser (the standard grammar of calcite-core; Calcite
 * 1.38 accepts a table function call such as {@code source('orders')} directly in FROM, so the
 * user's text is parsed as written and every line and column refers to it).
 *
 * <p>The supported shape is
 *
 * <pre>
 * SELECT &lt;key cols&gt;, &lt;aggregates&gt; AS &lt;name&gt;
 * FROM source('&lt;src&gt;')
 * [WHERE &lt;predicate&gt;]
 * GROUP BY &lt;key cols&gt;
 * </pre>
 *
 * with aggregates {@code SUM(col)}, {@code COUNT(*)}, {@code COUNT(col)}, {@code MIN(col)}, {@code
 * MAX(col)} and {@code AVG(col)}. Identifiers keep their case and are matched case-sensitively;
 * quote an identifier with double quotes ({@code "value"}) when it is a SQL reserved word. Function
 * names and keywords are case-insensitive. A trailing semicolon is allowed.
 *
 * <p>The WHERE predicate supports {@code = <> < <= > >=}, {@code AND OR NOT}, {@code IS [NOT]
 * NULL}, {@code IS [NOT] TRUE|FALSE}, {@code [NOT] IN (literals)}, {@code [NOT] BETWEEN
 * [SYMMETRIC]}, arithmetic {@code + - * /} on numbers, numeric, string, boolean and NULL literals
 * and {@code TIMESTAMP 'yyyy-MM-dd HH:mm:ss[.fff]'} literals (UTC). See {@link RowPredicate} for
 * evaluation.
 *
 * <p>Refused here, with a message naming the construct and its line: JOIN (and several sources in
 * FROM), subqueries, WITH, window functions (OVER, WINDOW, QUALIFY), HAVING, ORDER BY, LIMIT,
 * OFFSET/FETCH, DISTINCT, UNION/INTERSECT/EXCEPT, {@code SELECT *}, FROM anything but {@code
 * source('name')}, a missing GROUP BY, GROUPING SETS/ROLLUP/CUBE, expressions in GROUP BY or the
 * SELECT list other than a column or a supported aggregate of a column, aggregate FILTER/DISTINCT,
 * and any other function or operator (named in the message). Checks that need the source schema are
 * {@link ModelQuery#problems(java.util.Map)}.
 */
public final class ModelSql {
  private ModelSql() {}

  static final String SHAPE =
      "a model is SELECT <key columns>, <aggregates> AS <name> FROM source('<source>')"
          + " [WHERE <condition>] GROUP BY <key columns>";

  private static final SqlParser.Config CONFIG =
      SqlParser.config()
          .withQuoting(Quoting.DOUBLE_QUOTE)
          .withQuotedCasing(Casing.UNCHANGED)
          .withUnquotedCasing(Casing.UNCHANGED)
          .withCaseSensitive(true);

  private static final SqlAbstractParserImpl.Metadata METADATA =
      SqlParser.create("", CONFIG).getMetadata();

  /** True when {@code word} is reserved in Calcite's SQL grammar (so a column needs quotes). */
  static boolean isReservedWord(String word) {
    return METADATA.isReservedWord(word.toUpperCase(Locale.ROOT));
  }

  /**
   * Parses {@code sql} into a {@link ModelQuery}; refuses unsupported constructs with a message
   * naming them and their line in {@code sql}. Semantic checks against a schema are {@link
   * ModelQuery#problems(java.util.Map)}.
   */
  public static ModelQuery parse(String sql) throws SqlModelException {
    if (sql == null || sql.isBlank()) {
      throw new SqlModelException("the model's SQL is empty; " + SHAPE, 1, 1);
    }
    SqlNodeList statements;
    try {
      statements = SqlParser.create(sql, CONFIG).parseStmtList();
    } catch (SqlParseException e) {
      throw syntaxError(e, sql);
    } catch (StackOverflowError e) {
      throw tooDeep();
    } catch (RuntimeException unexpected) {
      throw unreadable(SqlParserPos.ZERO, "the query", unexpected);
    }
    if (statements.size() != 1) {
      SqlNode second = statements.size() > 1 ? statements.get(1) : null;
      throw refuse(
          second == null ? SqlParserPos.ZERO : second.getParserPosition(),
          "a model file holds exactly one SELECT statement, found "
              + statements.size()
              + "; put each model in its own file under models/");
    }
    try {
      return new Parser(sql).query(statements.get(0));
    } catch (StackOverflowError e) {
      throw tooDeep(); // a chain of tens of thousands of ANDs flattened by recursion
    } catch (RuntimeException unexpected) {
      SqlNode statement = statements.get(0);
      throw unreadable(statement.getParserPosition(), "the query", unexpected);
    }
  }

  /**
   * A condition over output columns in the WHERE language (the same operators, literals and
   * three-valued logic), e.g. an effect rule's {@code revenue >= 1000}: parsed alone, refused with
   * the same messages as a WHERE clause. {@link Condition#columns()} names the columns it reads,
   * for a caller to check against the columns it will offer.
   */
  public static Condition condition(String text) throws SqlModelException {
    if (text == null || text.isBlank()) {
      throw new SqlModelException("the condition is empty; write e.g. revenue >= 1000", 1, 1);
    }
    SqlNode node;
    try {
      node = SqlParser.create(text, CONFIG).parseExpression();
    } catch (SqlParseException e) {
      throw syntaxError(e, text);
    } catch (StackOverflowError e) {
      throw tooDeep();
    } catch (RuntimeException unexpected) {
      throw unreadable(SqlParserPos.ZERO, "the condition", unexpected);
    }
    Expr.Node root;
    try {
      root = new Parser(text).expr(node);
    } catch (StackOverflowError e) {
      throw tooDeep();
    }
    java.util.Set<String> columns = new java.util.TreeSet<>();
    root.forEach(
        n -> {
          if (n instanceof Expr.Column) {
            columns.add(((Expr.Column) n).name);
          }
        });
    return new Condition(new Expr.Predicate(root), java.util.List.copyOf(columns));
  }

  /** A parsed {@link #condition}: the predicate and the columns it reads (sorted). */
  public record Condition(RowPredicate predicate, java.util.List<String> columns)
      implements java.io.Serializable {

    /**
     * The type checks a WHERE gets, against the columns the condition is given ({@code columns},
     * each of {@link #columns()} among them): comparable operands, no comparison with NULL, numbers
     * in arithmetic and a boolean result. Each problem says how to fix it; empty when the condition
     * is fine.
     */
    public java.util.List<String> problems(Map<String, ColumnType> columns) {
      java.util.List<String> problems = new ArrayList<>();
      ModelQuery.checkCondition(((Expr.Predicate) predicate).root, columns, problems, false);
      java.util.List<String> messages = new ArrayList<>();
      for (String problem : problems) {
        messages.add(problem.replaceFirst("^line \\d+: ", ""));
      }
      return messages;
    }
  }

  // ------------------------------------------------------------------ errors

  /** SQL too deep for the parser itself (thousands of nested parentheses). */
  private static SqlModelException tooDeep() {
    return new SqlModelException(
        "the SQL nests too deeply to be read (operators and parentheses within each other, far"
            + " more than the "
            + MAX_DEPTH
            + " levels a condition may have); write it with fewer levels",
        1,
        1);
  }

  private static SqlModelException syntaxError(SqlParseException e, String sql) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StackOverflowError) {
        return tooDeep(); // Calcite's parser gives it as a syntax error at line 0, column 0
      }
    }
    SqlParserPos pos = e.getPos();
    int line = pos == null ? 0 : pos.getLineNum();
    int col = pos == null ? 0 : pos.getColumnNum();
    String first = e.getMessage() == null ? "syntax error" : e.getMessage().split("\n", 2)[0];
    // Drop Calcite's own " at line N, column M." (we say it once, our way).
    String detail = withoutPosition(first).trim();
    if (detail.endsWith(".")) {
      detail = detail.substring(0, detail.length() - 1);
    }
    StringBuilder msg =
        new StringBuilder("syntax error at line ")
            .append(line)
            .append(", column ")
            .append(col)
            .append(": ")
            .append(detail);
    String word = wordAt(sql, line, col);
    if (detail.contains("'!='")) {
      msg.append("; write <> for 'not equal'");
    } else if (word != null && isReservedWord(word) && detail.contains("Incorrect syntax near")) {
      msg.append("; `")
          .append(word)
          .append(
              "` is a SQL keyword that a model cannot use here (if it is a column, quote it as \"")
          .append(word)
          .append("\"); ")
          .append(SHAPE);
    } else if (word != null && isReservedWord(word)) {
      msg.append("; `")
          .append(word)
          .append("` is a reserved word in SQL: if it is a column, quote it as \"")
          .append(word)
          .append('"');
    } else if (detail.contains("Lexical error") && detail.contains("\"`\"")) {
      msg.append("; quote identifiers with double quotes (\"name\"), not back-ticks");
    } else if (detail.contains("Illegal TIMESTAMP literal")) {
      msg.append("; write timestamps as TIMESTAMP 'yyyy-MM-dd HH:mm:ss' (UTC)");
    } else {
      msg.append("; ").append(SHAPE);
    }
    return new SqlModelException(msg.toString(), line, col, e);
  }

  /** Drops Calcite's {@code " at line N, column M."} from a message. */
  private static String withoutPosition(String message) {
    int at = message.indexOf(" at line ");
    if (at < 0) {
      return message;
    }
    int comma = message.indexOf(", column ", at);
    if (comma < 0) {
      return message;
    }
    int end = comma + ", column ".length();
    while (end < message.length() && Character.isDigit(message.charAt(end))) {
      end++;
    }
    if (end < message.length() && message.charAt(end) == '.') {
      end++;
    }
    return message.substring(0, at) + message.substring(end);
  }

  /** The identifier-like word of the user's text at a 1-based line and column, if any. */
  private static String wordAt(String sql, int line, int col) {
    String[] lines = sql.lines().toArray(String[]::new);
    if (line < 1 || line > lines.length || col < 1 || col > lines[line - 1].length()) {
      return null;
    }
    String l = lines[line - 1];
    int end = col - 1;
    while (end < l.length() && (Character.isLetterOrDigit(l.charAt(end)) || l.charAt(end) == '_')) {
      end++;
    }
    return end > col - 1 && Character.isLetter(l.charAt(col - 1))
        ? l.substring(col - 1, end)
        : null;
  }

  /**
   * A construct the reader failed on unexpectedly (a RuntimeException, a bug of the reader): said
   * as a problem at its line, with what the language offers, so the project's other problems are
   * still reported.
   */
  private static SqlModelException unreadable(
      SqlParserPos pos, String what, RuntimeException cause) {
    int line = Math.max(1, pos == null ? 0 : pos.getLineNum());
    int col = Math.max(1, pos == null ? 0 : pos.getColumnNum());
    return new SqlModelException(
        "line "
            + line
            + ": "
            + (what.startsWith("the ") ? what : "`" + what + "`")
            + " could not be read; write it with the constructs a model's SQL supports"
            + " (comparisons, AND, OR, NOT, IS [NOT] NULL, IN (...), BETWEEN, + - * / on"
            + " numbers, and numbers, 'strings', TRUE, FALSE, NULL or TIMESTAMP"
            + " 'yyyy-MM-dd HH:mm:ss' as literals)",
        line,
        col,
        cause);
  }

  static SqlModelException refuse(SqlParserPos pos, String message) {
    int line = pos == null ? 0 : pos.getLineNum();
    int col = pos == null ? 0 : pos.getColumnNum();
    return new SqlModelException("line " + line + ": " + message, line, col);
  }

  // ------------------------------------------------------------------ the walk

  /** Turns Calcite's parse tree into a {@link ModelQuery}, refusing what is not supported. */
  /**
   * The form of a TIMESTAMP literal's text (docs/reference/sql.md): {@code yyyy-MM-dd HH:mm:ss}, a
   * fraction of 1 to 9 digits optional, a real date and time (UTC); {@link #timestampLiteral} also
   * reads a {@code T} in place of the space. The oracle of {@code test --report} and {@code fuzz}
   * reads the literal with this same formatter, so the two never disagree on which literals exist.
   */
  /**
   * A TIMESTAMP literal's text read by {@link #TIMESTAMP_LITERAL}, with a {@code T} between the
   * date and the time read as the space (ISO 8601's separator, as event times are written in
   * fixtures and records).
   *
   * @throws DateTimeParseException for any other text
   */
  public static LocalDateTime timestampLiteral(String text) {
    String t = text.strip();
    if (t.length() > 10 && t.charAt(10) == 'T') {
      t = t.substring(0, 10) + ' ' + t.substring(11);
    }
    return LocalDateTime.parse(t, TIMESTAMP_LITERAL);
  }

  public static final DateTimeFormatter TIMESTAMP_LITERAL =
      new DateTimeFormatterBuilder()
          .appendValue(ChronoField.YEAR, 4)
          .appendLiteral('-')
          .appendValue(ChronoField.MONTH_OF_YEAR, 2)
          .appendLiteral('-')
          .appendValue(ChronoField.DAY_OF_MONTH, 2)
          .appendLiteral(' ')
          .appendValue(ChronoField.HOUR_OF_DAY, 2)
          .appendLiteral(':')
          .appendValue(ChronoField.MINUTE_OF_HOUR, 2)
          .appendLiteral(':')
          .appendValue(ChronoField.SECOND_OF_MINUTE, 2)
          .optionalStart()
          .appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, true)
          .optionalEnd()
          .toFormatter(Locale.ROOT)
          .withChronology(IsoChronology.INSTANCE)
          .withResolverStyle(ResolverStyle.STRICT);

  /** The most levels of operators within each other a condition may have ({@code Parser.expr}). */
  public static final int MAX_DEPTH = 100;

  private static final class Parser {
    private final String[] lines;

    Parser(String sql) {
      this.lines = sql.lines().toArray(String[]::new);
    }

    /** The user's own text of {@code node} (falls back to Calcite's rendering). */
    String text(SqlNode node) {
      SqlParserPos p = node.getParserPosition();
      int l1 = p.getLineNum();
      int l2 = p.getEndLineNum();
      int c1 = p.getColumnNum();
      int c2 = p.getEndColumnNum();
      if (l1 >= 1 && l2 >= l1 && l2 <= lines.length && c1 >= 1 && c2 >= 1) {
        StringBuilder sb = new StringBuilder();
        for (int l = l1; l <= l2; l++) {
          String line = lines[l - 1];
          int from = l == l1 ? c1 - 1 : 0;
          int to = l == l2 ? Math.min(c2, line.length()) : line.length();
          if (from > to) {
            sb.setLength(0);
            break;
          }
          sb.append(l == l1 ? "" : " ").append(line, from, to);
        }
        String t = String.join(" ", sb.toString().trim().split("\\s+"));
        if (!t.isEmpty()) {
          return t;
        }
      }
      return node.toString().replace("`", "");
    }

    ModelQuery query(SqlNode stmt) throws SqlModelException {
      if (stmt instanceof SqlOrderBy) {
        SqlOrderBy ob = (SqlOrderBy) stmt;
        if (ob.orderList != null && !ob.orderList.isEmpty()) {
          throw refuse(
              ob.orderList.get(0).getParserPosition(),
              "ORDER BY is not supported: a model is a changelog keyed by its GROUP BY columns,"
                  + " it has no row order; remove the ORDER BY clause");
        }
        if (ob.fetch != null) {
          throw refuse(
              ob.fetch.getParserPosition(),
              "LIMIT / FETCH is not supported: a model keeps every key; remove the LIMIT clause");
        }
        if (ob.offset != null) {
          throw refuse(
              ob.offset.getParserPosition(),
              "OFFSET is not supported: a model keeps every key; remove the OFFSET clause");
        }
        stmt = ob.query;
      }
      switch (stmt.getKind()) {
        case SELECT:
          return select((SqlSelect) stmt);
        case UNION:
        case INTERSECT:
        case EXCEPT:
          throw refuse(
              ((SqlCall) stmt).operand(1).getParserPosition(),
              stmt.getKind()
                  + " is not supported: a model is a single SELECT over one source;"
                  + " write one model per query");
        case WITH:
          throw refuse(
              stmt.getParserPosition(),
              "WITH (common table expressions) is not supported; " + SHAPE);
        case VALUES:
          throw refuse(stmt.getParserPosition(), "VALUES is not supported; " + SHAPE);
        default:
          throw refuse(
              stmt.getParserPosition(),
              "a model must be a SELECT query, found "
                  + stmt.getKind().sql.replace('_', ' ')
                  + "; "
                  + SHAPE);
      }
    }

    ModelQuery select(SqlSelect select) throws SqlModelException {
      if (select.isDistinct()) {
        SqlNode kw = select.getModifierNode(SqlSelectKeyword.DISTINCT);
        throw refuse(
            kw == null ? select.getParserPosition() : kw.getParserPosition(),
            "SELECT DISTINCT is not supported: the GROUP BY columns already make each key"
                + " appear once; remove DISTINCT");
      }
      String source = from(select.getFrom(), select);
      if (select.getWindowList() != null && !select.getWindowList().isEmpty()) {
        throw refuse(
            select.getWindowList().get(0).getParserPosition(),
            "WINDOW clauses (window functions) are not supported; aggregate with GROUP BY instead");
      }
      if (select.getHaving() != null) {
        throw refuse(
            select.getHaving().getParserPosition(),
            "HAVING is not supported: a model emits every key's aggregate; filter rows before"
                + " aggregation with WHERE, or filter the model's output downstream");
      }
      if (select.getQualify() != null) {
        throw refuse(
            select.getQualify().getParserPosition(),
            "QUALIFY (filtering on window functions) is not supported; remove it");
      }
      // ORDER BY / LIMIT inside a SELECT (some dialects put them here).
      if (select.getOrderList() != null && !select.getOrderList().isEmpty()) {
        throw refuse(
            select.getOrderList().get(0).getParserPosition(),
            "ORDER BY is not supported: a model has no row order; remove the ORDER BY clause");
      }
      if (select.getFetch() != null) {
        throw refuse(
            select.getFetch().getParserPosition(),
            "LIMIT / FETCH is not supported: a model keeps every key; remove the LIMIT clause");
      }
      if (select.getOffset() != null) {
        throw refuse(
            select.getOffset().getParserPosition(),
            "OFFSET is not supported: remove the OFFSET clause");
      }

      List<OutputColumn> outputs = new ArrayList<>();
      for (SqlNode item : select.getSelectList()) {
        outputs.add(selectItem(item));
      }

      Optional<RowPredicate> where = Optional.empty();
      if (select.getWhere() != null) {
        where = Optional.of(new Expr.Predicate(expr(select.getWhere())));
      }

      SqlNodeList group = select.getGroup();
      if (group == null || group.isEmpty()) {
        throw refuse(
            select.getSelectList().getParserPosition(),
            "the query has no GROUP BY: a model is keyed by its GROUP BY columns; add GROUP BY"
                + " <key columns> (the columns of `key:` in streamform.yml)");
      }
      List<String> keys = new ArrayList<>();
      List<Integer> keyLines = new ArrayList<>();
      for (SqlNode g : group) {
        keys.add(groupItem(g));
        keyLines.add(g.getParserPosition().getLineNum());
      }
      return ModelQuery.create(source, keys, keyLines, outputs, where);
    }

    // ---------------------------------------------------------------- FROM

    String from(SqlNode from, SqlSelect select) throws SqlModelException {
      if (from == null) {
        throw refuse(
            select.getParserPosition(),
            "the query has no FROM clause; read a source with FROM source('<source name>')");
      }
      if (from instanceof SqlJoin) {
        SqlJoin join = (SqlJoin) from;
        if (join.getJoinType() == JoinType.COMMA) {
          throw refuse(
              join.getRight().getParserPosition(),
              "FROM lists several sources: joins are not supported; a model reads one source,"
                  + " FROM source('<source name>')");
        }
        throw refuse(
            join.getJoinTypeNode().getParserPosition(),
            "JOIN is not supported: a model reads one source; write a model per source");
      }
      if (from.getKind() == SqlKind.AS) {
        // source('orders') AS o: the alias is harmless (columns are not qualified by it).
        SqlCall as = (SqlCall) from;
        if (as.operandCount() > 2) {
          throw refuse(
              as.operand(2).getParserPosition(),
              "column aliases on the source are not supported; remove them");
        }
        from = as.operand(0);
      }
      if (from.getKind() == SqlKind.SELECT
          || from.getKind() == SqlKind.ORDER_BY
          || from.getKind() == SqlKind.UNION
          || from.getKind() == SqlKind.WITH) {
        throw refuse(
            from.getParserPosition(),
            "subqueries are not supported: a model reads FROM source('<source name>') directly");
      }
      if (from.getKind() == SqlKind.COLLECTION_TABLE) {
        SqlNode call = ((SqlCall) from).operand(0);
        if (call instanceof SqlBasicCall
            && ((SqlBasicCall) call).getOperator().getName().equalsIgnoreCase("source")) {
          SqlBasicCall src = (SqlBasicCall) call;
          if (src.operandCount() == 1 && src.operand(0) instanceof SqlCharStringLiteral) {
            String name = ((SqlCharStringLiteral) src.operand(0)).getValueAs(String.class);
            if (name.isBlank()) {
              throw refuse(
                  src.operand(0).getParserPosition(),
                  "source('') names no source; write the name of a source from sources.yml");
            }
            return name;
          }
          if (src.operandCount() == 1 && src.operand(0) instanceof SqlIdentifier) {
            String n = ((SqlIdentifier) src.operand(0)).toString();
            throw refuse(
                src.operand(0).getParserPosition(),
                "source(" + n + ") needs the name in single quotes: source('" + n + "')");
          }
          throw refuse(
              src.getParserPosition(),
              "source(...) takes exactly one quoted source name, e.g. source('orders')");
        }
        String fn =
            call instanceof SqlCall ? ((SqlCall) call).getOperator().getName() : call.toString();
        throw refuse(
            call.getParserPosition(),
            "FROM "
                + fn
                + "(...) is not supported; read a source with FROM source('<source name>')");
      }
      if (from instanceof SqlIdentifier) {
        String n = ((SqlIdentifier) from).toString();
        throw refuse(
            from.getParserPosition(),
            "FROM "
                + n
                + " is not supported: models read sources through source(); write FROM"
                + " source('"
                + n
                + "')");
      }
      throw refuse(
          from.getParserPosition(),
          "FROM "
              + from.getKind().sql.replace('_', ' ')
              + " is not supported; read a source with FROM source('<source name>')");
    }

    // ---------------------------------------------------------------- SELECT items

    OutputColumn selectItem(SqlNode item) throws SqlModelException {
      SqlParserPos pos = item.getParserPosition();
      String alias = null;
      SqlNode expr = item;
      if (item.getKind() == SqlKind.AS) {
        SqlCall as = (SqlCall) item;
        expr = as.operand(0);
        alias = ((SqlIdentifier) as.operand(1)).getSimple();
        if (as.operandCount() > 2) {
          throw refuse(
              as.operand(2).getParserPosition(), "column lists after AS are not supported");
        }
      }
      if (expr instanceof SqlIdentifier) {
        SqlIdentifier id = (SqlIdentifier) expr;
        if (id.isStar()) {
          throw refuse(
              id.getParserPosition(),
              "SELECT * is not supported: list the key columns and the aggregates, e.g. SELECT"
                  + " customer_id, SUM(amount) AS total FROM source('orders') GROUP BY"
                  + " customer_id");
        }
        String column = column(id);
        return OutputColumn.key(
            alias == null ? column : alias, column, pos.getLineNum(), pos.getColumnNum());
      }
      refuseNested(expr);
      if (expr instanceof SqlBasicCall && expr.getKind() != SqlKind.OTHER_FUNCTION) {
        // e.g. FILTER, OVER, arithmetic
        refuseSpecial((SqlCall) expr, "in the SELECT list");
      }
      if (expr instanceof SqlCall) {
        SqlCall call = (SqlCall) expr;
        OutputColumn.Function f = aggregateFunction(call);
        if (f == null) {
          throw unsupportedFunction(call, "in the SELECT list");
        }
        if (call.getFunctionQuantifier() != null) {
          throw refuse(
              call.getFunctionQuantifier().getParserPosition(),
              f
                  + "("
                  + call.getFunctionQuantifier().toValue()
                  + " ...) is not supported; write "
                  + f
                  + "(<column>)");
        }
        if (call.operandCount() != 1) {
          throw refuse(
              call.getParserPosition(),
              f
                  + " takes exactly one argument: "
                  + f
                  + "(<column>)"
                  + (f == OutputColumn.Function.COUNT ? " or COUNT(*)" : ""));
        }
        SqlNode arg = call.operand(0);
        Optional<String> argument;
        if (arg instanceof SqlIdentifier && ((SqlIdentifier) arg).isStar()) {
          if (f != OutputColumn.Function.COUNT) {
            throw refuse(
                arg.getParserPosition(), f + "(*) is not supported; write " + f + "(<column>)");
          }
          argument = Optional.empty();
        } else if (arg instanceof SqlIdentifier) {
          argument = Optional.of(column((SqlIdentifier) arg));
        } else {
          if (arg instanceof SqlCall && aggregateFunction((SqlCall) arg) != null) {
            throw refuse(
                arg.getParserPosition(),
                "nested aggregates ("
                    + f
                    + "("
                    + ((SqlCall) arg).getOperator().getName().toUpperCase(Locale.ROOT)
                    + "(...))) are not supported; aggregate a column directly");
          }
          throw refuse(
              arg.getParserPosition(),
              f
                  + "("
                  + text(arg)
                  + ") is not supported: an aggregate's argument must be a single"
                  + " column, e.g. "
                  + f
                  + "(amount)");
        }
        String name = alias == null ? generatedName(f, argument) : alias;
        return OutputColumn.aggregate(
            name, f, argument, alias == null, pos.getLineNum(), pos.getColumnNum());
      }
      if (expr instanceof SqlLiteral) {
        throw refuse(
            expr.getParserPosition(),
            "constant "
                + text(expr)
                + " in the SELECT list is not supported; select key columns and"
                + " aggregates only");
      }
      throw refuse(
          expr.getParserPosition(),
          "`"
              + text(expr)
              + "` in the SELECT list is not supported; select key columns and aggregates"
              + " only");
    }

    private static String generatedName(OutputColumn.Function f, Optional<String> argument) {
      return f.name().toLowerCase(Locale.ROOT) + "_" + argument.orElse("all");
    }

    OutputColumn.Function aggregateFunction(SqlCall call) {
      if (call.getKind() != SqlKind.OTHER_FUNCTION
          && call.getKind() != SqlKind.SUM
          && call.getKind() != SqlKind.COUNT
          && call.getKind() != SqlKind.MIN
          && call.getKind() != SqlKind.MAX
          && call.getKind() != SqlKind.AVG) {
        return null;
      }
      String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
      for (OutputColumn.Function f : OutputColumn.Function.values()) {
        if (f.name().equals(name)) {
          return f;
        }
      }
      return null;
    }

    String groupItem(SqlNode g) throws SqlModelException {
      if (g instanceof SqlIdentifier) {
        return column((SqlIdentifier) g);
      }
      switch (g.getKind()) {
        case GROUPING_SETS:
        case ROLLUP:
        case CUBE:
          throw refuse(
              g.getParserPosition(),
              "GROUP BY "
                  + g.getKind().sql.replace('_', ' ')
                  + " is not supported; list the key columns: GROUP BY a, b");
        case LITERAL:
          throw refuse(
              g.getParserPosition(),
              "GROUP BY "
                  + text(g)
                  + " (a position or constant) is not supported; name the key column");
        default:
          throw refuse(
              g.getParserPosition(),
              "GROUP BY `" + text(g) + "` is not supported: group by plain columns only");
      }
    }

    /** A plain (unqualified, or qualified by the source alias) column name. */
    String column(SqlIdentifier id) throws SqlModelException {
      if (!id.isSimple()) {
        throw refuse(
            id.getParserPosition(),
            "qualified name "
                + id
                + " is not supported; write the column name alone: "
                + id.names.get(id.names.size() - 1));
      }
      return id.getSimple();
    }

    // ---------------------------------------------------------------- refusals

    /** Refuses subqueries, window functions anywhere under {@code node}. */
    void refuseNested(SqlNode node) throws SqlModelException {
      if (node == null) {
        return;
      }
      switch (node.getKind()) {
        case SELECT:
        case ORDER_BY:
        case UNION:
        case INTERSECT:
        case EXCEPT:
        case WITH:
        case EXISTS:
        case SCALAR_QUERY:
          throw refuse(
              node.getParserPosition(), "subqueries are not supported in a model; " + SHAPE);
        case OVER:
          throw refuse(
              node.getParserPosition(),
              "window functions (OVER) are not supported; aggregate with GROUP BY instead");
        default:
          break;
      }
      if (node instanceof SqlCall) {
        for (SqlNode op : ((SqlCall) node).getOperandList()) {
          refuseNested(op);
        }
      } else if (node instanceof SqlNodeList) {
        for (SqlNode op : (SqlNodeList) node) {
          refuseNested(op);
        }
      }
    }

    /** Refuses a call that is not a plain function call, naming the construct. */
    void refuseSpecial(SqlCall call, String where) throws SqlModelException {
      switch (call.getKind()) {
        case FILTER:
          throw refuse(
              call.getParserPosition(),
              "aggregate FILTER (WHERE ...) is not supported; filter rows with the query's WHERE");
        case WITHIN_GROUP:
          throw refuse(call.getParserPosition(), "WITHIN GROUP is not supported; remove it");
        case OVER:
          throw refuse(
              call.getParserPosition(),
              "window functions (OVER) are not supported; aggregate with GROUP BY instead");
        case PLUS:
        case MINUS:
        case TIMES:
        case DIVIDE:
        case MINUS_PREFIX:
        case PLUS_PREFIX:
          throw refuse(
              call.getParserPosition(),
              "arithmetic `"
                  + text(call)
                  + "` "
                  + where
                  + " is not supported; select key columns and"
                  + " aggregates of single columns");
        case CAST:
          throw refuse(call.getParserPosition(), "CAST is not supported " + where + "; remove it");
        case CASE:
          throw refuse(call.getParserPosition(), "CASE is not supported " + where + "; remove it");
        default:
          break;
      }
    }

    SqlModelException unsupportedFunction(SqlCall call, String where) {
      String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
      if (call.getKind() == SqlKind.OTHER_FUNCTION
          || call.getOperator().getSyntax().toString().startsWith("FUNCTION")) {
        return refuse(
            call.getParserPosition(),
            "function "
                + name
                + " is not supported "
                + where
                + "; the aggregates are SUM, COUNT, MIN, MAX and AVG, each of one column");
      }
      return refuse(
          call.getParserPosition(),
          "operator "
              + name
              + " is not supported "
              + where
              + "; the aggregates are SUM, COUNT, MIN, MAX and AVG, each of one column");
    }

    // ---------------------------------------------------------------- WHERE

    /** How deep {@link #expr} is in the expression being converted. */
    private int depth;

    /**
     * {@code node} as an expression of the WHERE language, refused past {@link #MAX_DEPTH} levels
     * of operators within each other: a deeper tree is no real condition, and every step that walks
     * it (this conversion, the job's serialization, the evaluation) recurses once per level — a
     * condition of thousands of levels hung a test and ended a run in a StackOverflowError.
     */
    Expr.Node expr(SqlNode node) throws SqlModelException {
      if (depth >= MAX_DEPTH) {
        throw refuse(
            node.getParserPosition(),
            "the condition nests more than "
                + MAX_DEPTH
                + " levels of operators and parentheses within each other; write it with fewer"
                + " (a list of alternatives as col IN (a, b, c), a sum as one column)");
      }
      depth++;
      try {
        return exprAt(node);
      } catch (RuntimeException unexpected) {
        // A shape of Calcite's tree this walk did not foresee: a problem at its line, never an
        // internal error that hides the project's other problems.
        throw unreadable(node.getParserPosition(), text(node), unexpected);
      } finally {
        depth--;
      }
    }

    private Expr.Node exprAt(SqlNode node) throws SqlModelException {
      SqlParserPos pos = node.getParserPosition();
      int line = pos.getLineNum();
      int col = pos.getColumnNum();
      if (node instanceof SqlIdentifier) {
        SqlIdentifier id = (SqlIdentifier) node;
        if (id.isStar()) {
          throw refuse(pos, "* is not allowed in WHERE; name a column");
        }
        if (id.isSimple()
            && !id.isComponentQuoted(0)
            && METADATA.isContextVariableName(id.getSimple().toUpperCase(Locale.ROOT))) {
          throw refuse(
              pos,
              id.getSimple().toUpperCase(Locale.ROOT)
                  + " is not supported: a model must give the same result when events are"
                  + " replayed, so it cannot depend on the current time or session; compare with"
                  + " a literal such as TIMESTAMP '2026-08-30 10:00:00' (if it is a column, quote"
                  + " it as \""
                  + id.getSimple()
                  + "\")");
        }
        return new Expr.Column(column(id), line, col);
      }
      if (node instanceof SqlLiteral) {
        return new Expr.Literal(literal((SqlLiteral) node), line, col);
      }
      if (!(node instanceof SqlCall)) {
        throw refuse(
            pos, "`" + text(node) + "` is not supported in WHERE; write a literal value instead");
      }
      SqlCall call = (SqlCall) node;
      switch (call.getKind()) {
        case SELECT:
        case ORDER_BY:
        case UNION:
        case INTERSECT:
        case EXCEPT:
        case WITH:
        case EXISTS:
        case SCALAR_QUERY:
          throw refuse(pos, "subqueries are not supported in WHERE; compare columns with literals");
        case OVER:
          throw refuse(
              pos, "window functions (OVER) are not supported; aggregate with GROUP BY instead");
        case EQUALS:
          return cmp(Expr.CmpOp.EQ, call);
        case NOT_EQUALS:
          return cmp(Expr.CmpOp.NE, call);
        case LESS_THAN:
          return cmp(Expr.CmpOp.LT, call);
        case LESS_THAN_OR_EQUAL:
          return cmp(Expr.CmpOp.LE, call);
        case GREATER_THAN:
          return cmp(Expr.CmpOp.GT, call);
        case GREATER_THAN_OR_EQUAL:
          return cmp(Expr.CmpOp.GE, call);
        case AND:
        case OR:
          {
            List<Expr.Node> ops = new ArrayList<>();
            flatten(call.getKind(), call, ops);
            return call.getKind() == SqlKind.AND
                ? Expr.Junction.and(ops, line, col)
                : Expr.Junction.or(ops, line, col);
          }
        case NOT:
          return new Expr.Not(expr(call.operand(0)), line, col);
        case IS_NULL:
          return new Expr.IsNull(expr(call.operand(0)), false, line, col);
        case IS_NOT_NULL:
          return new Expr.IsNull(expr(call.operand(0)), true, line, col);
        case IS_TRUE:
          return new Expr.IsBool(expr(call.operand(0)), true, false, line, col);
        case IS_NOT_TRUE:
          return new Expr.IsBool(expr(call.operand(0)), true, true, line, col);
        case IS_FALSE:
          return new Expr.IsBool(expr(call.operand(0)), false, false, line, col);
        case IS_NOT_FALSE:
          return new Expr.IsBool(expr(call.operand(0)), false, true, line, col);
        case IN:
        case NOT_IN:
          {
            SqlNode list = call.operand(1);
            if (!(list instanceof SqlNodeList)) {
              throw refuse(
                  list.getParserPosition(),
                  "subqueries are not supported in WHERE; IN takes a list of literals: IN (1, 2)");
            }
            List<Expr.Node> values = new ArrayList<>();
            for (SqlNode v : (SqlNodeList) list) {
              if (!(v instanceof SqlLiteral) && !isNegatedLiteral(v)) {
                refuseNested(v);
                throw refuse(
                    v.getParserPosition(),
                    "IN lists hold literals only, found `"
                        + text(v)
                        + "`; write IN ('a', 'b') or"
                        + " compare columns with =");
              }
              values.add(expr(v));
            }
            return new Expr.In(
                expr(call.operand(0)), values, call.getKind() == SqlKind.NOT_IN, line, col);
          }
        case BETWEEN:
          {
            SqlBetweenOperator op = (SqlBetweenOperator) call.getOperator();
            return new Expr.Between(
                expr(call.operand(0)),
                expr(call.operand(1)),
                expr(call.operand(2)),
                op.isNegated(),
                op.flag == SqlBetweenOperator.Flag.SYMMETRIC,
                line,
                col);
          }
        case PLUS:
          return arith(Expr.ArithOp.PLUS, call);
        case MINUS:
          return arith(Expr.ArithOp.MINUS, call);
        case TIMES:
          return arith(Expr.ArithOp.TIMES, call);
        case DIVIDE:
          return arith(Expr.ArithOp.DIVIDE, call);
        case MINUS_PREFIX:
          return new Expr.Negate(expr(call.operand(0)), line, col);
        case PLUS_PREFIX:
          return expr(call.operand(0));
        case LITERAL_CHAIN:
          {
            StringBuilder joined = new StringBuilder();
            for (SqlNode part : call.getOperandList()) {
              if (part instanceof SqlLiteral) {
                String v = ((SqlLiteral) part).getValueAs(String.class);
                joined.append(v == null ? "" : v);
              }
            }
            throw refuse(
                pos,
                "string continuation ("
                    + text(call)
                    + ", literals side by side) is not supported; write one literal, '"
                    + joined.toString().replace("'", "''")
                    + "'");
          }
        default:
          break;
      }
      if (aggregateFunction(call) != null) {
        throw refuse(
            pos,
            "aggregate "
                + call.getOperator().getName().toUpperCase(Locale.ROOT)
                + " is not allowed in WHERE: WHERE filters rows before aggregation (and HAVING"
                + " is not supported); compare columns with literals");
      }
      refuseNested(call);
      refuseSpecial(call, "in WHERE");
      String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
      boolean function =
          call.getKind() == SqlKind.OTHER_FUNCTION
              || call.getOperator().getSyntax().toString().startsWith("FUNCTION");
      throw refuse(
          pos,
          (function ? "function " : "operator ")
              + name
              + " is not supported in WHERE; use comparisons (= <> < <= > >=), AND, OR, NOT,"
              + " IS [NOT] NULL, IN (...), BETWEEN and + - * / on numbers");
    }

    private static boolean isNegatedLiteral(SqlNode v) {
      return (v.getKind() == SqlKind.MINUS_PREFIX || v.getKind() == SqlKind.PLUS_PREFIX)
          && ((SqlCall) v).operand(0) instanceof SqlNumericLiteral;
    }

    private void flatten(SqlKind kind, SqlCall call, List<Expr.Node> out) throws SqlModelException {
      for (SqlNode op : call.getOperandList()) {
        if (op.getKind() == kind && op instanceof SqlCall) {
          flatten(kind, (SqlCall) op, out);
        } else {
          out.add(expr(op));
        }
      }
    }

    private Expr.Node cmp(Expr.CmpOp op, SqlCall call) throws SqlModelException {
      SqlParserPos pos = call.getParserPosition();
      return new Expr.Compare(
          op, expr(call.operand(0)), expr(call.operand(1)), pos.getLineNum(), pos.getColumnNum());
    }

    private Expr.Node arith(Expr.ArithOp op, SqlCall call) throws SqlModelException {
      SqlParserPos pos = call.getParserPosition();
      return new Expr.Arith(
          op, expr(call.operand(0)), expr(call.operand(1)), pos.getLineNum(), pos.getColumnNum());
    }

    Object literal(SqlLiteral lit) throws SqlModelException {
      SqlParserPos pos = lit.getParserPosition();
      if (lit instanceof SqlNumericLiteral) {
        SqlNumericLiteral n = (SqlNumericLiteral) lit;
        BigDecimal v = n.getValueAs(BigDecimal.class);
        if (!n.isExact()) {
          double d = v.doubleValue();
          if (Double.isInfinite(d)) {
            // Not a double: it would be taken as infinite and shown as `InfinityE0`.
            throw refuse(
                pos,
                text(lit)
                    + " is outside the range of a double (about ±1.8e308); write a number within"
                    + " it");
          }
          return d;
        }
        if (n.isInteger()) {
          try {
            return v.longValueExact();
          } catch (ArithmeticException tooBig) {
            return v;
          }
        }
        return v;
      }
      if (lit instanceof SqlCharStringLiteral) {
        return lit.getValueAs(String.class);
      }
      if (lit instanceof SqlUnknownLiteral) {
        SqlUnknownLiteral u = (SqlUnknownLiteral) lit;
        if (u.tag.equalsIgnoreCase("TIMESTAMP")) {
          return timestamp(u.getValue(), pos);
        }
        throw refuse(
            pos,
            u.tag.toUpperCase(Locale.ROOT)
                + " literals are not supported; write a timestamp as"
                + " TIMESTAMP 'yyyy-MM-dd HH:mm:ss' (UTC)");
      }
      SqlTypeName t = lit.getTypeName();
      switch (t) {
        case NULL:
          return null;
        case BOOLEAN:
          // UNKNOWN is SQL's NULL boolean (Calcite gives it as a BOOLEAN literal without a value).
          return lit.getValue() == null ? null : lit.booleanValue();
        case TIMESTAMP:
          return timestamp(lit.toValue(), pos);
        default:
          throw refuse(
              pos,
              t.getName()
                  + " literal "
                  + text(lit)
                  + " is not supported; use numbers, 'strings', TRUE,"
                  + " FALSE, NULL or TIMESTAMP 'yyyy-MM-dd HH:mm:ss'");
      }
    }

    private Object timestamp(String text, SqlParserPos pos) throws SqlModelException {
      String t = text.trim();
      try {
        return timestampLiteral(t).toInstant(ZoneOffset.UTC);
      } catch (DateTimeParseException e) {
        throw refuse(
            pos,
            "TIMESTAMP '"
                + text
                + "' is not a valid timestamp; write TIMESTAMP"
                + " 'yyyy-MM-dd HH:mm:ss' (or a T between date and time) with an optional fraction"
                + " of 1 to 9 digits, in UTC, e.g. TIMESTAMP '2026-08-30 10:00:00'");
      }
    }
  }
}
