/**
 * Column types ({@code int64}, {@code decimal(p,s)}, {@code timestamp}, ...) and the conversion of
 * a value as written in a record or a fixture to a column's Java value, at bounded cost.
 */
package dev.streamform.policies.schema;
