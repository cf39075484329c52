package dev.streamform.policies.sql;

import java.io.Serializable;
import java.util.function.Function;

/**
 * A model's WHERE clause, evaluated on one record. Column values are {@link Long} (int64), {@link
 * String}, {@link Boolean}, {@link Double}, {@link java.math.BigDecimal} (decimal), {@link
 * java.time.Instant} (timestamp) or {@code null}. SQL three-valued logic applies: when the
 * predicate is NULL (UNKNOWN) the row is filtered out, i.e. {@link #test} returns {@code false}.
 */
public interface RowPredicate extends Serializable {

  /** True when the record passes the WHERE clause; false when it is FALSE or UNKNOWN. */
  boolean test(Function<String, Object> column);

  /** The predicate as SQL, for display. */
  String toSql();
}
