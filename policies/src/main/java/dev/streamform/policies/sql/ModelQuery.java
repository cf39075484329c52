package dev.streamform.policies.sql;

import com.google.auto.value.AutoValue;
import dev.streamform.policies.schema.ColumnType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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

  static ModelQuery create(
      String source,
      List<String> keyColumns,
      List<OutputColumn> outputs,
      Optional<RowPredicate> where) {
    return new AutoValue_ModelQuery(
        source, List.copyOf(keyColumns), List.copyOf(outputs), where);
  }

  /** Semantic errors against the source schema, each a user-facing sentence; empty when fine. */
  public List<String> problems(Map<String, ColumnType> sourceSchema) {
    return new ArrayList<>();
  }

  /**
   * Output name to type, in select order.
   *
   * @throws IllegalArgumentException when {@link #problems(Map)} is not empty
   */
  public LinkedHashMap<String, ColumnType> outputColumns(Map<String, ColumnType> sourceSchema) {
    return new LinkedHashMap<>();
  }
}
