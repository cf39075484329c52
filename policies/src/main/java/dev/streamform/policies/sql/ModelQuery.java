package dev.streamform.policies.sql;

import com.google.auto.value.AutoValue;
import dev.streamform.policies.schema.ColumnType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A model's query, parsed by {@link ModelSql#parse(String)}: {@code SELECT <key cols>, <aggregates>
 * AS <name> FROM source('<src>') [WHERE <predicate>] GROUP BY <key cols>}. Immutable.
 *
 * <p>Output types ({@link #outputColumns(Map)}):
 *
 * <ul>
 *   <li>key columns keep their source type;
 *   <li>{@code SUM(int64)} is int64, {@code SUM(double)} is double, {@code SUM(decimal(p,s))} is
 *       {@code decimal(38,s)} (so SUM of decimal(12,2) is decimal(38,2));
 *   <li>{@code COUNT(*)} and {@code COUNT(col)} are int64;
 *   <li>{@code MIN} and {@code MAX} keep the type of their argument;
 *   <li>{@code AVG(int64)} and {@code AVG(double)} are double, {@code AVG(decimal(p,s))} is {@code
 *       decimal(38, max(s,6))}.
 * </ul>
 */
@AutoValue
public abstract class ModelQuery {

  /** The source named in {@code FROM source('...')}. */
  public abstract String source();

  /** The GROUP BY columns, in order. */
  public abstract List<String> keyColumns();

  /** The select items in order: key columns and aggregates. */
  public abstract List<OutputColumn> outputs();

  /** The WHERE clause, if any. */
  public abstract Optional<RowPredicate> where();

  /** 1-based line of each GROUP BY column, parallel to {@link #keyColumns()}. */
  abstract List<Integer> keyColumnLines();

  static ModelQuery create(
      String source,
      List<String> keyColumns,
      List<Integer> keyColumnLines,
      List<OutputColumn> outputs,
      Optional<RowPredicate> where) {
    return new AutoValue_ModelQuery(
        source, List.copyOf(keyColumns), List.copyOf(outputs), where, List.copyOf(keyColumnLines));
  }

  /**
   * Semantic errors against the source schema, each a user-facing sentence that starts with {@code
   * line N:} and says how to fix it; empty when the query is fine. Checked: unknown columns (with
   * close names suggested), a non-key column selected without an aggregate, a GROUP BY column that
   * is not selected, is selected twice or is listed twice, SUM/AVG over a non-numeric column, an
   * aggregate without an alias, duplicate output names (also when they differ only in case), and in
   * WHERE unknown columns, comparisons of incompatible types, conditions that are not boolean and
   * comparisons with NULL.
   */
  public List<String> problems(Map<String, ColumnType> sourceSchema) {
    List<String> problems = new ArrayList<>();
    Set<String> known = sourceSchema.keySet();
    // GROUP BY columns.
    Set<String> seenKeys = new HashSet<>();
    for (int i = 0; i < keyColumns().size(); i++) {
      String k = keyColumns().get(i);
      int line = keyColumnLines().get(i);
      if (!known.contains(k)) {
        problems.add(
            "line "
                + line
                + ": GROUP BY uses unknown column `"
                + k
                + "`; "
                + Names.suggestion(k, known));
      }
      if (!seenKeys.add(k)) {
        problems.add(
            "line " + line + ": GROUP BY lists `" + k + "` twice; list each key column once");
      }
    }
    // SELECT items.
    Map<String, OutputColumn> selectedKeys = new HashMap<>();
    Set<OutputColumn> selectedTwice = new HashSet<>();
    for (OutputColumn o : outputs()) {
      String at = "line " + o.line() + ": ";
      if (o.kind() == OutputColumn.Kind.KEY) {
        String c = o.argument().get();
        OutputColumn first = selectedKeys.putIfAbsent(c, o);
        if (first != null && keyColumns().contains(c)) {
          selectedTwice.add(o);
          // A key column has one name in the output: the changelog renames it to that name.
          problems.add(
              at
                  + "GROUP BY column `"
                  + c
                  + "` is selected twice (also at line "
                  + first.line()
                  + "); select it once, under the name you want with AS (a key column has one"
                  + " name in the output)");
        }
        if (!known.contains(c)) {
          problems.add(
              at + "SELECT uses unknown column `" + c + "`; " + Names.suggestion(c, known));
        } else if (!keyColumns().contains(c)) {
          problems.add(
              at
                  + "column `"
                  + c
                  + "` is selected but is not a GROUP BY column, so it has no single value per"
                  + " key; add it to GROUP BY, or aggregate it, e.g. MAX("
                  + Names.quoteIfNeeded(c)
                  + ") AS "
                  + Names.quoteIfNeeded(c));
        }
        continue;
      }
      OutputColumn.Function f = o.function().get();
      if (o.argument().isPresent()) {
        String c = o.argument().get();
        ColumnType t = sourceSchema.get(c);
        if (t == null) {
          problems.add(
              at + o.toSql() + " uses unknown column `" + c + "`; " + Names.suggestion(c, known));
        } else if ((f == OutputColumn.Function.SUM || f == OutputColumn.Function.AVG)
            && !t.isNumeric()) {
          problems.add(
              at
                  + f
                  + "("
                  + c
                  + ") needs a numeric column (int64, double or decimal), but `"
                  + c
                  + "` is "
                  + t
                  + "; aggregate a numeric column, or use COUNT, MIN or MAX");
        }
      }
      if (o.aliasMissing()) {
        problems.add(
            at
                + o.toSql()
                + " has no name; name the output column: "
                + o.toSql()
                + " AS "
                + o.name());
      }
    }
    for (int i = 0; i < keyColumns().size(); i++) {
      String k = keyColumns().get(i);
      if (known.contains(k) && !selectedKeys.containsKey(k)) {
        problems.add(
            "line "
                + keyColumnLines().get(i)
                + ": GROUP BY column `"
                + k
                + "` is not selected; add it to the SELECT list (key columns are part of the"
                + " model's output)");
      }
    }
    // Duplicate output names.
    Map<String, OutputColumn> byName = new HashMap<>();
    for (OutputColumn o : outputs()) {
      OutputColumn first = byName.putIfAbsent(o.name().toLowerCase(Locale.ROOT), o);
      if (first != null && !selectedTwice.contains(o)) {
        boolean sameCase = first.name().equals(o.name());
        problems.add(
            "line "
                + o.line()
                + ": output name `"
                + o.name()
                + "` "
                + (sameCase
                    ? "is already used"
                    : "differs only in case from `" + first.name() + "`")
                + " (line "
                + first.line()
                + "); give each select item a distinct name with AS <name>");
      }
    }
    // WHERE.
    if (where().isPresent() && where().get() instanceof Expr.Predicate) {
      checkCondition(((Expr.Predicate) where().get()).root, sourceSchema, problems, true);
    }
    return problems;
  }

  /**
   * Type-checks a condition against {@code schema}: comparable operands, no comparison with NULL,
   * numbers in arithmetic, and a boolean result. Problems go to {@code problems}, each starting
   * with {@code line N:}; {@code where} says whether the condition is a WHERE (else an effect's
   * {@code when:}), for the fix a message gives.
   */
  static void checkCondition(
      Expr.Node root, Map<String, ColumnType> schema, List<String> problems, boolean where) {
    Expr.Check check = new Expr.Check(schema, problems);
    Expr.Type t = root.type(check);
    if (!t.lenient() && t != Expr.Type.BOOL) {
      String example = root.sqlAt(Expr.P_ADD) + (t == Expr.Type.NUMERIC ? " > 0" : " IS NOT NULL");
      check.problem(
          root,
          (where ? "WHERE " + root.toSql() : "`" + root.toSql() + "`")
              + " is not a condition ("
              + t.describe()
              + "); write a comparison, e.g. "
              + (where ? "WHERE " + example : "when: \"" + example + "\""));
    }
  }

  /**
   * Output name to type, in select order, following the rules in the class documentation.
   *
   * @throws IllegalArgumentException when {@link #problems(Map)} is not empty (the message lists
   *     them)
   */
  public LinkedHashMap<String, ColumnType> outputColumns(Map<String, ColumnType> sourceSchema) {
    List<String> problems = problems(sourceSchema);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("\n", problems));
    }
    LinkedHashMap<String, ColumnType> out = new LinkedHashMap<>();
    for (OutputColumn o : outputs()) {
      out.put(o.name(), outputType(o, sourceSchema));
    }
    return out;
  }

  /** The type of one output column (see the class documentation). */
  static ColumnType outputType(OutputColumn o, Map<String, ColumnType> schema) {
    if (o.kind() == OutputColumn.Kind.KEY) {
      return schema.get(o.argument().get());
    }
    OutputColumn.Function f = o.function().get();
    if (f == OutputColumn.Function.COUNT) {
      return ColumnType.INT64;
    }
    ColumnType t = schema.get(o.argument().get());
    switch (f) {
      case MIN:
      case MAX:
        return t;
      case SUM:
        return t.kind() == ColumnType.Kind.DECIMAL
            ? ColumnType.decimal(ColumnType.MAX_PRECISION, t.scale())
            : t;
      case AVG:
        return t.kind() == ColumnType.Kind.DECIMAL
            ? ColumnType.decimal(ColumnType.MAX_PRECISION, Math.max(t.scale(), 6))
            : ColumnType.DOUBLE;
      default:
        throw new AssertionError(f);
    }
  }

  /** The query as SQL, normalised (for display). */
  public String toSql() {
    StringBuilder sb = new StringBuilder("SELECT ");
    for (int i = 0; i < outputs().size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(outputs().get(i).toSql());
    }
    sb.append(" FROM source('").append(source().replace("'", "''")).append("')");
    where().ifPresent(w -> sb.append(" WHERE ").append(w.toSql()));
    sb.append(" GROUP BY ");
    for (int i = 0; i < keyColumns().size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(Names.quoteIfNeeded(keyColumns().get(i)));
    }
    return sb.toString();
  }
}
