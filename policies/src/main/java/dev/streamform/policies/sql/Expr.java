package dev.streamform.policies.sql;

import dev.streamform.policies.schema.ColumnType;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The expression tree of a WHERE clause: evaluation with SQL three-valued logic ({@code null} is
 * UNKNOWN), static type checking against a source schema, and rendering back to SQL.
 *
 * <p>Runtime values are {@link Long}, {@link String}, {@link Boolean}, {@link Double}, {@link
 * BigDecimal}, {@link Instant} or {@code null}; other {@link Number}s are widened (Integer to Long,
 * Float to Double, BigInteger to BigDecimal). Numbers compare by value across kinds: with a double
 * involved the comparison is in double, otherwise exact (so {@code 10 = 10.00}). Arithmetic on two
 * int64 values stays int64 (division truncates toward zero, as in SQL) and widens to decimal on
 * overflow; a decimal operand makes it exact decimal; a double operand makes it double. Division by
 * zero yields NULL, so the row is filtered out rather than failing the pipeline.
 */
final class Expr {
  private Expr() {}

  /** Static type categories used to check a WHERE clause. */
  enum Type {
    NUMERIC,
    STRING,
    BOOL,
    TIMESTAMP,
    /** The NULL literal: compatible with everything. */
    NULL,
    /** Already reported (e.g. an unknown column): compatible with everything, no cascade. */
    ERROR;

    static Type of(ColumnType t) {
      switch (t.kind()) {
        case INT64:
        case DOUBLE:
        case DECIMAL:
          return NUMERIC;
        case STRING:
          return STRING;
        case BOOL:
          return BOOL;
        case TIMESTAMP:
          return TIMESTAMP;
        default:
          throw new AssertionError(t);
      }
    }

    boolean lenient() {
      return this == NULL || this == ERROR;
    }

    String describe() {
      switch (this) {
        case NUMERIC:
          return "a number";
        case STRING:
          return "a string";
        case BOOL:
          return "a boolean";
        case TIMESTAMP:
          return "a timestamp";
        default:
          return "NULL";
      }
    }
  }

  /** Context for type checking: the schema, and where to report problems. */
  static final class Check {
    final Map<String, ColumnType> schema;
    final List<String> problems;

    Check(Map<String, ColumnType> schema, List<String> problems) {
      this.schema = schema;
      this.problems = problems;
    }

    void problem(Node at, String message) {
      problems.add("line " + at.line + ": " + message);
    }

    /**
     * A description of an operand for messages, e.g. "`status` (string)" or "'paid' (a string)".
     */
    String describe(Node n, Type t) {
      if (n instanceof Column) {
        ColumnType ct = schema.get(((Column) n).name);
        return "`" + ((Column) n).name + "` (" + (ct == null ? t.describe() : ct.toString()) + ")";
      }
      return n.toSql() + " (" + t.describe() + ")";
    }
  }

  // Precedences for rendering with the fewest parentheses.
  static final int P_OR = 1;
  static final int P_AND = 2;
  static final int P_NOT = 3;
  static final int P_CMP = 4;
  static final int P_ADD = 5;
  static final int P_MUL = 6;
  static final int P_NEG = 7;
  static final int P_ATOM = 8;

  /** A node of the tree. */
  abstract static class Node implements Serializable {
    private static final long serialVersionUID = 1L;
    final int line;
    final int column;

    Node(int line, int column) {
      this.line = line;
      this.column = column;
    }

    /** The value, {@code null} for SQL NULL / UNKNOWN. */
    abstract Object eval(Function<String, Object> row);

    /** The static type; reports problems to {@code check}. */
    abstract Type type(Check check);

    abstract String toSql();

    abstract int precedence();

    String sqlAt(int minPrecedence) {
      String s = toSql();
      return precedence() < minPrecedence ? "(" + s + ")" : s;
    }

    /** Calls {@code visitor} on this node and every node below it. */
    void forEach(java.util.function.Consumer<Node> visitor) {
      visitor.accept(this);
    }
  }

  /** A node of one operand. */
  abstract static class Unary extends Node {
    private static final long serialVersionUID = 1L;
    final Node operand;

    Unary(Node operand, int line, int column) {
      super(line, column);
      this.operand = operand;
    }

    @Override
    void forEach(java.util.function.Consumer<Node> visitor) {
      visitor.accept(this);
      operand.forEach(visitor);
    }
  }

  /** A node of two operands that is NULL when either is: arithmetic and comparisons. */
  abstract static class Binary extends Node {
    private static final long serialVersionUID = 1L;
    final Node left;
    final Node right;

    Binary(Node left, Node right, int line, int column) {
      super(line, column);
      this.left = left;
      this.right = right;
    }

    @Override
    final Object eval(Function<String, Object> row) {
      Object l = left.eval(row);
      Object r = right.eval(row);
      return l == null || r == null ? null : apply(l, r);
    }

    /** The value of two operands that are not NULL. */
    abstract Object apply(Object l, Object r);

    @Override
    void forEach(java.util.function.Consumer<Node> visitor) {
      visitor.accept(this);
      left.forEach(visitor);
      right.forEach(visitor);
    }
  }

  // ---------------------------------------------------------------- leaves

  static final class Column extends Node {
    private static final long serialVersionUID = 1L;
    final String name;

    Column(String name, int line, int column) {
      super(line, column);
      this.name = name;
    }

    @Override
    Object eval(Function<String, Object> row) {
      return normalize(row.apply(name));
    }

    @Override
    Type type(Check check) {
      ColumnType t = check.schema.get(name);
      if (t == null) {
        check.problem(
            this,
            "WHERE uses unknown column `"
                + name
                + "`; "
                + Names.suggestion(name, check.schema.keySet()));
        return Type.ERROR;
      }
      return Type.of(t);
    }

    @Override
    String toSql() {
      return Names.quoteIfNeeded(name);
    }

    @Override
    int precedence() {
      return P_ATOM;
    }
  }

  static final class Literal extends Node {
    private static final long serialVersionUID = 1L;
    private static final DateTimeFormatter TS =
        DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss[.SSSSSSSSS]").withZone(ZoneOffset.UTC);
    final Object value;

    Literal(Object value, int line, int column) {
      super(line, column);
      this.value = value;
    }

    @Override
    Object eval(Function<String, Object> row) {
      return value;
    }

    @Override
    Type type(Check check) {
      return typeOfValue(value);
    }

    @Override
    String toSql() {
      if (value == null) {
        return "NULL";
      }
      if (value instanceof String) {
        return "'" + ((String) value).replace("'", "''") + "'";
      }
      if (value instanceof Boolean) {
        return ((Boolean) value) ? "TRUE" : "FALSE";
      }
      if (value instanceof Instant) {
        String s = TS.format((Instant) value);
        // Trim trailing zeros of the fraction.
        if (s.indexOf('.') >= 0) {
          while (s.endsWith("0")) {
            s = s.substring(0, s.length() - 1);
          }
          if (s.endsWith(".")) {
            s = s.substring(0, s.length() - 1);
          }
        }
        return "TIMESTAMP '" + s + "'";
      }
      if (value instanceof BigDecimal) {
        return ((BigDecimal) value).toPlainString();
      }
      if (value instanceof Double) {
        String s = Double.toString((Double) value);
        return s.contains("E") ? s : s + "E0";
      }
      return value.toString();
    }

    @Override
    int precedence() {
      Object v = value;
      boolean negative =
          (v instanceof Long && (Long) v < 0)
              || (v instanceof BigDecimal && ((BigDecimal) v).signum() < 0)
              || (v instanceof Double && (Double) v < 0);
      return negative ? P_NEG : P_ATOM;
    }
  }

  /** True for the NULL literal itself (not an expression that is NULL). */
  static boolean isNullLiteral(Node n) {
    return n instanceof Literal && ((Literal) n).value == null;
  }

  // ---------------------------------------------------------------- arithmetic

  enum ArithOp {
    PLUS("+", P_ADD),
    MINUS("-", P_ADD),
    TIMES("*", P_MUL),
    DIVIDE("/", P_MUL);

    final String sql;
    final int precedence;

    ArithOp(String sql, int precedence) {
      this.sql = sql;
      this.precedence = precedence;
    }
  }

  static final class Arith extends Binary {
    private static final long serialVersionUID = 1L;
    final ArithOp op;

    Arith(ArithOp op, Node left, Node right, int line, int column) {
      super(left, right, line, column);
      this.op = op;
    }

    @Override
    Object apply(Object l, Object r) {
      return arithmetic(op, number(l, this), number(r, this));
    }

    @Override
    Type type(Check check) {
      Type l = left.type(check);
      Type r = right.type(check);
      if (!l.lenient() && l != Type.NUMERIC || !r.lenient() && r != Type.NUMERIC) {
        Node bad = !l.lenient() && l != Type.NUMERIC ? left : right;
        Type badType = bad == left ? l : r;
        check.problem(
            this,
            "`"
                + toSql()
                + "`: arithmetic "
                + op.sql
                + " needs numbers, but "
                + check.describe(bad, badType)
                + " is not a number; use int64, double or decimal columns");
        return Type.ERROR;
      }
      return l == Type.NULL || r == Type.NULL ? Type.NULL : Type.NUMERIC;
    }

    @Override
    String toSql() {
      // Left-associative: the right operand needs parentheses at equal precedence.
      return left.sqlAt(op.precedence) + " " + op.sql + " " + right.sqlAt(op.precedence + 1);
    }

    @Override
    int precedence() {
      return op.precedence;
    }
  }

  static final class Negate extends Unary {
    private static final long serialVersionUID = 1L;

    Negate(Node operand, int line, int column) {
      super(operand, line, column);
    }

    @Override
    Object eval(Function<String, Object> row) {
      Object v = operand.eval(row);
      if (v == null) {
        return null;
      }
      return arithmetic(ArithOp.MINUS, 0L, number(v, this));
    }

    @Override
    Type type(Check check) {
      Type t = operand.type(check);
      if (!t.lenient() && t != Type.NUMERIC) {
        check.problem(
            this,
            "`"
                + toSql()
                + "`: unary minus needs a number, but "
                + check.describe(operand, t)
                + " is not a number");
        return Type.ERROR;
      }
      return t;
    }

    @Override
    String toSql() {
      return "-" + operand.sqlAt(P_NEG + 1);
    }

    @Override
    int precedence() {
      return P_NEG;
    }
  }

  // ---------------------------------------------------------------- comparisons

  enum CmpOp {
    EQ("="),
    NE("<>"),
    LT("<"),
    LE("<="),
    GT(">"),
    GE(">=");

    final String sql;

    CmpOp(String sql) {
      this.sql = sql;
    }

    boolean holds(int c) {
      switch (this) {
        case EQ:
          return c == 0;
        case NE:
          return c != 0;
        case LT:
          return c < 0;
        case LE:
          return c <= 0;
        case GT:
          return c > 0;
        default:
          return c >= 0;
      }
    }
  }

  static final class Compare extends Binary {
    private static final long serialVersionUID = 1L;
    final CmpOp op;

    Compare(CmpOp op, Node left, Node right, int line, int column) {
      super(left, right, line, column);
      this.op = op;
    }

    @Override
    Object apply(Object l, Object r) {
      return op.holds(compare(l, r, this));
    }

    @Override
    Type type(Check check) {
      Type l = left.type(check);
      Type r = right.type(check);
      if (l == Type.NULL || r == Type.NULL) {
        // The side that is NULL: an expression when one is (`i + NULL`), else the NULL literal.
        Node nullSide = l == Type.NULL && !(r == Type.NULL && isNullLiteral(left)) ? left : right;
        Node other = nullSide == left ? right : left;
        String never = "`" + toSql() + "` is never true: ";
        if (!isNullLiteral(nullSide)) {
          check.problem(
              this,
              never
                  + "`"
                  + nullSide.toSql()
                  + "` is always NULL (arithmetic with NULL is NULL), and a comparison with NULL is"
                  + " UNKNOWN; leave NULL out of the arithmetic, or test a column with IS NULL");
        } else if (l == Type.NULL && r == Type.NULL) {
          check.problem(
              this,
              never + "a comparison with NULL is UNKNOWN; test a column with IS NULL instead");
        } else {
          check.problem(
              this,
              never
                  + "a comparison with NULL is UNKNOWN; write `"
                  + other.toSql()
                  + (op == CmpOp.NE ? " IS NOT NULL`" : " IS NULL`")
                  + " instead");
        }
        return Type.BOOL;
      }
      compatible(check, this, "`" + toSql() + "`", left, l, right, r);
      return Type.BOOL;
    }

    @Override
    String toSql() {
      return left.sqlAt(P_ADD) + " " + op.sql + " " + right.sqlAt(P_ADD);
    }

    @Override
    int precedence() {
      return P_CMP;
    }
  }

  /** Reports a problem when two operands cannot be compared; true when they can. */
  static boolean compatible(Check check, Node at, String what, Node a, Type ta, Node b, Type tb) {
    if (ta.lenient() || tb.lenient() || ta == tb) {
      return true;
    }
    String hint;
    if (ta == Type.TIMESTAMP && tb == Type.STRING || ta == Type.STRING && tb == Type.TIMESTAMP) {
      hint = "write the time as a timestamp literal, e.g. TIMESTAMP '2026-08-30 10:00:00'";
    } else if (ta == Type.NUMERIC && tb == Type.STRING || ta == Type.STRING && tb == Type.NUMERIC) {
      hint = "compare numbers with numbers (no quotes) and strings with quoted strings";
    } else {
      hint = "compare values of the same kind";
    }
    check.problem(
        at,
        what
            + " compares "
            + check.describe(a, ta)
            + " with "
            + check.describe(b, tb)
            + ", which cannot be compared; "
            + hint);
    return false;
  }

  // ---------------------------------------------------------------- logic

  /**
   * {@code a AND b AND ...} or {@code a OR b OR ...}, in SQL's three-valued logic: the first
   * operand equal to the short-circuit value ({@code FALSE} for AND, {@code TRUE} for OR) decides;
   * else any NULL operand makes the result NULL; else the result is the other value.
   */
  static final class Junction extends Node {
    private static final long serialVersionUID = 1L;
    final boolean and;
    final List<Node> operands;

    Junction(boolean and, List<Node> operands, int line, int column) {
      super(line, column);
      this.and = and;
      this.operands = List.copyOf(operands);
    }

    static Junction and(List<Node> operands, int line, int column) {
      return new Junction(true, operands, line, column);
    }

    static Junction or(List<Node> operands, int line, int column) {
      return new Junction(false, operands, line, column);
    }

    private String word() {
      return and ? "AND" : "OR";
    }

    @Override
    Object eval(Function<String, Object> row) {
      boolean decisive = !and; // FALSE decides an AND, TRUE an OR
      boolean unknown = false;
      for (Node n : operands) {
        Boolean b = bool(n.eval(row), n);
        if (b == null) {
          unknown = true;
        } else if (b == decisive) {
          return decisive;
        }
      }
      return unknown ? null : Boolean.valueOf(!decisive);
    }

    @Override
    Type type(Check check) {
      for (Node n : operands) {
        condition(check, n, word());
      }
      return Type.BOOL;
    }

    @Override
    String toSql() {
      StringBuilder sb = new StringBuilder();
      for (Node n : operands) {
        if (sb.length() > 0) {
          sb.append(' ').append(word()).append(' ');
        }
        sb.append(n.sqlAt(precedence() + 1));
      }
      return sb.toString();
    }

    @Override
    int precedence() {
      return and ? P_AND : P_OR;
    }

    @Override
    void forEach(java.util.function.Consumer<Node> visitor) {
      visitor.accept(this);
      operands.forEach(n -> n.forEach(visitor));
    }
  }

  static final class Not extends Unary {
    private static final long serialVersionUID = 1L;

    Not(Node operand, int line, int column) {
      super(operand, line, column);
    }

    @Override
    Object eval(Function<String, Object> row) {
      Boolean b = bool(operand.eval(row), operand);
      return b == null ? null : !b;
    }

    @Override
    Type type(Check check) {
      condition(check, operand, "NOT");
      return Type.BOOL;
    }

    @Override
    String toSql() {
      return "NOT " + operand.sqlAt(P_NOT);
    }

    @Override
    int precedence() {
      return P_NOT;
    }
  }

  /** Checks that {@code n} is a condition (boolean); reports a problem otherwise. */
  static void condition(Check check, Node n, String where) {
    Type t = n.type(check);
    if (!t.lenient() && t != Type.BOOL) {
      check.problem(
          n,
          where
              + " needs a condition, but "
              + check.describe(n, t)
              + " is not a boolean; write a comparison such as `"
              + n.sqlAt(P_ADD)
              + (t == Type.NUMERIC ? " > 0`" : t == Type.STRING ? " = 'value'`" : " IS NOT NULL`"));
    }
  }

  /** {@code x IS [NOT] NULL}. */
  static final class IsNull extends Unary {
    private static final long serialVersionUID = 1L;
    final boolean negated;

    IsNull(Node operand, boolean negated, int line, int column) {
      super(operand, line, column);
      this.negated = negated;
    }

    @Override
    Object eval(Function<String, Object> row) {
      return (operand.eval(row) == null) != negated;
    }

    @Override
    Type type(Check check) {
      operand.type(check);
      return Type.BOOL;
    }

    @Override
    String toSql() {
      return operand.sqlAt(P_ADD) + (negated ? " IS NOT NULL" : " IS NULL");
    }

    @Override
    int precedence() {
      return P_CMP;
    }
  }

  /** {@code x IS [NOT] TRUE|FALSE}: never UNKNOWN. */
  static final class IsBool extends Unary {
    private static final long serialVersionUID = 1L;
    final boolean expected;
    final boolean negated;

    IsBool(Node operand, boolean expected, boolean negated, int line, int column) {
      super(operand, line, column);
      this.expected = expected;
      this.negated = negated;
    }

    @Override
    Object eval(Function<String, Object> row) {
      Boolean b = bool(operand.eval(row), operand);
      boolean is = b != null && b == expected;
      return is != negated;
    }

    @Override
    Type type(Check check) {
      condition(check, operand, "IS " + (negated ? "NOT " : "") + (expected ? "TRUE" : "FALSE"));
      return Type.BOOL;
    }

    @Override
    String toSql() {
      return operand.sqlAt(P_ADD)
          + " IS "
          + (negated ? "NOT " : "")
          + (expected ? "TRUE" : "FALSE");
    }

    @Override
    int precedence() {
      return P_CMP;
    }
  }

  /** {@code x [NOT] IN (literal, ...)}. */
  static final class In extends Node {
    private static final long serialVersionUID = 1L;
    final Node operand;
    final List<Node> values;
    final boolean negated;

    In(Node operand, List<Node> values, boolean negated, int line, int column) {
      super(line, column);
      this.operand = operand;
      this.values = List.copyOf(values);
      this.negated = negated;
    }

    @Override
    Object eval(Function<String, Object> row) {
      Object x = operand.eval(row);
      if (x == null) {
        return null;
      }
      boolean sawNull = false;
      for (Node n : values) {
        Object v = n.eval(row);
        if (v == null) {
          sawNull = true;
        } else if (compare(x, v, this) == 0) {
          return !negated;
        }
      }
      return sawNull ? null : negated;
    }

    @Override
    Type type(Check check) {
      Type t = operand.type(check);
      for (Node n : values) {
        Type vt = n.type(check);
        if (!compatible(check, this, (negated ? "NOT IN" : "IN") + " list", operand, t, n, vt)) {
          break;
        }
      }
      return Type.BOOL;
    }

    @Override
    String toSql() {
      StringBuilder sb = new StringBuilder(operand.sqlAt(P_ADD));
      sb.append(negated ? " NOT IN (" : " IN (");
      for (int i = 0; i < values.size(); i++) {
        sb.append(i == 0 ? "" : ", ").append(values.get(i).toSql());
      }
      return sb.append(')').toString();
    }

    @Override
    int precedence() {
      return P_CMP;
    }

    @Override
    void forEach(java.util.function.Consumer<Node> visitor) {
      visitor.accept(this);
      operand.forEach(visitor);
      values.forEach(n -> n.forEach(visitor));
    }
  }

  /** {@code x [NOT] BETWEEN [SYMMETRIC] lo AND hi}. */
  static final class Between extends Node {
    private static final long serialVersionUID = 1L;
    final Node operand;
    final Node low;
    final Node high;
    final boolean negated;
    final boolean symmetric;

    Between(
        Node operand,
        Node low,
        Node high,
        boolean negated,
        boolean symmetric,
        int line,
        int column) {
      super(line, column);
      this.operand = operand;
      this.low = low;
      this.high = high;
      this.negated = negated;
      this.symmetric = symmetric;
    }

    @Override
    Object eval(Function<String, Object> row) {
      Object x = operand.eval(row);
      Object lo = low.eval(row);
      Object hi = high.eval(row);
      Boolean result = between(x, lo, hi);
      if (symmetric) {
        result = or(result, between(x, hi, lo));
      }
      return result == null ? null : result != negated;
    }

    private Boolean between(Object x, Object lo, Object hi) {
      Boolean ge = x == null || lo == null ? null : compare(x, lo, this) >= 0;
      Boolean le = x == null || hi == null ? null : compare(x, hi, this) <= 0;
      if (Boolean.FALSE.equals(ge) || Boolean.FALSE.equals(le)) {
        return false;
      }
      return ge == null || le == null ? null : Boolean.TRUE;
    }

    private static Boolean or(Boolean a, Boolean b) {
      if (Boolean.TRUE.equals(a) || Boolean.TRUE.equals(b)) {
        return true;
      }
      return a == null || b == null ? null : Boolean.FALSE;
    }

    @Override
    Type type(Check check) {
      Type t = operand.type(check);
      Type lo = low.type(check);
      Type hi = high.type(check);
      if (compatible(check, this, "BETWEEN", operand, t, low, lo)) {
        compatible(check, this, "BETWEEN", operand, t, high, hi);
      }
      return Type.BOOL;
    }

    @Override
    String toSql() {
      return operand.sqlAt(P_ADD)
          + (negated ? " NOT BETWEEN " : " BETWEEN ")
          + (symmetric ? "SYMMETRIC " : "")
          + low.sqlAt(P_ADD)
          + " AND "
          + high.sqlAt(P_ADD);
    }

    @Override
    int precedence() {
      return P_CMP;
    }

    @Override
    void forEach(java.util.function.Consumer<Node> visitor) {
      visitor.accept(this);
      operand.forEach(visitor);
      low.forEach(visitor);
      high.forEach(visitor);
    }
  }

  // ---------------------------------------------------------------- values

  static Type typeOfValue(Object v) {
    if (v == null) {
      return Type.NULL;
    }
    if (v instanceof Number) {
      return Type.NUMERIC;
    }
    if (v instanceof String) {
      return Type.STRING;
    }
    if (v instanceof Boolean) {
      return Type.BOOL;
    }
    if (v instanceof Instant) {
      return Type.TIMESTAMP;
    }
    throw new IllegalArgumentException("unsupported value " + v.getClass().getName());
  }

  /** Widens Integer/Short/Byte to Long, Float to Double, BigInteger to BigDecimal. */
  static Object normalize(Object v) {
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

  private static Number number(Object v, Node at) {
    if (v instanceof Long || v instanceof Double || v instanceof BigDecimal) {
      return (Number) v;
    }
    throw new IllegalArgumentException(
        "`" + at.toSql() + "` needs a number but got " + describeValue(v));
  }

  private static Boolean bool(Object v, Node at) {
    if (v == null || v instanceof Boolean) {
      return (Boolean) v;
    }
    throw new IllegalArgumentException(
        "`" + at.toSql() + "` must be a condition but gave " + describeValue(v));
  }

  private static String describeValue(Object v) {
    return v.getClass().getSimpleName() + " " + v;
  }

  private static BigDecimal decimal(Number n) {
    return n instanceof BigDecimal ? (BigDecimal) n : BigDecimal.valueOf(n.longValue());
  }

  static Object arithmetic(ArithOp op, Number l, Number r) {
    if (l instanceof Double || r instanceof Double) {
      double a = l.doubleValue();
      double b = r.doubleValue();
      switch (op) {
        case PLUS:
          return a + b;
        case MINUS:
          return a - b;
        case TIMES:
          return a * b;
        default:
          return b == 0 ? null : a / b;
      }
    }
    if (l instanceof Long && r instanceof Long) {
      long a = l.longValue();
      long b = r.longValue();
      try {
        switch (op) {
          case PLUS:
            return Math.addExact(a, b);
          case MINUS:
            return Math.subtractExact(a, b);
          case TIMES:
            return Math.multiplyExact(a, b);
          default:
            if (b == 0) {
              return null;
            }
            if (a == Long.MIN_VALUE && b == -1) {
              throw new ArithmeticException("overflow");
            }
            return a / b;
        }
      } catch (ArithmeticException overflow) {
        // fall through to exact decimal arithmetic
      }
    }
    BigDecimal a = decimal(l);
    BigDecimal b = decimal(r);
    switch (op) {
      case PLUS:
        return a.add(b);
      case MINUS:
        return a.subtract(b);
      case TIMES:
        return a.multiply(b);
      default:
        if (b.signum() == 0) {
          return null;
        }
        if (l instanceof Long && r instanceof Long) {
          return new BigDecimal(a.toBigInteger().divide(b.toBigInteger()));
        }
        return a.divide(b, MathContext.DECIMAL128);
    }
  }

  /** Compares two non-null values of the same kind; numbers by value across kinds. */
  static int compare(Object l, Object r, Node at) {
    if (l instanceof Number && r instanceof Number) {
      Number a = (Number) l;
      Number b = (Number) r;
      if (a instanceof Double || b instanceof Double) {
        double x = a.doubleValue();
        double y = b.doubleValue();
        return x == y ? 0 : Double.compare(x, y);
      }
      if (a instanceof Long && b instanceof Long) {
        return Long.compare(a.longValue(), b.longValue());
      }
      return decimal(a).compareTo(decimal(b));
    }
    if (l instanceof String && r instanceof String) {
      return ((String) l).compareTo((String) r);
    }
    if (l instanceof Boolean && r instanceof Boolean) {
      return Boolean.compare((Boolean) l, (Boolean) r);
    }
    if (l instanceof Instant && r instanceof Instant) {
      return ((Instant) l).compareTo((Instant) r);
    }
    throw new IllegalArgumentException(
        "`" + at.toSql() + "` cannot compare " + describeValue(l) + " with " + describeValue(r));
  }

  /** The {@link RowPredicate} over a tree. */
  static final class Predicate implements RowPredicate {
    private static final long serialVersionUID = 1L;
    final Node root;

    Predicate(Node root) {
      this.root = root;
    }

    @Override
    public boolean test(Function<String, Object> column) {
      return Boolean.TRUE.equals(bool(root.eval(column), root));
    }

    @Override
    public String toSql() {
      return root.toSql();
    }

    @Override
    public String toString() {
      return toSql();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Predicate && ((Predicate) o).toSql().equals(toSql());
    }

    @Override
    public int hashCode() {
      return toSql().hashCode();
    }
  }
}
