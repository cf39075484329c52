/**
 * The SQL subset of a model: parsed and validated with Calcite, evaluated by the project's own
 * expression evaluator ({@code WHERE}, aggregates; docs/reference/sql.md).
 */
package dev.streamform.policies.sql;
