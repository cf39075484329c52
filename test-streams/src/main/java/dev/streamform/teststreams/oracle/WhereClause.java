package dev.streamform.teststreams.oracle;

import dev.streamform.policies.sql.ModelSql;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The oracle's own reading of a model's WHERE clause: a tokenizer, parser and evaluator written
 * apart from the engine's ({@code ModelSql} parses with Calcite into {@code Expr}), so that a bug
 * in either shows up as a disagreement in fuzz instead of agreeing with itself. It reads the clause
 * from the model's SQL text as written.
 *
 * <p>The forms are the supported ones (README, "A Streamform project"): comparisons {@code = <> !=
 * < <= > >=}, {@code AND}, {@code OR}, {@code NOT}, {@code IS [NOT] NULL|TRUE|FALSE|UNKNOWN},
 * {@code [NOT] IN (literals)}, {@code [NOT] BETWEEN [SYMMETRIC|ASYMMETRIC] a AND b}, {@code + - *
 * /} and unary minus on numbers, parentheses, literals (numbers, {@code 'strings'}, {@code TRUE},
 * {@code FALSE}, {@code NULL}, {@code UNKNOWN}, {@code TIMESTAMP 'yyyy-MM-dd HH:mm:ss[.f]'}, UTC)
 * and columns (case-sensitive; {@code "quoted"} too). Semantics as SQL gives them: three-valued
 * logic ({@code null} is UNKNOWN, and a row passes only on TRUE); numbers compare by value, in
 * double when a double is involved; int64 arithmetic stays int64 (division truncates) and becomes
 * exact decimal on overflow, decimal is exact (division to 34 digits), double is double; division
 * by zero is NULL.
 */
final class WhereClause {
  private final Node root;
  private final String text;

  private WhereClause(Node root, String text) {
    this.root = root;
    this.text = text;
  }

  /**
   * The WHERE clause of {@code sql} (a model's whole query), or null when it has none.
   *
   * @throws IllegalArgumentException when the clause uses a form this reading does not know
   */
  static WhereClause ofQuery(String sql) {
    List<Token> tokens = tokenize(sql);
    int depth = 0;
    int from = -1;
    int to = tokens.size();
    for (int i = 0; i < tokens.size(); i++) {
      Token t = tokens.get(i);
      if (t.is("(")) {
        depth++;
      } else if (t.is(")")) {
        depth--;
      } else if (depth == 0 && from < 0 && t.keyword("WHERE")) {
        from = i + 1;
      } else if (depth == 0
          && from >= 0
          && (t.keyword("GROUP")
              || t.keyword("ORDER")
              || t.keyword("HAVING")
              || t.keyword("LIMIT")
              || t.is(";"))) {
        to = i;
        break;
      }
    }
    if (from < 0) {
      return null;
    }
    List<Token> clause = tokens.subList(from, to);
    Parser p = new Parser(clause, sql);
    Node root = p.or();
    if (p.at < clause.size()) {
      throw new IllegalArgumentException(
          "the oracle cannot read the WHERE clause of `"
              + sql.strip()
              + "` at `"
              + clause.get(p.at).text
              + "`");
    }
    return new WhereClause(root, sql);
  }

  /** True when {@code record} passes: the clause is TRUE (not FALSE, not UNKNOWN). */
  boolean test(Map<String, Object> record) {
    return Boolean.TRUE.equals(root.eval(record));
  }

  @Override
  public String toString() {
    return "WHERE of " + text;
  }

  // ---- evaluation ----

  private interface Node {
    Object eval(Map<String, Object> row);
  }

  private static Boolean and(Boolean a, Boolean b) {
    if (Boolean.FALSE.equals(a) || Boolean.FALSE.equals(b)) {
      return false;
    }
    return a == null || b == null ? null : true;
  }

  private static Boolean or(Boolean a, Boolean b) {
    if (Boolean.TRUE.equals(a) || Boolean.TRUE.equals(b)) {
      return true;
    }
    return a == null || b == null ? null : false;
  }

  private static Boolean not(Boolean a) {
    return a == null ? null : !a;
  }

  private static Boolean truth(Object v) {
    if (v == null || v instanceof Boolean) {
      return (Boolean) v;
    }
    throw new IllegalArgumentException("not a condition: " + v);
  }

  /** -1, 0, 1, or null when either side is NULL. */
  private static Integer order(Object a, Object b) {
    if (a == null || b == null) {
      return null;
    }
    a = widen(a);
    b = widen(b);
    if (a instanceof Number && b instanceof Number) {
      if (a instanceof Double || b instanceof Double) {
        double x = ((Number) a).doubleValue();
        double y = ((Number) b).doubleValue();
        // NaN above every number and equal to itself, 0.0 equal to -0.0 (docs/reference/sql.md);
        // x < y ? -1 : x > y ? 1 : 0 made NaN equal to every number
        return x == y ? 0 : Integer.signum(Double.compare(x, y));
      }
      return Integer.signum(exact((Number) a).compareTo(exact((Number) b)));
    }
    if (a instanceof String && b instanceof String) {
      return Integer.signum(((String) a).compareTo((String) b));
    }
    if (a instanceof Boolean && b instanceof Boolean) {
      return Integer.signum(Boolean.compare((Boolean) a, (Boolean) b));
    }
    if (a instanceof Instant && b instanceof Instant) {
      return Integer.signum(((Instant) a).compareTo((Instant) b));
    }
    throw new IllegalArgumentException("cannot compare " + a + " with " + b);
  }

  private static Object widen(Object v) {
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof Float) {
      return ((Float) v).doubleValue();
    }
    if (v instanceof BigInteger) {
      return new BigDecimal((BigInteger) v);
    }
    return v;
  }

  private static BigDecimal exact(Number n) {
    return n instanceof BigDecimal ? (BigDecimal) n : new BigDecimal(n.longValue());
  }

  private static Object arithmetic(char op, Object l, Object r) {
    if (l == null || r == null) {
      return null;
    }
    l = widen(l);
    r = widen(r);
    if (l instanceof Double || r instanceof Double) {
      double a = ((Number) l).doubleValue();
      double b = ((Number) r).doubleValue();
      switch (op) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        default:
          return b == 0 ? null : a / b;
      }
    }
    BigDecimal a = exact((Number) l);
    BigDecimal b = exact((Number) r);
    boolean ints = l instanceof Long && r instanceof Long;
    BigDecimal result;
    switch (op) {
      case '+':
        result = a.add(b);
        break;
      case '-':
        result = a.subtract(b);
        break;
      case '*':
        result = a.multiply(b);
        break;
      default:
        if (b.signum() == 0) {
          return null;
        }
        result =
            ints
                ? new BigDecimal(a.toBigInteger().divide(b.toBigInteger()))
                : a.divide(b, MathContext.DECIMAL128);
    }
    if (ints) {
      // int64 stays int64 while it fits; past that, exact decimal
      return result.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0
              && result.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) >= 0
          ? (Object) result.longValueExact()
          : result;
    }
    return result;
  }

  // ---- parsing ----

  private static final class Token {
    final String text;
    final char kind; // 'i' identifier, 'q' quoted identifier, 's' string, 'n' number, 'o' operator

    Token(String text, char kind) {
      this.text = text;
      this.kind = kind;
    }

    boolean is(String op) {
      return kind == 'o' && text.equals(op);
    }

    boolean keyword(String k) {
      return kind == 'i' && text.equalsIgnoreCase(k);
    }
  }

  private static List<Token> tokenize(String sql) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (sql.startsWith("--", i)) {
        while (i < sql.length() && sql.charAt(i) != '\n') {
          i++;
        }
      } else if (sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? sql.length() : end + 2;
      } else if (c == '\'' || c == '"') {
        StringBuilder b = new StringBuilder();
        int j = i + 1;
        while (true) {
          if (j >= sql.length()) {
            throw new IllegalArgumentException("unterminated " + c + " in `" + sql + "`");
          }
          char d = sql.charAt(j);
          if (d == c && j + 1 < sql.length() && sql.charAt(j + 1) == c) {
            b.append(c);
            j += 2;
          } else if (d == c) {
            break;
          } else {
            b.append(d);
            j++;
          }
        }
        out.add(new Token(b.toString(), c == '\'' ? 's' : 'q'));
        i = j + 1;
      } else if (Character.isDigit(c)
          || (c == '.' && i + 1 < sql.length() && Character.isDigit(sql.charAt(i + 1)))) {
        int j = i;
        while (j < sql.length() && (Character.isDigit(sql.charAt(j)) || sql.charAt(j) == '.')) {
          j++;
        }
        if (j < sql.length() && (sql.charAt(j) == 'e' || sql.charAt(j) == 'E')) {
          j++;
          if (j < sql.length() && (sql.charAt(j) == '+' || sql.charAt(j) == '-')) {
            j++;
          }
          while (j < sql.length() && Character.isDigit(sql.charAt(j))) {
            j++;
          }
        }
        out.add(new Token(sql.substring(i, j), 'n'));
        i = j;
      } else if (Character.isLetter(c) || c == '_') {
        int j = i;
        while (j < sql.length()
            && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_')) {
          j++;
        }
        out.add(new Token(sql.substring(i, j), 'i'));
        i = j;
      } else {
        String two = i + 1 < sql.length() ? sql.substring(i, i + 2) : "";
        if (two.equals("<>") || two.equals("!=") || two.equals("<=") || two.equals(">=")) {
          out.add(new Token(two.equals("!=") ? "<>" : two, 'o'));
          i += 2;
        } else {
          out.add(new Token(String.valueOf(c), 'o'));
          i++;
        }
      }
    }
    return out;
  }

  private static final class Parser {
    final List<Token> tokens;
    final String sql;
    int at;

    Parser(List<Token> tokens, String sql) {
      this.tokens = tokens;
      this.sql = sql;
    }

    Token peek() {
      return at < tokens.size() ? tokens.get(at) : new Token("", 'e');
    }

    boolean eat(String keywordOrOp) {
      Token t = peek();
      if (t.is(keywordOrOp) || t.keyword(keywordOrOp)) {
        at++;
        return true;
      }
      return false;
    }

    void expect(String keywordOrOp) {
      if (!eat(keywordOrOp)) {
        throw fail("expected " + keywordOrOp);
      }
    }

    IllegalArgumentException fail(String what) {
      return new IllegalArgumentException(
          "the oracle cannot read the WHERE clause of `"
              + sql.strip()
              + "`: "
              + what
              + " at `"
              + peek().text
              + "`");
    }

    Node or() {
      Node left = and();
      while (eat("OR")) {
        Node l = left;
        Node r = and();
        left = row -> WhereClause.or(truth(l.eval(row)), truth(r.eval(row)));
      }
      return left;
    }

    Node and() {
      Node left = not();
      while (eat("AND")) {
        Node l = left;
        Node r = not();
        left = row -> WhereClause.and(truth(l.eval(row)), truth(r.eval(row)));
      }
      return left;
    }

    Node not() {
      if (eat("NOT")) {
        Node inner = not();
        return row -> WhereClause.not(truth(inner.eval(row)));
      }
      return is();
    }

    /**
     * Comparisons and IS tests, left to right, as Calcite reads them: {@code i > 1 = b} is {@code
     * (i > 1) = b}, {@code b IS TRUE = FALSE} is {@code (b IS TRUE) = FALSE}, {@code a = b IS NULL}
     * is {@code (a = b) IS NULL}; a comparison's right operand may be a NOT ({@code a = NOT b = c}
     * is {@code a = NOT (b = c)}).
     */
    Node is() {
      Node n = predicate();
      while (true) {
        String op = comparison(peek());
        if (op != null) {
          at++;
          Node right = peek().keyword("NOT") && !notInOrBetween() ? not() : predicate();
          n = compare(op, n, right);
          continue;
        }
        if (!eat("IS")) {
          break;
        }
        boolean negated = eat("NOT");
        Node inner = n;
        Node test;
        if (eat("NULL")) {
          test = row -> inner.eval(row) == null;
        } else if (eat("TRUE")) {
          test = row -> Boolean.TRUE.equals(truth(inner.eval(row)));
        } else if (eat("FALSE")) {
          test = row -> Boolean.FALSE.equals(truth(inner.eval(row)));
        } else if (eat("UNKNOWN")) {
          test = row -> truth(inner.eval(row)) == null;
        } else {
          throw fail("expected NULL, TRUE, FALSE or UNKNOWN after IS");
        }
        n = negated ? row -> !(Boolean) test.eval(row) : test;
      }
      return n;
    }

    private String comparison(Token t) {
      for (String op : new String[] {"=", "<>", "<", "<=", ">", ">="}) {
        if (t.is(op)) {
          return op;
        }
      }
      return null;
    }

    private boolean notInOrBetween() {
      return peek().keyword("NOT")
          && at + 1 < tokens.size()
          && (tokens.get(at + 1).keyword("IN") || tokens.get(at + 1).keyword("BETWEEN"));
    }

    private Node compare(String op, Node left, Node right) {
      return row -> {
        Integer c = order(left.eval(row), right.eval(row));
        if (c == null) {
          return null;
        }
        switch (op) {
          case "=":
            return c == 0;
          case "<>":
            return c != 0;
          case "<":
            return c < 0;
          case "<=":
            return c <= 0;
          case ">":
            return c > 0;
          default:
            return c >= 0;
        }
      };
    }

    /**
     * A term and its [NOT] IN and [NOT] BETWEEN tests, left to right ({@code a IN (1) IN (TRUE)}).
     */
    Node predicate() {
      Node left = additive();
      while (true) {
        Node next = membership(left);
        if (next == left) {
          return left;
        }
        left = next;
      }
    }

    /** {@code left} with the [NOT] IN or [NOT] BETWEEN test that follows it; itself when none. */
    private Node membership(Node left) {
      boolean negated = false;
      if (notInOrBetween()) {
        at++;
        negated = true;
      }
      if (eat("IN")) {
        expect("(");
        List<Node> items = new ArrayList<>();
        do {
          items.add(additive());
        } while (eat(","));
        expect(")");
        Node in =
            row -> {
              Object v = left.eval(row);
              Boolean found = false;
              for (Node item : items) {
                Integer c = order(v, item.eval(row));
                found = WhereClause.or(found, c == null ? null : c == 0);
              }
              return found;
            };
        return negated ? row -> WhereClause.not((Boolean) in.eval(row)) : in;
      }
      if (eat("BETWEEN")) {
        boolean symmetric = eat("SYMMETRIC");
        if (!symmetric) {
          eat("ASYMMETRIC");
        }
        Node low = additive();
        expect("AND");
        Node high = additive();
        Node between =
            row -> {
              Object v = left.eval(row);
              Object a = low.eval(row);
              Object b = high.eval(row);
              Boolean inside = within(v, a, b);
              return symmetric ? WhereClause.or(inside, within(v, b, a)) : inside;
            };
        return negated ? row -> WhereClause.not((Boolean) between.eval(row)) : between;
      }
      if (negated) {
        throw fail("expected IN or BETWEEN after NOT");
      }
      return left;
    }

    private Boolean within(Object v, Object low, Object high) {
      Integer above = order(v, low);
      Integer below = order(v, high);
      return WhereClause.and(above == null ? null : above >= 0, below == null ? null : below <= 0);
    }

    Node additive() {
      Node left = multiplicative();
      while (peek().is("+") || peek().is("-")) {
        char op = tokens.get(at++).text.charAt(0);
        Node l = left;
        Node r = multiplicative();
        left = row -> arithmetic(op, l.eval(row), r.eval(row));
      }
      return left;
    }

    Node multiplicative() {
      Node left = unary();
      while (peek().is("*") || peek().is("/")) {
        char op = tokens.get(at++).text.charAt(0);
        Node l = left;
        Node r = unary();
        left = row -> arithmetic(op, l.eval(row), r.eval(row));
      }
      return left;
    }

    Node unary() {
      if (eat("-")) {
        Node inner = unary();
        return row -> negate(inner.eval(row));
      }
      if (eat("+")) {
        return unary();
      }
      return primary();
    }

    private Object negate(Object v) {
      v = widen(v);
      if (v == null) {
        return null;
      }
      if (v instanceof Double) {
        return -(Double) v;
      }
      if (v instanceof Long) {
        return (Long) v == Long.MIN_VALUE
            ? new BigDecimal((Long) v).negate()
            : (Object) (-(Long) v);
      }
      return ((BigDecimal) v).negate();
    }

    Node primary() {
      Token t = peek();
      if (eat("(")) {
        Node inner = or();
        expect(")");
        return inner;
      }
      if (t.kind == 'n') {
        at++;
        Object v = number(t.text);
        return row -> v;
      }
      if (t.kind == 's') {
        at++;
        return row -> t.text;
      }
      if (t.kind == 'q') {
        at++;
        return row -> row.get(t.text);
      }
      if (t.kind == 'i') {
        if (eat("TRUE")) {
          return row -> true;
        }
        if (eat("FALSE")) {
          return row -> false;
        }
        if (eat("NULL") || eat("UNKNOWN")) {
          return row -> null;
        }
        if (t.keyword("TIMESTAMP") && at + 1 < tokens.size() && tokens.get(at + 1).kind == 's') {
          at += 2;
          Instant v = ModelSql.timestampLiteral(tokens.get(at - 1).text).toInstant(ZoneOffset.UTC);
          return row -> v;
        }
        at++;
        return row -> row.get(t.text);
      }
      throw fail("expected a value");
    }

    private Object number(String text) {
      if (text.contains("e") || text.contains("E")) {
        return Double.parseDouble(text);
      }
      BigDecimal d = new BigDecimal(text);
      if (!text.contains(".")) {
        try {
          return d.longValueExact();
        } catch (ArithmeticException tooBig) {
          return d;
        }
      }
      return d;
    }
  }
}
