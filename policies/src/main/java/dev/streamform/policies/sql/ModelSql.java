package dev.streamform.policies.sql;

/** Parses a model's SQL with Apache Calcite's parser. */
public final class ModelSql {
  private ModelSql() {}

  /**
   * Parses {@code sql} into a {@link ModelQuery}; refuses unsupported constructs with a message
   * naming them and their line in {@code sql}. Semantic checks against a schema are {@link
   * ModelQuery#problems(java.util.Map)}.
   */
  public static ModelQuery parse(String sql) throws SqlModelException {
    throw new SqlModelException("SQL models are not implemented yet", 0, 0);
  }
}
