package dev.streamform.teststreams.oracle;

import dev.streamform.policies.schema.ColumnType;
import dev.streamform.policies.sql.ModelQuery;
import dev.streamform.policies.sql.OutputColumn;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A model's query evaluated in plain Java, for the oracles: its WHERE clause (by the oracle's own
 * reading, {@link WhereClause}, not the engine's evaluator), the key of a record and the output row
 * of a group of records. Values follow SQL: aggregates skip nulls, {@code COUNT} of nothing is 0
 * and the others are null, decimals are exact and {@code AVG(decimal(p,s))} rounds half-even to
 * scale {@code max(s, 6)}. An event whose value would take an int64, double or decimal {@code SUM}
 * (or the sum behind an {@code AVG}), or a decimal {@code AVG}, of its group out of its type's
 * range is not applied ({@link #overflow}); a scoring model's features, doubles, sum past int64
 * exactly instead ({@link #featureRow}).
 */
final class GroupedQuery {
  private final ModelQuery query;
  private final Map<String, ColumnType> schema;
  private final WhereClause where;

  /**
   * The query of a model; {@code sql}, the model's SQL as written, gives the WHERE clause its own
   * reading ({@link WhereClause}) — null when only the parsed query is known, in which case the
   * clause is read back from the parsed query's SQL (its evaluation is still the oracle's own).
   */
  GroupedQuery(ModelQuery query, Map<String, ColumnType> schema, String sql) {
    this.query = query;
    this.schema = schema;
    if (sql != null) {
      this.where = WhereClause.ofQuery(sql);
    } else {
      this.where = query.where().map(w -> WhereClause.ofQuery("WHERE " + w.toSql())).orElse(null);
    }
    if ((where == null) != query.where().isEmpty()) {
      throw new IllegalArgumentException(
          "the oracle read no WHERE clause where the model has one,"
              + " or one where it has none: "
              + sql);
    }
  }

  /** True when {@code record} passes the WHERE clause (or there is none). */
  boolean selects(Map<String, Object> record) {
    return where == null || where.test(record);
  }

  /** The GROUP BY columns, as the records name them. */
  List<String> keyColumns() {
    return query.keyColumns();
  }

  /**
   * Why {@code record} is quarantined before anything else judges it: {@code key column `<c>` has
   * no value} for the first GROUP BY column (in GROUP BY order) it gives no value or null, as a
   * file's or a topic's decoder and every fixture's first step do (ADR 0088); null when it has them
   * all.
   */
  String missingKey(Map<String, Object> record) {
    for (String k : query.keyColumns()) {
      if (record.get(k) == null) {
        return "key column `" + k + "` has no value";
      }
    }
    return null;
  }

  /**
   * The state key of a record: its GROUP BY columns, by value (decimal 10 and 10.00 are one key).
   */
  List<Object> keyOf(Map<String, Object> record) {
    List<Object> key = new ArrayList<>();
    for (String k : query.keyColumns()) {
      Object v = record.get(k);
      key.add(v instanceof BigDecimal ? ((BigDecimal) v).stripTrailingZeros() : v);
    }
    return key;
  }

  /** The output row of a group holding {@code applied} (in arrival order), in select order. */
  Map<String, Object> row(List<Map<String, Object>> applied) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (OutputColumn c : query.outputs()) {
      row.put(c.name(), value(c, applied));
    }
    return row;
  }

  /**
   * Why {@code record} cannot join a group holding {@code applied}: the first int64, double or
   * decimal {@code SUM} or {@code AVG} column (in select order) whose sum (or decimal average) it
   * would take out of its type's range (outside int64; past the largest double; past
   * decimal(38,s)'s digits), named with the group's sum so far and the record's value; null when it
   * can.
   */
  String overflow(List<Map<String, Object>> applied, Map<String, Object> record) {
    for (OutputColumn c : query.outputs()) {
      if (c.kind() != OutputColumn.Kind.AGGREGATE
          || c.argument().isEmpty()
          || (c.function().get() != OutputColumn.Function.SUM
              && c.function().get() != OutputColumn.Function.AVG)) {
        continue;
      }
      String column = c.argument().get();
      Object x = record.get(column);
      if (x instanceof Double) {
        double sum = 0.0;
        boolean any = false;
        for (Map<String, Object> r : applied) {
          Object v = r.get(column);
          if (v != null) {
            sum = any ? sum + (Double) v : (Double) v; // in the order the events were applied
            any = true;
          }
        }
        if (any && Double.isInfinite(sum + (Double) x)) {
          return "column `"
              + column
              + "`: the double sum for `"
              + c.name()
              + "` would overflow: "
              + sum
              + " + "
              + x
              + " is outside the double range (about ±1.8e308)";
        }
        continue;
      }
      if (x instanceof BigDecimal) {
        String refused = decimalOverflow(c, column, applied, (BigDecimal) x);
        if (refused != null) {
          return refused;
        }
        continue;
      }
      if (!(x instanceof Long)) {
        continue;
      }
      long sum = 0;
      for (Map<String, Object> r : applied) {
        Object v = r.get(column);
        if (v != null) {
          sum += (Long) v; // the applied events' sums all fit: each was checked when it came
        }
      }
      if (BigInteger.valueOf(sum).add(BigInteger.valueOf((Long) x)).bitLength() > 63) {
        return "column `"
            + column
            + "`: the int64 sum for `"
            + c.name()
            + "` would overflow: "
            + sum
            + " + "
            + x
            + " is outside int64 (-9223372036854775808 to 9223372036854775807); declare `"
            + column
            + "` as decimal(38,0) in sources.yml for larger totals (in a Java pipeline without"
            + " sources.yml: a DECIMAL field of the records' Schema)";
      }
    }
    return null;
  }

  /**
   * Why {@code x} cannot join a group holding {@code applied} for {@code c}, a {@code SUM} or
   * {@code AVG} of the decimal(p,s) {@code column}: the sum is decimal(38,s), so it must stay below
   * 10^(38-s); an average is decimal(38, max(s,6)), rounded half-even, so below 10^(38-max(s,6)).
   * Null when it can.
   */
  private String decimalOverflow(
      OutputColumn c, String column, List<Map<String, Object>> applied, BigDecimal x) {
    int s = schema.get(column).scale();
    BigDecimal sum = null;
    long count = 1; // x, and the non-null values applied before it
    for (Map<String, Object> r : applied) {
      Object v = r.get(column);
      if (v != null) {
        sum = sum == null ? (BigDecimal) v : sum.add((BigDecimal) v);
        count++;
      }
    }
    BigDecimal total = sum == null ? x : sum.add(x);
    if (sum != null && total.abs().compareTo(BigDecimal.TEN.pow(38 - s)) >= 0) {
      return "column `"
          + column
          + "`: the decimal sum for `"
          + c.name()
          + "` would overflow: "
          + sum.setScale(s).toPlainString()
          + " + "
          + x.setScale(s).toPlainString()
          + " is outside decimal(38,"
          + s
          + ") (at most "
          + (38 - s)
          + " digits before the decimal point)";
    }
    if (c.function().get() != OutputColumn.Function.AVG) {
      return null;
    }
    int scale = Math.max(s, 6);
    BigDecimal avg = total.divide(BigDecimal.valueOf(count), scale, RoundingMode.HALF_EVEN);
    if (avg.abs().compareTo(BigDecimal.TEN.pow(38 - scale)) >= 0) {
      return "column `"
          + column
          + "`: the decimal average for `"
          + c.name()
          + "` would overflow: "
          + avg.toPlainString()
          + " is outside decimal(38,"
          + scale
          + ") (at most "
          + (38 - scale)
          + " digits before the decimal point)";
    }
    return null;
  }

  /**
   * {@link #aggregateRow} for a scoring model's features, which are doubles: an int64 sum past
   * int64 is kept exact (a decimal) instead of refusing a record.
   */
  Map<String, Object> featureRow(List<Map<String, Object>> read) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (OutputColumn c : query.outputs()) {
      if (c.kind() == OutputColumn.Kind.AGGREGATE) {
        row.put(c.name(), value(c, read, true));
      }
    }
    return row;
  }

  /**
   * The column aggregate output {@code name} reads ({@code amount} of {@code SUM(amount)}), or
   * null.
   */
  String argumentOf(String name) {
    for (OutputColumn c : query.outputs()) {
      if (c.name().equals(name)) {
        return c.argument().orElse(null);
      }
    }
    return null;
  }

  /** The key columns of {@link #row}, named as the query outputs them. */
  Map<String, Object> keyRow(List<Map<String, Object>> applied) {
    return columns(OutputColumn.Kind.KEY, applied);
  }

  /** The aggregate columns of {@link #row}, named as the query outputs them. */
  Map<String, Object> aggregateRow(List<Map<String, Object>> applied) {
    return columns(OutputColumn.Kind.AGGREGATE, applied);
  }

  private Map<String, Object> columns(OutputColumn.Kind kind, List<Map<String, Object>> applied) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (OutputColumn c : query.outputs()) {
      if (c.kind() == kind) {
        row.put(c.name(), value(c, applied));
      }
    }
    return row;
  }

  private Object value(OutputColumn c, List<Map<String, Object>> applied) {
    return value(c, applied, false);
  }

  private Object value(OutputColumn c, List<Map<String, Object>> applied, boolean widening) {
    if (c.kind() == OutputColumn.Kind.KEY) {
      return applied.get(0).get(c.argument().get());
    }
    List<Object> values = new ArrayList<>();
    for (Map<String, Object> r : applied) {
      Object v = c.argument().isEmpty() ? Boolean.TRUE : r.get(c.argument().get());
      if (v != null) {
        values.add(v);
      }
    }
    return aggregate(c, values, widening);
  }

  /** One aggregate over the non-null values of a group, in arrival order (SQL rules). */
  private Object aggregate(OutputColumn c, List<Object> values, boolean widening) {
    OutputColumn.Function f = c.function().get();
    if (f == OutputColumn.Function.COUNT) {
      return (long) values.size();
    }
    if (values.isEmpty()) {
      return null;
    }
    switch (f) {
      case MIN:
        return values.stream().min(GroupedQuery::compare).get();
      case MAX:
        return values.stream().max(GroupedQuery::compare).get();
      case SUM:
        return sum(values, widening);
      case AVG:
        Object sum = sum(values, widening);
        if (schema.get(c.argument().get()).kind() == ColumnType.Kind.DECIMAL) {
          int scale = Math.max(schema.get(c.argument().get()).scale(), 6);
          return ((BigDecimal) sum)
              .divide(BigDecimal.valueOf(values.size()), scale, RoundingMode.HALF_EVEN);
        }
        return ((Number) sum).doubleValue() / values.size();
      default:
        throw new AssertionError(f);
    }
  }

  private static Object sum(List<Object> values, boolean widening) {
    Object first = values.get(0);
    if (first instanceof BigDecimal) {
      return values.stream().map(v -> (BigDecimal) v).reduce(BigDecimal::add).get();
    }
    if (first instanceof Long && widening) {
      BigInteger exact =
          values.stream().map(v -> BigInteger.valueOf((Long) v)).reduce(BigInteger::add).get();
      return exact.bitLength() > 63 ? new BigDecimal(exact) : (Object) exact.longValue();
    }
    if (first instanceof Long) {
      return values.stream().map(v -> (Long) v).reduce(Math::addExact).get();
    }
    double s = (Double) first;
    for (Object v : values.subList(1, values.size())) {
      s += (Double) v;
    }
    return s;
  }

  /** The natural order of two non-null values of one column type. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static int compare(Object a, Object b) {
    return ((Comparable) a).compareTo(b);
  }
}
